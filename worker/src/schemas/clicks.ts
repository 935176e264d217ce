import { z } from "zod";
import { calendarDate, shiftDay } from "./calendar-date";
import { blankIsNone } from "./common";

export const CLICKS_PAGE_SIZE = 50;
export const CLICKS_PAGE_SIZE_MAX = 200;

/**
 * A calendar-day range. `endDate` is INCLUSIVE: send the last day to show as the picker shows it
 * (2025-01-07 for "Jan 1 - Jan 7"), not the day after. Omitted ends default to the last 7 days.
 */
export const dateRangeQuery = z
  .object({
    startDate: calendarDate("startDate").optional(),
    endDate: calendarDate("endDate").optional(),
  })
  .refine((v) => !v.startDate || !v.endDate || v.startDate <= v.endDate, {
    message: "startDate must not be after endDate",
    path: ["startDate"],
  });

const campaignFilter = z.object({
  campaignId: z.coerce
    .number({ error: "campaignId must be a campaign id" })
    .int("campaignId must be a campaign id")
    .positive("campaignId must be a campaign id")
    .optional(),
});

/** The value of a visitor filter meaning "not known" (no country from Cloudflare, an agent the parser could not read). */
export const UNKNOWN_VALUE = "(unknown)";
export const BOT_FILTERS = ["all", "human", "bot"] as const;

const visitorValue = (name: string) =>
  blankIsNone(
    z
      .string({ error: `${name} must be text` })
      .trim()
      .max(100, `${name} must be at most 100 characters`),
  );

/** Who clicked: people or bots (all by default), and the country, device, OS and browser. */
const visitorFilter = z.object({
  bot: z.enum(BOT_FILTERS, { error: 'bot must be "all", "human" or "bot"' }).default("all"),
  country: visitorValue("country"),
  device: visitorValue("device"),
  os: visitorValue("os"),
  browser: visitorValue("browser"),
});

export const clickExportQuery = z.intersection(z.intersection(dateRangeQuery, campaignFilter), visitorFilter);

export const clickLogQuery = z.intersection(
  clickExportQuery,
  z.object({
    page: z.coerce
      .number({ error: "page must be a whole number from 1" })
      .int("page must be a whole number from 1")
      .min(1, "page must be a whole number from 1")
      .default(1),
    pageSize: z.coerce
      .number({ error: `pageSize must be from 1 to ${CLICKS_PAGE_SIZE_MAX}` })
      .int(`pageSize must be from 1 to ${CLICKS_PAGE_SIZE_MAX}`)
      .min(1, `pageSize must be from 1 to ${CLICKS_PAGE_SIZE_MAX}`)
      .max(CLICKS_PAGE_SIZE_MAX, `pageSize must be from 1 to ${CLICKS_PAGE_SIZE_MAX}`)
      .default(CLICKS_PAGE_SIZE),
  }),
);
export type ClickLogQuery = z.input<typeof clickLogQuery>;

/**
 * The Click Log screen's link read over these (web/src/features/clicks/url-state.ts, and the
 * Worker for the screen's document: lib/screen-calls.ts): the last 7 days to `today`, the report
 * time zone's, all visitors, the first page.
 */
export const clickLogDefaults = (today: string): Record<string, string> => ({ startDate: shiftDay(today, -6), endDate: today, bot: "all", page: "1" });

/** An archived day's file (`GET /api/clicks/archives/:day`). */
export const archiveDayParam = z.object({ day: calendarDate("day") });
