import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import type { SettingInput } from "../../../../worker/src/schemas/settings";

export const settingsQuery = queryOptions({
  queryKey: ["settings"],
  queryFn: async () => {
    const rows = await unwrap(api.settings.$get());
    return Object.fromEntries(rows.map((r) => [r.key, r.value])) as Record<string, string>;
  },
});

export const useSettings = () => useQuery(settingsQuery);

export function useSaveSettings() {
  const qc = useQueryClient();
  return useMutation({
    // Each setting is its own call (docs/screens.md §7); a form saves its settings one after another.
    mutationFn: async (inputs: SettingInput[]) => {
      const saved = [];
      for (const input of inputs) saved.push(await unwrap(api.settings.$post({ json: input })));
      return saved;
    },
    onSettled: () => qc.invalidateQueries({ queryKey: settingsQuery.queryKey }),
  });
}
