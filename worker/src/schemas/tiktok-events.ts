/**
 * Conversions sent to TikTok's Events API: the admin's settings and the panel's answer. Shared
 * with the web app, so zod only.
 */
import { z } from "zod";

/** The event an approved CAKE conversion becomes (a purchase, with the payout as its value). */
export const APPROVED_EVENT = "CompletePayment";

/** What a pending conversion may be sent as; "" sends nothing until it is approved. */
export const PENDING_EVENT_CHOICES = ["", "CompletePayment", "PlaceAnOrder", "SubmitForm", "CompleteRegistration", "Contact", "Subscribe"] as const;
export type PendingEvent = (typeof PENDING_EVENT_CHOICES)[number];

export const DEFAULT_EVENTS_CURRENCY = "USD";

const code = (name: string) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .max(64, `${name} must be at most 64 characters`)
    .regex(/^[A-Za-z0-9_-]*$/, `${name} may hold only letters, digits, - and _`);

/** PUT /api/tiktok-events/settings: the whole setting, replaced. An empty pixel code turns sending off. */
export const tiktokEventSettingsSchema = z.strictObject(
  {
    pixelCode: code("The pixel code"),
    testEventCode: code("The test event code"),
    pendingEvent: z.enum(PENDING_EVENT_CHOICES, { error: `pendingEvent must be one of: ${PENDING_EVENT_CHOICES.filter(Boolean).join(", ")}, or empty` }),
    currency: z
      .string({ error: "The currency must be a three-letter code such as USD" })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, "The currency must be a three-letter code such as USD"),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `Unknown field: ${issue.keys.join(", ")} (send pixelCode, testEventCode, pendingEvent and currency)`
        : "The settings must be an object with pixelCode, testEventCode, pendingEvent and currency",
  },
);
export type TikTokEventSettings = z.output<typeof tiktokEventSettingsSchema>;
export type TikTokEventSettingsInput = z.input<typeof tiktokEventSettingsSchema>;

/** Why a conversion was not sent (tiktok_event_sends.skip_reason), in the panel's words. */
export const SKIP_REASON_LABELS = {
  no_ttclid: "no ttclid",
  not_tiktok: "not TikTok",
  outside_window: "outside the 28-day window",
  not_configured: "not configured",
} as const;

/** The setup problem the panel's own Settings fix (worker/src/tiktok-events/setup.ts), not a Worker setting. */
export const NO_PIXEL_CODE = "no pixel code is set";

/**
 * Why a conversion failed (tiktok_event_sends.failure_kind), in the panel's words: the first two
 * are resent by 'Resend failed', a refusal is not (it would fail again).
 */
export const FAILURE_KIND_LABELS = {
  temporary: "TikTok's trouble or the network",
  setup: "token or access",
  refused: "refused as malformed",
} as const;
