import { z } from "zod";
import type { SearchDefaults } from "@/lib/url-state";
import { STATS_COLUMNS, STATS_TABS, STATS_VARIABLES, statsReportQuery } from "../../../../worker/src/schemas/stats";
import type { ReportParams } from "./api";
import type { Filters } from "./components/filter-row";
import { groupingOf } from "./groupings";
import type { Sort } from "./sort";
import type { ColumnKey } from "./columns";

/**
 * The Stats screen's state in the URL: the report call's own query (range, filters, campaign,
 * bots; validated by the API's schema) plus what only the screen knows: the tab, the tracking-field
 * variable, the sort and the filtered campaign's name for its chip. `groupBy` is not a parameter:
 * the tab and the variable make it.
 */
export const statsSearchSchema = statsReportQuery.and(
  z.object({
    tab: z.enum(STATS_TABS),
    variable: z.enum(STATS_VARIABLES),
    sort: z.enum(STATS_COLUMNS),
    dir: z.enum(["asc", "desc"]),
    campaignName: z.string().max(200).optional(),
  }),
);

export const statsSearchDefaults = (today: string): SearchDefaults => ({
  startDate: today,
  endDate: today,
  tab: "campaign",
  variable: "none",
  sort: "revenue",
  dir: "desc",
  includeBots: "false",
});

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
