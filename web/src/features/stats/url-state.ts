import { z } from "zod";
import { statsScreenDefaults, statsScreenSearch } from "../../../../worker/src/schemas/stats";
import type { ReportParams } from "./api";
import type { Filters } from "./components/filter-row";
import { groupingOf } from "./groupings";
import type { Sort } from "./sort";
import type { ColumnKey } from "./columns";

/**
 * The Stats screen's state in the URL (worker/src/schemas/stats.ts, shared with the Worker, which
 * reads a Stats link the same way for the screen's document): the report call's own query plus
 * the tab, the tracking-field variable, the sort and the filtered campaign's name.
 */
export const statsSearchSchema = statsScreenSearch;
export const statsSearchDefaults = statsScreenDefaults;

export type StatsSearch = z.output<typeof statsSearchSchema>;

export const filtersOf = (s: StatsSearch): Filters => ({
  variable: s.variable,
  offerId: s.offerId ?? null,
  sparkId: s.sparkId ?? null,
  mediaBuyer: s.mediaBuyer ?? null,
});

export const sortOf = (s: StatsSearch): Sort<ColumnKey> => ({ key: s.sort, direction: s.dir });

/** The report call the state asks for (the same query key the route's loader prefetches). */
export const reportParamsOf = (s: StatsSearch): ReportParams => ({
  startDate: s.startDate,
  endDate: s.endDate,
  groupBy: groupingOf(s.tab, s.variable),
  offerId: s.offerId ?? null,
  sparkId: s.sparkId ?? null,
  mediaBuyer: s.mediaBuyer ?? null,
  campaignId: s.campaignId ?? null,
  includeBots: s.includeBots,
});
