import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { RuleInput } from "../../../../worker/src/schemas/rules";

export type Rule = InferResponseType<typeof api.rules.$get, 200>[number];
export type RuleDetail = InferResponseType<(typeof api.rules)[":id"]["$get"], 200>;
export type Firing = RuleDetail["firings"][number];
export type DryRun = InferResponseType<(typeof api.rules)["dry-run"]["$post"], 200>;
export type RuleOptions = InferResponseType<typeof api.rules.options.$get, 200>;

const key = ["rules"] as const;
const param = (id: number) => ({ param: { id: String(id) } });

export const useRules = () => useQuery({ queryKey: key, queryFn: () => unwrap(api.rules.$get()) });

export const useRule = (id: number | null) =>
  useQuery({ queryKey: [...key, id], queryFn: () => unwrap(api.rules[":id"].$get(param(id ?? 0))), enabled: id !== null });

/** The alert channels a rule can send to (Rules › Channels). */
export const useAlertChannels = () => useQuery({ queryKey: [...key, "channels"], queryFn: () => unwrap(api["alert-channels"].$get()) });

export const useRuleOptions = () => useQuery({ queryKey: [...key, "options"], queryFn: () => unwrap(api.rules.options.$get()) });

export function useSaveRule(id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (json: RuleInput) => (id === null ? unwrap(api.rules.$post({ json })) : unwrap(api.rules[":id"].$put({ ...param(id), json }))),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useSwitchRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) => unwrap(api.rules[":id"].enabled.$post({ ...param(id), json: { enabled } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.rules[":id"].$delete(param(id))),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export const useDryRun = () => useMutation({ mutationFn: (json: RuleInput) => unwrap(api.rules["dry-run"].$post({ json })) });
