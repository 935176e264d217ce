import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { entityKeys, landersQuery } from "@/lib/entities";
import type { CreateLanderInput } from "../../../../worker/src/schemas/landers";

export type Lander = InferResponseType<typeof api.landers.$get, 200>[number];

const key = entityKeys.landers;
export const useLanders = () => useQuery(landersQuery);

export function useSaveLander() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...json }: CreateLanderInput & { id?: number }) =>
      id === undefined ? unwrap(api.landers.$post({ json })) : unwrap(api.landers[":id"].$patch({ param: { id: String(id) }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteLander() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.landers[":id"].$delete({ param: { id: String(id) } })),
    // Its campaigns went with it: the Campaigns screen's list is stale too.
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: entityKeys.campaigns })]),
  });
}
