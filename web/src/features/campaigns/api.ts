import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { campaignsQuery, entityKeys } from "@/lib/entities";
import type { CreateCampaignInput, UpdateCampaignInput } from "../../../../worker/src/schemas/campaigns";

export type Campaign = InferResponseType<typeof api.campaigns.$get, 200>[number];

const key = entityKeys.campaigns;
export const useCampaigns = () => useQuery(campaignsQuery);

/** Admin-only: domain choices and whether a default redirect domain exists. */
export const trackingDomainsQuery = queryOptions({
  queryKey: [...key, "tracking-domains"],
  queryFn: () => unwrap(api.campaigns["tracking-domains"].$get()),
});

// The dialog's choices are the shared entity lists (lib/entities.ts).
export { landersQuery as landerChoicesQuery, offersQuery as offerChoicesQuery } from "@/lib/entities";

export function useCreateCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateCampaignInput) => unwrap(api.campaigns.$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useUpdateCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...json }: UpdateCampaignInput & { id: number }) => unwrap(api.campaigns[":id"].$patch({ param: { id: String(id) }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.campaigns[":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

/** What deleting the campaign takes along; read fresh each time the confirmation opens. */
export const campaignDeletionImpactQuery = (id: number) =>
  queryOptions({
    queryKey: [...key, id, "deletion-impact"],
    queryFn: () => unwrap(api.campaigns[":id"]["deletion-impact"].$get({ param: { id: String(id) } })),
    staleTime: 0,
    gcTime: 0,
  });
