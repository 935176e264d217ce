import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { BuiltinAlertKey, UpdateBuiltinAlertInput } from "../../../../worker/src/schemas/builtin-alerts";

export type BuiltinAlert = InferResponseType<(typeof api)["builtin-alerts"]["$get"], 200>[number];

const key = ["builtin-alerts"] as const;
export const useBuiltinAlerts = () => useQuery({ queryKey: key, queryFn: () => unwrap(api["builtin-alerts"].$get()) });

export function useSaveBuiltinAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ alert, json }: { alert: BuiltinAlertKey; json: UpdateBuiltinAlertInput }) =>
      unwrap(api["builtin-alerts"][":alert"].$put({ param: { alert }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
