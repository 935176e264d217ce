import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { DayRange } from "@/lib/date-ranges";
import type { BOT_FILTERS } from "../../../../worker/src/schemas/clicks";

export type ClickLog = InferResponseType<typeof api.clicks.$get, 200>;
export type Click = ClickLog["clicks"][number];
export type ClickFacets = InferResponseType<typeof api.clicks.facets.$get, 200>;

/** docs/screens.md §9: the click log refreshes every 10 seconds. */
const POLL_MS = 10_000;

/** Who clicked, as the filters hold it: "all" is no filter; a value may be "(unknown)". */
export interface VisitorFilters {
  bot: (typeof BOT_FILTERS)[number];
  country: string;
  device: string;
  os: string;
  browser: string;
}

export const ALL = "all";
export const NO_VISITOR_FILTERS: VisitorFilters = { bot: "all", country: ALL, device: ALL, os: ALL, browser: ALL };

/** The call's query: the range, and each filter only when it narrows. */
function logQuery(range: DayRange, campaignId: string, v: VisitorFilters) {
  return {
    ...range,
    ...(campaignId !== ALL && { campaignId }),
    ...(v.bot !== "all" && { bot: v.bot }),
    ...(v.country !== ALL && { country: v.country }),
    ...(v.device !== ALL && { device: v.device }),
    ...(v.os !== ALL && { os: v.os }),
    ...(v.browser !== ALL && { browser: v.browser }),
  };
}

/** endDate is inclusive on the server (worker/src/schemas/clicks.ts): sent as picked, no +1 day. */
export const clickLogOptions = (range: DayRange, campaignId: string, visitors: VisitorFilters, page: number) =>
  queryOptions({
    queryKey: ["clicks", "log", range, campaignId, visitors, page],
    queryFn: () => unwrap(api.clicks.$get({ query: { ...logQuery(range, campaignId, visitors), page: String(page) } })),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });

export function useClickLog(range: DayRange, campaignId: string, visitors: VisitorFilters, page: number) {
  return useQuery(clickLogOptions(range, campaignId, visitors, page));
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

/** The range's countries, devices, systems and browsers, for the visitor filters. */
export function useClickFacets(range: DayRange) {
  return useQuery({
    queryKey: ["clicks", "facets", range],
    queryFn: () => unwrap(api.clicks.facets.$get({ query: range })),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export type ClickRetention = InferResponseType<typeof api.clicks.retention.$get, 200>;
export type RefusedClicks = InferResponseType<typeof api.clicks.refused.$get, 200>;

/** How long raw clicks are kept, and the archived days of the range (docs/data.md "Retention and archives"). */
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

export const exportUrl = (range: DayRange, campaignId: string, visitors: VisitorFilters) =>
  `/api/clicks/export?${new URLSearchParams(logQuery(range, campaignId, visitors))}`;
export const archiveUrl = (day: string) => `/api/clicks/archives/${day}`;

export type ClicksPipeline = InferResponseType<typeof api.clicks.pipeline.$get, 200>;

/** Whether new clicks are delayed on their way to the Click Log (docs/tracking.md "Clicks through a queue"). */
export function useClicksPipeline() {
  return useQuery({
    queryKey: ["clicks", "pipeline"],
    queryFn: () => unwrap(api.clicks.pipeline.$get()),
    refetchInterval: POLL_MS,
  });
}
