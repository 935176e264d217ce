import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import { campaignsQuery, entityKeys, landersQuery, offersQuery } from "@/lib/entities";
import type { PreviewInput, PutPathsInput } from "../../../../worker/src/schemas/paths";

const paths = api.campaigns[":id"].paths;

/** Under the campaigns' key: a campaign's delete or edit invalidates its paths too. */
const pathsKey = (campaignId: number) => [...entityKeys.campaigns, campaignId, "paths"] as const;

export const pathsQuery = (campaignId: number) =>
  queryOptions({ queryKey: pathsKey(campaignId), queryFn: () => unwrap(paths.$get({ param: { id: String(campaignId) } })) });

export const historyQuery = (campaignId: number, pathId: number) =>
  queryOptions({
    queryKey: [...pathsKey(campaignId), pathId, "history"],
    queryFn: () => unwrap(paths[":pathId"].history.$get({ param: { id: String(campaignId), pathId: String(pathId) } })),
  });

export type SplitTestMetric = "cr" | "epv";

/** A path's split test over the last `days` (absent: the path's own window and metric, as the server picks). */
export const splitTestQuery = (campaignId: number, pathId: number, days?: number, metric?: SplitTestMetric) =>
  queryOptions({
    queryKey: [...pathsKey(campaignId), pathId, "split-test", days ?? null, metric ?? null],
    queryFn: () =>
      unwrap(
        paths[":pathId"]["split-test"].$get({
          param: { id: String(campaignId), pathId: String(pathId) },
          query: { ...(days !== undefined && { days: String(days) }), ...(metric && { metric }) },
        }),
      ),
    // Changing the period keeps the old figures on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });

// The editor's names for ids, and the campaign's own name: the shared lists (lib/entities.ts).
export const useCampaignList = () => useQuery(campaignsQuery);
export const useLanderChoices = () => useQuery(landersQuery);
export const useOfferChoices = () => useQuery(offersQuery);

export function useSavePaths(campaignId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: PutPathsInput) => unwrap(paths.$put({ param: { id: String(campaignId) }, json })),
    onSuccess: (saved) => {
      qc.setQueryData(pathsKey(campaignId), saved);
      // The Campaigns list names each campaign's lander: its default path's may have changed.
      return qc.invalidateQueries({ queryKey: entityKeys.campaigns });
    },
  });
}

export function usePreview(campaignId: number) {
  return useMutation({ mutationFn: (json: PreviewInput) => unwrap(paths.preview.$post({ param: { id: String(campaignId) }, json })) });
}
