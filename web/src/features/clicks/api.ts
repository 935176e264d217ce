import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { DayRange } from "@/lib/date-ranges";

export type ClickLog = InferResponseType<typeof api.clicks.$get, 200>;
export type Click = ClickLog["clicks"][number];

/** Spec §9: the click log refreshes every 10 seconds. */
const POLL_MS = 10_000;

/** endDate is inclusive on the server (worker/src/schemas/clicks.ts): sent as picked, no +1 day. */
export function useClickLog(range: DayRange, campaignId: string, page: number) {
  return useQuery({
    queryKey: ["clicks", "log", range, campaignId, page],
    queryFn: () =>
      unwrap(
        api.clicks.$get({
          query: { ...range, page: String(page), ...(campaignId !== "all" && { campaignId }) },
        }),
      ),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
}

/** Campaigns with clicks in the range, for the filter (a Click Log user may lack the campaigns feature). */
export function useCampaignChoices(range: DayRange) {
  return useQuery({
    queryKey: ["clicks", "by-campaign", range],
    queryFn: () => unwrap(api.clicks["by-campaign"].$get({ query: range })),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export const exportUrl = (range: DayRange, campaignId: string) => {
  const q = new URLSearchParams({ ...range, ...(campaignId !== "all" && { campaignId }) });
  return `/api/clicks/export?${q}`;
};

export type ClickRetention = InferResponseType<typeof api.clicks.retention.$get, 200>;
export type RefusedClicks = InferResponseType<typeof api.clicks.refused.$get, 200>;

/** How long raw clicks are kept, and the archived days of the range (README "Retention and archives"). */
export function useClickRetention(range: DayRange) {
  return useQuery({
    queryKey: ["clicks", "retention", range],
    queryFn: () => unwrap(api.clicks.retention.$get({ query: range })),
    placeholderData: keepPreviousData,
  });
}

/** Clicks and exits the per-IP rate limit refused in the range, per day and campaign. */
export function useRefusedClicks(range: DayRange, campaignId: string) {
  return useQuery({
    queryKey: ["clicks", "refused", range, campaignId],
    queryFn: () => unwrap(api.clicks.refused.$get({ query: { ...range, ...(campaignId !== "all" && { campaignId }) } })),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export const archiveUrl = (day: string) => `/api/clicks/archives/${day}`;
