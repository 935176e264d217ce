import { z } from "zod";

/**
 * Webhooks out (docs/webhooks.md): the events a user may subscribe an https:// URL to, and who may.
 * Conversions need a reading feature that shows them (Dashboard and stats, or Performance data),
 * and a member's subscription receives only their media buyers' conversions; rule firings and
 * domains are the admins' areas, so only admins subscribe to those.
 */
export const WEBHOOK_EVENTS = {
  "conversion.created": { label: "A conversion arrives (postback or CAKE pull)", who: { feature: ["dashboard", "performance"] } },
  "conversion.sent_to_tiktok": { label: "TikTok's Events API accepted a conversion", who: { feature: ["dashboard", "performance"] } },
  "rule.fired": { label: "A rule fired", who: "admin" },
  "domain.active": { label: "A tracking domain became active", who: "admin" },
} as const satisfies Record<string, { label: string; who: "admin" | { feature: ("dashboard" | "performance")[] } }>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
/** Sent only by "Send test event": its data says it is a test. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/** Consecutive failed attempts (any event) after which a subscription is switched off; a success starts the count again. */
export const WEBHOOK_DISABLE_AFTER_FAILURES = 15;
/** Attempts per event and subscription: the first and 7 retries, each delay double the last (docs/webhooks.md "How delivery works"). */
export const WEBHOOK_MAX_ATTEMPTS = 8;
/** The delivery log's length on Account, per subscription. */
export const WEBHOOK_LOG_SHOWN = 50;
/** Subscriptions per user. */
export const WEBHOOK_MAX_PER_USER = 10;
export const WEBHOOK_URL_MAX = 2000;

export const createWebhookSchema = z.object({
  url: z.string({ error: "URL is required" }).trim().min(1, "URL is required").max(WEBHOOK_URL_MAX, `URL must be at most ${WEBHOOK_URL_MAX} characters`),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]], { error: (issue) => `${String(issue.input)} is not an event` }), {
      error: "Events must be a list",
    })
    .min(1, "Choose at least one event")
    .max(WEBHOOK_EVENT_TYPES.length, "Too many events"),
});
export type CreateWebhookInput = z.input<typeof createWebhookSchema>;

/** What every delivery's body is: a stable `id` receivers de-duplicate on. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  created_at: string;
  data: Record<string, unknown>;
}
