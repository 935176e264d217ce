import { subDays } from "date-fns";
import { z } from "zod";
import { fromDay, toDay, type DayRange } from "@/lib/date-ranges";
import type { SearchDefaults } from "@/lib/url-state";
import { clickLogQuery } from "../../../../worker/src/schemas/clicks";
import { ALL, type VisitorFilters } from "./api";

/**
 * The Click Log's state in the URL, read by the API's own query schema: the range (the last 7 days
 * of the report time zone by default), the campaign, the visitor filters and the page.
 */
export const clicksSearchSchema = clickLogQuery;

export const clicksSearchDefaults = (today: string): SearchDefaults => ({
  startDate: toDay(subDays(fromDay(today), 6)),
  endDate: today,
  bot: "all",
  page: "1",
});

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
