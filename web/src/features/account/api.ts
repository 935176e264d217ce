import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import { userQuery } from "@/lib/auth";
import type { CreateApiKeyInput } from "../../../../worker/src/schemas/api-keys";
import type { CreateWebhookInput } from "../../../../worker/src/schemas/webhooks";
import type { ChangePasswordInput, OwnFactorsInput } from "../../../../worker/src/schemas/auth";

const account = api.account;

export const twoFactorQuery = queryOptions({ queryKey: ["account", "two-factor"], queryFn: () => unwrap(account["two-factor"].$get()) });
export const useTwoFactor = () => useQuery(twoFactorQuery);

export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: ChangePasswordInput) => unwrap(account.password.$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: sessionsQuery.queryKey }),
  });
}

/** A new secret to scan (after the password, and the current code when it is on); nothing changes until a code confirms it. */
export const useStartSetup = () => useMutation({ mutationFn: (json: OwnFactorsInput) => unwrap(account["two-factor"].setup.$post({ json })) });

/** Confirms with the first code: two-factor sign-in is on, and the answer holds the recovery codes. */
export function useConfirmSetup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => unwrap(account["two-factor"].confirm.$post({ json: { code } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: twoFactorQuery.queryKey });
      // The session may have been limited to this setup: the user's flags change.
      await qc.invalidateQueries({ queryKey: userQuery.queryKey });
      // Every other session was signed out.
      await qc.invalidateQueries({ queryKey: sessionsQuery.queryKey });
    },
  });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: OwnFactorsInput) => unwrap(account["two-factor"].disable.$post({ json })),
    onSuccess: async (status) => {
      qc.setQueryData(twoFactorQuery.queryKey, status);
      await qc.invalidateQueries({ queryKey: userQuery.queryKey });
      await qc.invalidateQueries({ queryKey: sessionsQuery.queryKey });
    },
  });
}

/** The user's own signed-in sessions (device, IP, last seen, this device). */
export const sessionsQuery = queryOptions({ queryKey: ["account", "sessions"], queryFn: () => unwrap(account.sessions.$get()) });
export const useSessions = () => useQuery(sessionsQuery);

export function useSignOutOthers() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(account.sessions["sign-out-others"].$post()),
    onSuccess: () => qc.invalidateQueries({ queryKey: sessionsQuery.queryKey }),
  });
}

/** The user's own API keys (docs/accounts-security.md "API keys"); admins also read everyone's. */
export const apiKeysQuery = queryOptions({ queryKey: ["api-keys", "own"], queryFn: () => unwrap(api["api-keys"].$get()) });
export const useApiKeys = () => useQuery(apiKeysQuery);
export const allApiKeysQuery = queryOptions({ queryKey: ["api-keys", "all"], queryFn: () => unwrap(api["api-keys"].all.$get()) });
export const useAllApiKeys = (enabled: boolean) => useQuery({ ...allApiKeysQuery, enabled });

/** A new key: the answer holds the key itself, shown this once. */
export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateApiKeyInput) => unwrap(api["api-keys"].$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["api-keys"] }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api["api-keys"][":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["api-keys"] }),
  });
}

/** The user's own webhook subscriptions (docs/webhooks.md); admins also read everyone's. */
export const webhooksQuery = queryOptions({ queryKey: ["webhooks", "own"], queryFn: () => unwrap(api.webhooks.$get()) });
export const useWebhooks = () => useQuery(webhooksQuery);
export const allWebhooksQuery = queryOptions({ queryKey: ["webhooks", "all"], queryFn: () => unwrap(api.webhooks.all.$get()) });
export const useAllWebhooks = (enabled: boolean) => useQuery({ ...allWebhooksQuery, enabled });

/**
 * One subscription's latest deliveries, while its log is open. Polled, since a test event and
 * retries arrive through the queue after the click that caused them.
 */
export const useWebhookDeliveries = (id: number | null) =>
  useQuery({
    queryKey: ["webhooks", "deliveries", id],
    queryFn: () => unwrap(api.webhooks[":id"].deliveries.$get({ param: { id: String(id) } })),
    enabled: id !== null,
    refetchInterval: 3_000,
  });

/** A new subscription: the answer holds its signing secret, shown this once. */
export function useCreateWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateWebhookInput) => unwrap(api.webhooks.$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useWebhookAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, action }: { id: number; action: "test" | "enable" | "delete" }): Promise<void> => {
      const param = { param: { id: String(id) } };
      const one = api.webhooks[":id"];
      if (action === "test") await unwrap(one.test.$post(param));
      else if (action === "enable") await unwrap(one.enable.$post(param));
      else await unwrap(one.$delete(param));
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}
