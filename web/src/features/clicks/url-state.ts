import { z } from "zod";
import type { DayRange } from "@/lib/date-ranges";
import { clickLogDefaults, clickLogQuery } from "../../../../worker/src/schemas/clicks";
import { ALL, type VisitorFilters } from "./api";

/**
 * The Click Log's state in the URL, read by the API's own query schema: the range (the last 7 days
 * of the report time zone by default), the campaign, the visitor filters and the page.
 */
export const clicksSearchSchema = clickLogQuery;

/** The last 7 days to the report time zone's today, all visitors, the first page (shared with the Worker). */
export const clicksSearchDefaults = clickLogDefaults;

export type ClicksSearch = z.output<typeof clicksSearchSchema>;

export interface ClicksState {
  range: DayRange;
  campaignId: string;
  visitors: VisitorFilters;
  page: number;
}

export const clicksStateOf = (s: ClicksSearch): ClicksState => ({
  range: { startDate: s.startDate!, endDate: s.endDate! },
  campaignId: s.campaignId === undefined ? ALL : String(s.campaignId),
  visitors: { bot: s.bot, country: s.country ?? ALL, device: s.device ?? ALL, os: s.os ?? ALL, browser: s.browser ?? ALL },
  page: s.page,
});
