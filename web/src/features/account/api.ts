import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import { userQuery } from "@/lib/auth";
import type { ChangePasswordInput } from "../../../../worker/src/schemas/auth";

const account = api.account;

export const twoFactorQuery = queryOptions({ queryKey: ["account", "two-factor"], queryFn: () => unwrap(account["two-factor"].$get()) });
export const useTwoFactor = () => useQuery(twoFactorQuery);

export const useChangePassword = () => useMutation({ mutationFn: (json: ChangePasswordInput) => unwrap(account.password.$post({ json })) });

/** A new secret to scan; nothing changes until a code confirms it. */
export const useStartSetup = () => useMutation({ mutationFn: () => unwrap(account["two-factor"].setup.$post()) });

/** Confirms with the first code: two-factor sign-in is on, and the answer holds the recovery codes. */
export function useConfirmSetup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => unwrap(account["two-factor"].confirm.$post({ json: { code } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: twoFactorQuery.queryKey });
      // The session may have been limited to this setup: the user's flags change.
      await qc.invalidateQueries({ queryKey: userQuery.queryKey });
    },
  });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (password: string) => unwrap(account["two-factor"].disable.$post({ json: { password } })),
    onSuccess: async (status) => {
      qc.setQueryData(twoFactorQuery.queryKey, status);
      await qc.invalidateQueries({ queryKey: userQuery.queryKey });
    },
  });
}
