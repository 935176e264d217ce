import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { DayRange } from "@/lib/date-ranges";
import type { TikTokEventSettingsInput } from "../../../../worker/src/schemas/tiktok-events";

export type Report = InferResponseType<typeof api.stats.report.$get, 200>;
export type ReportRow = Report["rows"][number];
export type ReportTotals = Report["totals"];
export type GroupBy = Report["groupBy"];
export type Preferences = InferResponseType<typeof api.user.preferences.$get, 200>;
export type SyncStatus = InferResponseType<typeof api.sync.status.$get, 200>;
export type TikTokEventsStatus = InferResponseType<(typeof api)["tiktok-events"]["$get"], 200>;

/** The report's inputs as the screen holds them; empty filters are left out of the call. */
export interface ReportParams extends DayRange {
  groupBy: GroupBy;
  offerId: number | null;
  /** A spark id, "none" for No Spark, or null for all. */
  sparkId: string | null;
  mediaBuyer: string | null;
  campaignId: number | null;
  /** Count bot-flagged clicks in Link Clicks, Lander CTR and the click shares of spend. */
  includeBots: boolean;
}

const statsKey = ["stats"] as const;

/** docs/screens.md §9: the stats refresh every 30 seconds and count as fresh for 25. */
export const STATS_REFRESH_MS = 30_000;
export const STATS_STALE_MS = 25_000;

/** The call's query: text values, filters only when set. */
export function reportRequest(p: ReportParams) {
  return {
    startDate: p.startDate,
    endDate: p.endDate,
    groupBy: p.groupBy,
    ...(p.offerId !== null && { offerId: String(p.offerId) }),
    ...(p.sparkId !== null && { sparkId: p.sparkId }),
    ...(p.mediaBuyer !== null && { mediaBuyer: p.mediaBuyer }),
    ...(p.campaignId !== null && { campaignId: String(p.campaignId) }),
    ...(p.includeBots && { includeBots: "true" }),
  } satisfies Record<string, string>;
}

export const reportQuery = (p: ReportParams) =>
  queryOptions({
    queryKey: [...statsKey, "report", reportRequest(p)],
    queryFn: () => unwrap(api.stats.report.$get({ query: reportRequest(p) })),
    refetchInterval: STATS_REFRESH_MS,
    staleTime: STATS_STALE_MS,
  });

/** The media buyers (CAKE sub1) the caller may see over the range, for the filter. */
export const filtersQuery = (range: DayRange) =>
  queryOptions({
    queryKey: [...statsKey, "filters", range.startDate, range.endDate],
    queryFn: () => unwrap(api.stats.filters.$get({ query: range })),
    staleTime: STATS_STALE_MS,
  });

// The filter choices are the shared entity lists (lib/entities.ts).
export { offersQuery as offerChoicesQuery, sparksQuery as sparkChoicesQuery } from "@/lib/entities";

const preferencesKey = ["dashboard-preferences"] as const;
export const preferencesQuery = queryOptions({ queryKey: preferencesKey, queryFn: () => unwrap(api.user.preferences.$get()) });

export function useSavePreferences() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: Preferences) => unwrap(api.user.preferences.$put({ json })),
    // The server answers what it stored: that is the cache's value now.
    onSuccess: (stored) => qc.setQueryData(preferencesKey, stored),
  });
}

/** Admins only (the call answers 403 to anyone else). */
export const syncStatusQuery = queryOptions({
  queryKey: ["sync", "status"],
  queryFn: () => unwrap(api.sync.status.$get()),
  refetchInterval: STATS_REFRESH_MS,
});

export function useSyncNow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.sync.run.$post({ json: { source: "all" } })),
    // A failed run is recorded too: refresh the status either way, and the figures it may have changed.
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ["sync"] }), qc.invalidateQueries({ queryKey: statsKey })]),
  });
}

export const useReport = (p: ReportParams) => useQuery(reportQuery(p));

// Conversions sent to TikTok's Events API (admins).
const eventsKey = ["tiktok-events"] as const;

export const tiktokEventsQuery = queryOptions({
  queryKey: eventsKey,
  queryFn: () => unwrap(api["tiktok-events"].$get()),
  refetchInterval: STATS_REFRESH_MS,
});

export function useSaveEventSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: TikTokEventSettingsInput) => unwrap(api["tiktok-events"].settings.$put({ json })),
    onSettled: () => qc.invalidateQueries({ queryKey: eventsKey }),
  });
}

export function useResendFailed() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api["tiktok-events"].resend.$post()),
    onSettled: () => qc.invalidateQueries({ queryKey: eventsKey }),
  });
}
