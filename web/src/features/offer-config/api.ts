import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { CreateOfferInput } from "../../../../worker/src/schemas/offers";

export type Offer = InferResponseType<typeof api.offers.$get, 200>[number];

const key = ["offers"] as const;
export const offersQuery = queryOptions({ queryKey: key, queryFn: () => unwrap(api.offers.$get()) });
export const useOffers = () => useQuery(offersQuery);

export function useSaveOffer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...json }: CreateOfferInput & { id?: number }) =>
      id === undefined ? unwrap(api.offers.$post({ json })) : unwrap(api.offers[":id"].$patch({ param: { id: String(id) }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteOffer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.offers[":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
