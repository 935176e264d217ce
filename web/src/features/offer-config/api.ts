import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { entityKeys, offersQuery } from "@/lib/entities";
import type { CreateOfferInput } from "../../../../worker/src/schemas/offers";

type OfferChoice = InferResponseType<typeof api.offers.$get, 200>[number];
/** The whole offer, as an edit answers it. The list gives it to admins; members get ids and names only (and never see this screen). */
export type Offer = InferResponseType<(typeof api.offers)[":id"]["$patch"], 200>;
const isWhole = (row: OfferChoice | Offer): row is Offer => "url" in row;

const key = entityKeys.offers;
/** The shared offers list, narrowed to whole offers (an admin's list holds nothing else). */
export const useOffers = () => useQuery({ ...offersQuery, select: (rows) => rows.filter(isWhole) });

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
