import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { entityKeys, sparksQuery } from "@/lib/entities";
import type { CreateSparkInput } from "../../../../worker/src/schemas/sparks";

export type Spark = InferResponseType<typeof api.sparks.$get, 200>[number];

const key = entityKeys.sparks;
export const useSparks = () => useQuery(sparksQuery);

export function useCreateSpark() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateSparkInput) => unwrap(api.sparks.$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteSpark() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.sparks[":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
