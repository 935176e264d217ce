import type { WebhookEvent } from "../schemas/webhooks";

/** wrangler.toml's queue of webhook events and deliveries (docs/webhooks.md "How delivery works"). */
export const WEBHOOKS_QUEUE_NAME = "trackyard-webhooks";

/**
 * An `event` is fanned out by the consumer into one `delivery` per matching subscription, so each
 * subscription's retries wait and count on their own.
 */
export type WebhookMessage =
  { kind: "event"; event: WebhookEvent; mediaBuyer: string | null } | { kind: "delivery"; event: WebhookEvent; subscriptionId: number };
