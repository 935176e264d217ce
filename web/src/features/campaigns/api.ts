import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { CreateCampaignInput, UpdateCampaignInput } from "../../../../worker/src/schemas/campaigns";

export type Campaign = InferResponseType<typeof api.campaigns.$get, 200>[number];

const key = ["campaigns"] as const;
export const campaignsQuery = queryOptions({ queryKey: key, queryFn: () => unwrap(api.campaigns.$get()) });
export const useCampaigns = () => useQuery(campaignsQuery);

/** Admin-only: domain choices and whether a default redirect domain exists. */
export const trackingDomainsQuery = queryOptions({
  queryKey: [...key, "tracking-domains"],
  queryFn: () => unwrap(api.campaigns["tracking-domains"].$get()),
});

// The dialog's choices share the landers and offers screens' cache keys.
export const landerChoicesQuery = queryOptions({ queryKey: ["landers"], queryFn: () => unwrap(api.landers.$get()) });
export const offerChoicesQuery = queryOptions({ queryKey: ["offers"], queryFn: () => unwrap(api.offers.$get()) });

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
