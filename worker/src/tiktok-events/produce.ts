/**
 * The producer side: a CAKE conversion seen by the postback, a pull or the cron's sweep becomes
 * claimed send rows (db/queries/tiktok-events.ts) and queue messages carrying their ids.
 */
import { claimSends, unconfiguredSends, type SendClaim } from "../db/queries/tiktok-events";
import { shardClicksFor } from "../tracking/attributed-clicks";
import type { Bindings, Db, TikTokEventsMessage } from "../env";
import { isCountedDisposition, type CakeConversion } from "../integrations/cake";
import { TIKTOK_EVENTS_PER_CALL } from "../integrations/tiktok-events";
import { APPROVED_EVENT, type PendingEvent } from "../schemas/tiktok-events";
import { loadEventsSetup } from "./setup";

/**
 * The TikTok event a CAKE disposition becomes: approved (and a postback, which carries no
 * disposition: CAKE fires it for a conversion it credits) is a purchase; pending is what the admin
 * chose, or nothing; rejected is never sent.
 */
export function eventFor(disposition: string, pendingEvent: PendingEvent): string | null {
  if (!isCountedDisposition(disposition)) return null;
  if (/pend/i.test(disposition)) return pendingEvent || null;
  return APPROVED_EVENT;
}

/** A conversion as the producers see it. */
export interface SeenConversion {
  conversionId: string;
  disposition: string;
  /** Our click id (CAKE's sub2), or "". */
  subid2: string;
  revenueCents: number;
  /** When it converted (epoch ms). */
  eventAt: number;
}

/** A pulled conversion as a producer sees it; one CAKE gave no time for converted when first seen (`now`). */
export const seenConversion =
  (now: number) =>
  (c: CakeConversion): SeenConversion => ({
    conversionId: c.conversionId,
    disposition: c.disposition,
    subid2: c.subid2,
    revenueCents: c.revenueCents,
    eventAt: c.convertedAt ?? now,
  });

/** Messages per sendBatch call: 20 messages of 1,000 ids stay inside a call's 256 KB. */
const MESSAGES_PER_SEND = 20;

/** Hands the claimed ids to the queue, at most 1,000 to a message (one Events API call's worth). */
export async function enqueueSends(queue: Queue, ids: readonly number[]) {
  const messages: MessageSendRequest<TikTokEventsMessage>[] = [];
  for (let i = 0; i < ids.length; i += TIKTOK_EVENTS_PER_CALL) {
    messages.push({ body: { ids: ids.slice(i, i + TIKTOK_EVENTS_PER_CALL) }, contentType: "json" });
  }
  for (let i = 0; i < messages.length; i += MESSAGES_PER_SEND) await queue.sendBatch(messages.slice(i, i + MESSAGES_PER_SEND));
}

/**
 * The claims with the clicks their sub2 names in shard-day or legacy objects, read from there
 * (D1's clicks are joined by the claim itself). Throws when an object fails: nothing is claimed
 * without its click, and a later pull or the cron's sweep claims it.
 */
async function withShardClicks(db: Db, env: Bindings, claims: SendClaim[], now: number): Promise<SendClaim[]> {
  const found = await shardClicksFor(
    db,
    env,
    claims.map((c) => c.subid2),
    now,
  );
  if (!found.size) return claims;
  return claims.map((c) => {
    const click = found.get(c.subid2);
    if (!click) return c;
    const { clickId, campaignId, tiktokCampaignId = null, ttclid = null, ipAddress = null, userAgent = null, clickedAt } = click;
    return { ...c, click: { clickId, campaignId, tiktokCampaignId, ttclid, ipAddress, userAgent, clickedAt } };
  });
}

/**
 * Claims the conversions' events and enqueues the ones to send. Safe to call again with the same
 * conversions (a repeated postback, every pull of the same days): only a first claim enqueues.
 * If the enqueue fails, the rows stay claimed and the cron's sweep enqueues them later.
 */
export async function produceSends(db: Db, env: Bindings, conversions: readonly SeenConversion[], now: number) {
  if (!conversions.length) return { claimed: 0 };
  const { settings, config } = await loadEventsSetup(db, env);
  const claims: SendClaim[] = [];
  for (const c of conversions) {
    const event = eventFor(c.disposition, settings.pendingEvent);
    if (event) claims.push({ conversionId: c.conversionId, event, subid2: c.subid2, valueCents: c.revenueCents, eventAt: Math.min(c.eventAt, now) });
  }
  // Not configured, every claim is skipped as such whatever its click: no object is asked.
  const judged = config ? await withShardClicks(db, env, claims, now) : claims;
  const ids = await claimSends(db, judged, { configured: config !== null, currency: settings.currency, now });
  await enqueueSends(env.TIKTOK_EVENTS_QUEUE, ids);
  return { claimed: ids.length };
}

/**
 * The cron's half of "decided again when sending is configured": conversions skipped as not
 * configured whose event happened since `since` are claimed again, as a pull that saw them would
 * (a postback-only install has no pull). Nothing while sending is still not configured.
 */
export async function reconsiderUnconfigured(db: Db, env: Bindings, since: number, now: number) {
  const { settings, config } = await loadEventsSetup(db, env);
  if (!config) return { claimed: 0 };
  const claims = await unconfiguredSends(db, since);
  if (!claims.length) return { claimed: 0 };
  const ids = await claimSends(db, await withShardClicks(db, env, claims, now), { configured: true, currency: settings.currency, now });
  await enqueueSends(env.TIKTOK_EVENTS_QUEUE, ids);
  return { claimed: ids.length };
}
