/**
 * Emitting a webhook event (docs/webhooks.md "Events and payload"): a message on the webhooks queue, never a
 * call on the request path. The queue's consumer (webhooks/consume.ts) finds the subscriptions and
 * delivers. An event's id is derived from what it is about, so the same conversion or firing always
 * carries the same id and a receiver can de-duplicate on it. Emitting never throws into its caller:
 * the postback, the sync, the Events API consumer, the rules and the domains carry on either way.
 */
import { sql } from "drizzle-orm";
import { anySubscriptionTakes } from "../db/queries/webhooks";
import { rawBatch } from "../db/raw-batch";
import type { Bindings, Db } from "../env";
import { sha256Hex } from "../lib/encoding";
import { iso } from "../lib/time";
import type { WebhookEvent, WebhookEventType } from "../schemas/webhooks";
import type { WebhookMessage } from "./queue";

/** An event and whose data it is: the media buyer (CAKE sub1) of a conversion, for members' subscriptions; null for admin-only events. */
export interface Emitted {
  event: WebhookEvent;
  mediaBuyer: string | null;
}

/** The stable id of the event of `type` about `about` (a conversion id, a firing id, ...). */
export const eventIdOf = async (type: string, about: string) => `evt_${(await sha256Hex(`${type}:${about}`)).slice(0, 32)}`;

export async function webhookEvent(type: WebhookEventType, about: string, at: number, data: Record<string, unknown>): Promise<WebhookEvent> {
  return { id: await eventIdOf(type, about), type, created_at: iso(at), data };
}

/** Messages per sendBatch call (the Queues limit). */
const MESSAGES_PER_SEND = 100;

/** Puts the events on the queue; a failure is logged and said (false), never thrown. */
export async function emitWebhookEvents(env: Pick<Bindings, "WEBHOOKS_QUEUE">, emitted: readonly Emitted[]): Promise<boolean> {
  if (!emitted.length) return true;
  try {
    const messages = emitted.map((e): MessageSendRequest<WebhookMessage> => ({ body: { kind: "event", ...e }, contentType: "json" }));
    for (let i = 0; i < messages.length; i += MESSAGES_PER_SEND) await env.WEBHOOKS_QUEUE.sendBatch(messages.slice(i, i + MESSAGES_PER_SEND));
    return true;
  } catch (err) {
    console.error(`webhooks: ${emitted.length} event(s) not emitted (${emitted[0]!.event.type})`, err);
    return false;
  }
}

interface CreatedRow {
  conversion_id: string;
  source: string;
  date: string;
  offer_id: number;
  offer_name: string;
  subid1: string;
  subid2: string;
  subid3: string;
  revenue_cents: number;
  disposition: string;
  counted: number;
}

/**
 * `conversion.created` for the ledger's conversions among `conversionIds` that never had one: the
 * ledger row's `webhook_at` is the claim, so a repeated postback or a re-pull sends nothing again.
 * Claims given back when the queue refused them, for the next pull to make again.
 *
 * While no switched-on subscription takes the event, nothing is put on the queue: a pull's new
 * conversions are up to hundreds of thousands at the load of docs/click-storage.md "The load",
 * each three queue operations for no one. They are claimed all the same, so a subscription made
 * later receives the conversions from then on, not a re-pull's backlog of older ones.
 */
export async function emitConversionsCreated(db: Db, env: Pick<Bindings, "WEBHOOKS_QUEUE">, conversionIds: readonly string[], now: number) {
  if (!conversionIds.length) return;
  try {
    const ids = JSON.stringify([...new Set(conversionIds)]);
    if (!(await anySubscriptionTakes(db, "conversion.created"))) {
      await db.run(sql`update cake_conversions set webhook_at = ${now} where conversion_id in (select value from json_each(${ids})) and webhook_at is null`);
      return;
    }
    const [claimed] = await rawBatch(db, [
      sql`update cake_conversions set webhook_at = ${now}
          where conversion_id in (select value from json_each(${ids})) and webhook_at is null
          returning conversion_id, source, date, offer_id, offer_name, subid1, subid2, subid3, revenue_cents, disposition, counted`,
    ]);
    const rows = (claimed?.results ?? []) as CreatedRow[];
    const emitted = await Promise.all(
      rows.map(async (r) => ({
        event: await webhookEvent("conversion.created", r.conversion_id, now, {
          conversion_id: r.conversion_id,
          source: r.source,
          date: r.date,
          offer_id: r.offer_id,
          offer_name: r.offer_name,
          media_buyer: r.subid1,
          click_id: r.subid2,
          spark_id: r.subid3,
          revenue: (r.revenue_cents / 100).toFixed(2),
          disposition: r.disposition,
          counted: r.counted === 1,
        }),
        mediaBuyer: r.subid1,
      })),
    );
    if (!(await emitWebhookEvents(env, emitted))) {
      const back = JSON.stringify(rows.map((r) => r.conversion_id));
      await db.run(sql`update cake_conversions set webhook_at = null where conversion_id in (select value from json_each(${back})) and webhook_at = ${now}`);
    }
  } catch (err) {
    console.error("webhooks: conversion.created not emitted", err);
  }
}

/** A conversion TikTok's Events API took, as the Events API consumer holds it. */
export interface SentConversion {
  /** The send row's id: one `conversion.sent_to_tiktok` per send. */
  id: number;
  conversionId: string;
  event: string;
  valueCents: number | null;
  currency: string | null;
  eventAt: number;
  offerId: number;
  offerName: string;
}

/** `conversion.sent_to_tiktok` for sends TikTok just took (each send row is marked sent once, by its lease holder). */
export async function emitSentToTikTok(db: Db, env: Pick<Bindings, "WEBHOOKS_QUEUE">, sent: readonly SentConversion[], now: number) {
  if (!sent.length) return;
  try {
    // As for conversion.created: nothing on the queue while no subscription takes the event.
    if (!(await anySubscriptionTakes(db, "conversion.sent_to_tiktok"))) return;
    const ids = JSON.stringify([...new Set(sent.map((s) => s.conversionId))]);
    const buyers = new Map(
      (
        await db.all<{ conversion_id: string; subid1: string }>(
          sql`select conversion_id, subid1 from cake_conversions where conversion_id in (select value from json_each(${ids}))`,
        )
      ).map((r) => [r.conversion_id, r.subid1]),
    );
    const emitted = await Promise.all(
      sent.map(async (s) => {
        const mediaBuyer = buyers.get(s.conversionId) ?? "";
        return {
          event: await webhookEvent("conversion.sent_to_tiktok", String(s.id), now, {
            conversion_id: s.conversionId,
            tiktok_event: s.event,
            value: s.valueCents === null ? null : (s.valueCents / 100).toFixed(2),
            currency: s.currency,
            event_time: iso(s.eventAt),
            offer_id: s.offerId,
            offer_name: s.offerName,
            media_buyer: mediaBuyer,
            sent_at: iso(now),
          }),
          mediaBuyer,
        };
      }),
    );
    await emitWebhookEvents(env, emitted);
  } catch (err) {
    console.error("webhooks: conversion.sent_to_tiktok not emitted", err);
  }
}
