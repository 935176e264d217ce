import { z } from "zod";

/** Clicks stored later than this after they were answered are delayed, unless an admin changed the backlog alert's number. */
export const CLICKS_DELAY_THRESHOLD_SECONDS = 60;

/**
 * The alerts Trackyard raises by itself (docs/alerts.md "Built-in alerts"), in the order that page lists them.
 * Each is on by default; `threshold` is the number an admin may change, where it has one.
 */
export const BUILTIN_ALERTS = [
  {
    key: "postback-silent",
    label: "CAKE postback silent",
    description: "Clicks are coming in but no CAKE postback arrived for N hours, while the same hours last week had some.",
    threshold: { label: "Hours", default: 3, min: 1, max: 48 },
  },
  {
    key: "spend-without-conversions",
    label: "TikTok spend without conversions",
    description: "A TikTok campaign spent at least this many dollars today (report time zone) with no CAKE conversion attributed to it.",
    threshold: { label: "Dollars", default: 50, min: 1, max: 100_000 },
  },
  {
    key: "sync-failing",
    label: "Sync failing",
    description: "The CAKE or TikTok sync failed this many times running.",
    threshold: { label: "Runs", default: 3, min: 2, max: 20 },
  },
  {
    key: "events-api-failures",
    label: "Events API failures",
    description: "Conversions could not be sent to TikTok's Events API (failed or dead-lettered) in the last 24 hours.",
    threshold: null,
  },
  {
    key: "domain-expiring-or-detached",
    label: "Tracking domain expiring or detached",
    description:
      "An active tracking domain's registration runs out within this many days (Namecheap's date), or its hostname is no longer a custom domain of this Worker. The domains are checked every 6 hours.",
    threshold: { label: "Days", default: 30, min: 1, max: 365 },
  },
  {
    key: "retention-failing",
    label: "Archiving failing",
    description: "A day of raw clicks could not be archived to R2 (its archive run failed), so its clicks are kept until a run succeeds.",
    threshold: null,
  },
  {
    key: "refused-clicks-spike",
    label: "Refused clicks spiking",
    description: "The per-IP rate limit refused at least this many clicks in the last hour.",
    threshold: { label: "Clicks an hour", default: 500, min: 10, max: 10_000_000 },
  },
  {
    key: "clicks-queue-backlog",
    label: "Clicks queue backlog",
    description:
      "Clicks are stored more than this many seconds after they were answered: the clicks queue is backing up, or storing them keeps failing. The Click Log says clicks are delayed past the same number.",
    threshold: { label: "Seconds", default: CLICKS_DELAY_THRESHOLD_SECONDS, min: 5, max: 86_400 },
  },
] as const;

export type BuiltinAlertKey = (typeof BUILTIN_ALERTS)[number]["key"];
export const BUILTIN_ALERT_KEYS = BUILTIN_ALERTS.map((a) => a.key) as [BuiltinAlertKey, ...BuiltinAlertKey[]];

export const builtinAlertParam = z.object({ alert: z.enum(BUILTIN_ALERT_KEYS, { error: "Unknown built-in alert" }) });

export const updateBuiltinAlertSchema = z.object({
  enabled: z.boolean({ error: "Enabled must be true or false" }),
  /** The alert's number; null or absent: its default. Range-checked by the route against the alert's own bounds. */
  threshold: z.number({ error: "Threshold must be a number" }).int("Threshold must be a whole number").nullable().optional(),
});
export type UpdateBuiltinAlertInput = z.input<typeof updateBuiltinAlertSchema>;
