import { z } from "zod";
import { calendarDate, dayNumber } from "./calendar-date";

/** Longest range the performance read calls accept: a year of days, with room for a leap year. */
export const MAX_RANGE_DAYS = 366;

/** `?startDate&endDate` of the performance reads: calendar days, endDate included. */
export const dateRangeQuery = z
  .object({ startDate: calendarDate("startDate"), endDate: calendarDate("endDate") })
  .refine((q) => q.startDate <= q.endDate, { message: "startDate must not be after endDate", path: ["startDate"] })
  .refine((q) => dayNumber(q.endDate) - dayNumber(q.startDate) < MAX_RANGE_DAYS, {
    message: `The date range can cover at most ${MAX_RANGE_DAYS} days`,
    path: ["endDate"],
  });
export type DateRangeQuery = z.infer<typeof dateRangeQuery>;

export const SYNC_SOURCE_NAMES = ["cake", "tiktok"] as const;
export const MAX_SYNC_DAYS = 90;

/** POST /api/sync/run */
export const syncRunSchema = z.object({
  source: z.enum([...SYNC_SOURCE_NAMES, "all"], { error: 'source must be "cake", "tiktok" or "all"' }),
  days: z
    .number({ error: "days must be a whole number of days" })
    .int("days must be a whole number of days")
    .min(1, "days must be at least 1")
    .max(MAX_SYNC_DAYS, `days must be at most ${MAX_SYNC_DAYS}`)
    .optional(),
});
export type SyncRunInput = z.infer<typeof syncRunSchema>;

/** A value CAKE left as its macro (`#s2#`) carried nothing: the network had no value for it. */
const isMacro = (v: string) => /^#[a-z0-9_]+#$/i.test(v);

const subid = (name: string, max: number) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .transform((v) => (isMacro(v) ? "" : v))
    .refine((v) => v.length <= max, `${name} must be at most ${max} characters`)
    .default("");

/**
 * GET /postback/cake — the network's server-to-server conversion call. The token is checked
 * before this runs; unknown extra parameters (s4, s5, anything a network adds) are ignored.
 */
export const cakePostbackQuery = z.object({
  leadid: z
    .string({ error: "leadid is required (the network's #leadid#), so a conversion is counted once" })
    .trim()
    .min(1, "leadid is required (the network's #leadid#), so a conversion is counted once")
    .max(100, "leadid must be at most 100 characters")
    .refine((v) => !isMacro(v), "leadid was sent as the unfilled macro; the postback URL must use #leadid#"),
  oid: z
    .string({ error: "oid is required (the network's #oid#)" })
    .trim()
    .regex(/^\d{1,9}$/, "oid must be the offer id, a whole number (#oid#)")
    .transform(Number),
  price: z
    .string({ error: "price is required (the network's #price#)" })
    .trim()
    .regex(/^\$?\d{1,9}(\.\d{1,6})?$/, "price must be an amount of at least 0 such as 12.50 (#price#)"),
  s1: subid("s1", 50),
  s2: subid("s2", 100),
  s3: subid("s3", 100),
});
export type CakePostbackQuery = z.infer<typeof cakePostbackQuery>;
