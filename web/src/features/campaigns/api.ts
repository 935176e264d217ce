import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { assignmentOptionsQuery, campaignsQuery, entityKeys } from "@/lib/entities";
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
export {
  assignmentOptionsQuery as mediaBuyerChoicesQuery,
  landersQuery as landerChoicesQuery,
  offersQuery as offerChoicesQuery,
  sparksQuery as sparkChoicesQuery,
} from "@/lib/entities";

/** A saved campaign may name a media buyer no list knew yet: it joins the choices. */
function invalidateAfterSave(qc: ReturnType<typeof useQueryClient>) {
  return Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: assignmentOptionsQuery.queryKey })]);
}

export function useCreateCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateCampaignInput) => unwrap(api.campaigns.$post({ json })),
    onSuccess: () => invalidateAfterSave(qc),
  });
}

export function useUpdateCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...json }: UpdateCampaignInput & { id: number }) => unwrap(api.campaigns[":id"].$patch({ param: { id: String(id) }, json })),
    onSuccess: () => invalidateAfterSave(qc),
  });
}

export function useDeleteCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.campaigns[":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
