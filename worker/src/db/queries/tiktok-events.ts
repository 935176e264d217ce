/**
 * The send state of conversions going to TikTok's Events API (tiktok_event_sends) and its
 * settings. How exactly-once holds:
 * - claim: a producer inserts the (conversion, event) row before it enqueues; the unique key makes
 *   the second producer of the same conversion (postback and pull) a no-op, so only one enqueues;
 * - lease: the consumer moves `queued` rows to `sending` in one statement, so two deliveries of
 *   the same message (queues deliver at least once) cannot both send a row;
 * - confirm: `sent` only after TikTok answered code 0; a retryable failure puts the row back to
 *   `queued`, a final one to `failed` with TikTok's message.
 * The one gap no database closes: a consumer cut off after TikTok accepted but before `sent` was
 * written sends the row again after its lease runs out, and TikTok drops it (it de-duplicates on
 * event + event_id, the conversion id).
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { jsonChunks } from "../../lib/json-chunks";
import { DEFAULT_EVENTS_CURRENCY, PENDING_EVENT_CHOICES, type PendingEvent, type TikTokEventSettings } from "../../schemas/tiktok-events";
import { rawBatch } from "../raw-batch";
import type { TikTokSendStatus, TikTokSkipReason } from "../schema";

// ---------------------------------------------------------------------------------------------
// Settings (rows of `settings`, under keys of their own)
// ---------------------------------------------------------------------------------------------

const SETTING_KEYS = {
  pixelCode: "tiktok_events_pixel_code",
  testEventCode: "tiktok_events_test_event_code",
  pendingEvent: "tiktok_events_pending_event",
  currency: "tiktok_events_currency",
} as const satisfies Record<keyof TikTokEventSettings, string>;

export const EVENT_SETTING_DEFAULTS: TikTokEventSettings = { pixelCode: "", testEventCode: "", pendingEvent: "", currency: DEFAULT_EVENTS_CURRENCY };

export async function readEventSettings(db: Db): Promise<TikTokEventSettings> {
  const rows = await db.all<{ key: string; value: string }>(
    sql`select key, value from settings where key in (${sql.join(
      Object.values(SETTING_KEYS).map((k) => sql`${k}`),
      sql`, `,
    )})`,
  );
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  const pending = stored.get(SETTING_KEYS.pendingEvent) ?? "";
  return {
    pixelCode: stored.get(SETTING_KEYS.pixelCode) ?? EVENT_SETTING_DEFAULTS.pixelCode,
    testEventCode: stored.get(SETTING_KEYS.testEventCode) ?? EVENT_SETTING_DEFAULTS.testEventCode,
    pendingEvent: (PENDING_EVENT_CHOICES as readonly string[]).includes(pending) ? (pending as PendingEvent) : "",
    currency: stored.get(SETTING_KEYS.currency) || EVENT_SETTING_DEFAULTS.currency,
  };
}

/** All four at once, in one batch. */
/** Writes the settings; `also` (an audit entry's SQL) joins the same batch, all or nothing. */
export async function writeEventSettings(db: Db, value: TikTokEventSettings, now = Date.now(), also: SQL[] = []) {
  await rawBatch(db, [
    ...(Object.keys(SETTING_KEYS) as (keyof TikTokEventSettings)[]).map(
      (k) => sql`
        insert into settings (key, value, updated_at) values (${SETTING_KEYS[k]}, ${value[k]}, ${now})
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    ),
    ...also,
  ]);
}

// ---------------------------------------------------------------------------------------------
// Claiming (producers)
// ---------------------------------------------------------------------------------------------

/** A conversion to send as `event`, as a producer knows it. */
export interface SendClaim {
  conversionId: string;
  event: string;
  /** CAKE's sub2: our click id, when the conversion came from one of our clicks. */
  subid2: string;
  valueCents: number;
  /** When it converted (epoch ms). */
  eventAt: number;
}

export interface ClaimOptions {
  /** Pixel code and token both set: otherwise every claim is skipped as not configured. */
  configured: boolean;
  currency: string;
  now: number;
}

/** TikTok matches a conversion to the click that led to it only this long after the click (⚠ third-party figure). */
export const CLICK_WINDOW_MS = 28 * 24 * 60 * 60 * 1000;

/**
 * Claims each (conversion, event) once: a new one is stored `queued` (to be enqueued by the
 * caller) or `skipped` with the reason; one already known is left alone, except one skipped
 * only because sending was not configured, which is decided again (so setting the pixel up sends
 * the conversions the next pull sees). Returns the ids the caller must enqueue.
 *
 * A conversion is TikTok's when its click (sub2) carries a ttclid, or at least TikTok's macros
 * (then it lacks the ttclid TikTok matches on). The click's values are copied in now.
 */
export async function claimSends(db: Db, claims: SendClaim[], opts: ClaimOptions): Promise<number[]> {
  if (!claims.length) return [];
  const chunks = jsonChunks(claims.map((c) => [c.conversionId, c.event, c.subid2, c.valueCents, c.eventAt]));
  const at = (i: number) => sql.raw(`json_extract(value, '$[${i}]')`);
  const results = await rawBatch(
    db,
    chunks.map(
      (chunk) => sql`
        insert into tiktok_event_sends (conversion_id, event, status, skip_reason, click_id, ttclid, ip_address, user_agent,
          page_url, value_cents, currency, event_at, created_at, updated_at)
        select cid, event, case when reason is null then 'queued' else 'skipped' end, reason, click_id, ttclid, ip_address,
          user_agent, page_url, value_cents, ${opts.currency}, event_at, ${opts.now}, ${opts.now}
        from (
          select i.cid, i.event, i.value_cents, i.event_at, k.click_id, k.ttclid, k.ip_address, k.user_agent, l.url as page_url,
            case
              when ${opts.configured ? 0 : 1} then 'not_configured'
              when k.id is null or (k.ttclid is null and k.tiktok_campaign_id is null) then 'not_tiktok'
              when k.ttclid is null then 'no_ttclid'
              when i.event_at - k.clicked_at > ${CLICK_WINDOW_MS} then 'outside_window'
            end as reason
          from (select ${at(0)} as cid, ${at(1)} as event, ${at(2)} as sub2, ${at(3)} as value_cents, ${at(4)} as event_at
                from json_each(${chunk})) i
          left join clicks k on i.sub2 <> '' and k.click_id = i.sub2
          left join campaigns c on c.id = k.campaign_id
          left join landers l on l.id = c.lander_id)
        where true
        on conflict (conversion_id, event) do update set
          status = excluded.status, skip_reason = excluded.skip_reason, click_id = excluded.click_id, ttclid = excluded.ttclid,
          ip_address = excluded.ip_address, user_agent = excluded.user_agent, page_url = excluded.page_url,
          value_cents = excluded.value_cents, currency = excluded.currency, event_at = excluded.event_at,
          updated_at = excluded.updated_at
        where tiktok_event_sends.status = 'skipped' and tiktok_event_sends.skip_reason = 'not_configured'
          and excluded.skip_reason is not 'not_configured'
        returning id, status`,
    ),
  );
  return results.flatMap((r) => (r.results as { id: number; status: string }[]).filter((row) => row.status === "queued").map((row) => row.id));
}

// ---------------------------------------------------------------------------------------------
// Sending (the queue consumer)
// ---------------------------------------------------------------------------------------------

export interface LeasedSend {
  id: number;
  conversionId: string;
  event: string;
  clickId: string | null;
  ttclid: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  pageUrl: string | null;
  valueCents: number | null;
  currency: string | null;
  eventAt: number;
  attempts: number;
}

const idList = (ids: readonly number[]) => sql`(select value from json_each(${JSON.stringify(ids)}))`;

/**
 * Takes the rows among `ids` that wait to be sent (`queued`, or `sending` whose holder's lease ran
 * out) for this consumer until `leaseUntil`. Rows sent, failed, skipped or held by another
 * consumer are left out: the caller acknowledges their messages.
 */
export async function leaseSends(db: Db, ids: readonly number[], now: number, leaseUntil: number): Promise<LeasedSend[]> {
  if (!ids.length) return [];
  return db.all<LeasedSend>(sql`
    update tiktok_event_sends set status = 'sending', lease_until = ${leaseUntil}, attempts = attempts + 1, updated_at = ${now}
    where id in ${idList(ids)} and (status = 'queued' or (status = 'sending' and lease_until < ${now}))
    returning id, conversion_id as conversionId, event, click_id as clickId, ttclid, ip_address as ipAddress,
      user_agent as userAgent, page_url as pageUrl, value_cents as valueCents, currency, event_at as eventAt, attempts`);
}

/** TikTok took them (code 0). Only rows this consumer still holds. */
export const markSent = (db: Db, ids: readonly number[], now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'sent', sent_at = ${now}, updated_at = ${now}, lease_until = null, code = null, message = null
        where id in ${idList(ids)} and status = 'sending'`)
    : Promise.resolve();

/** TikTok refused them for good: kept as `failed` with TikTok's code and message, for 'Resend failed'. */
export const markFailed = (db: Db, ids: readonly number[], code: number | null, message: string, now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'failed', code = ${code}, message = ${message}, updated_at = ${now}, lease_until = null
        where id in ${idList(ids)} and status = 'sending'`)
    : Promise.resolve();

/** A retryable failure: back to `queued` with the reason, for the queue's next delivery of their message. */
export const releaseSends = (db: Db, ids: readonly number[], code: number | null, message: string, now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'queued', code = ${code}, message = ${message}, updated_at = ${now}, lease_until = null
        where id in ${idList(ids)} and status = 'sending'`)
    : Promise.resolve();

/**
 * The queue gave up on their message (it reached the dead-letter queue): the rows still waiting
 * become `failed`, with the last reason, so the panel shows them and 'Resend failed' can retry.
 */
export const giveUpSends = (db: Db, ids: readonly number[], now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'failed', updated_at = ${now}, lease_until = null,
          message = 'The queue gave up after its retries' || coalesce(': ' || message, '')
        where id in ${idList(ids)} and (status = 'queued' or (status = 'sending' and lease_until < ${now}))`)
    : Promise.resolve();

/** 'Resend failed': every failed row back to `queued`; returns their ids to enqueue. */
export async function requeueFailed(db: Db, now: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(sql`
    update tiktok_event_sends set status = 'queued', updated_at = ${now}, attempts = 0
    where status = 'failed' returning id`);
  return rows.map((r) => r.id);
}

/**
 * Rows nobody is looking after: `queued` untouched for `staleMs` (their enqueue failed, or the
 * queue lost them) and `sending` past their lease (a consumer was cut off). Touched here, so the
 * next sweep leaves them alone while they travel again.
 */
export async function takeStaleSends(db: Db, now: number, staleMs: number, limit = 10_000): Promise<number[]> {
  const rows = await db.all<{ id: number }>(sql`
    update tiktok_event_sends set status = 'queued', updated_at = ${now}, lease_until = null
    where id in (
      select id from tiktok_event_sends indexed by tiktok_event_sends_status_idx
      where status = 'queued' and updated_at < ${now - staleMs}
      union all
      select id from tiktok_event_sends indexed by tiktok_event_sends_status_idx
      where status = 'sending' and lease_until < ${now}
      limit ${limit})
    returning id`);
  return rows.map((r) => r.id);
}

/** Postback conversions since `since` that no producer claimed (it was cut off after counting it). */
export const unclaimedPostbacks = (db: Db, since: number) =>
  db.all<{ conversionId: string; subid2: string; revenueCents: number; disposition: string; eventAt: number }>(sql`
    select c.conversion_id as conversionId, c.subid2, c.revenue_cents as revenueCents, c.disposition,
      coalesce(c.postback_at, c.pulled_at) as eventAt
    from cake_conversions c
    where c.postback_at >= ${since} and not exists (select 1 from tiktok_event_sends s where s.conversion_id = c.conversion_id)`);

// ---------------------------------------------------------------------------------------------
// The panel
// ---------------------------------------------------------------------------------------------

export interface SendCounts {
  status: TikTokSendStatus;
  skipReason: TikTokSkipReason | null;
  count: number;
}

/** Rows per state whose state was set since `since` (the day's start), and every failed row. */
export async function sendOverview(db: Db, since: number, failuresShown = 5) {
  const [today, failedTotal, failures] = await rawBatch(db, [
    sql`select status, skip_reason as skipReason, count(*) as count from tiktok_event_sends indexed by tiktok_event_sends_updated_idx
        where updated_at >= ${since} group by status, skip_reason`,
    sql`select count(*) as count from tiktok_event_sends where status = 'failed'`,
    sql`select conversion_id as conversionId, event, code, message, updated_at as at from tiktok_event_sends
        where status = 'failed' order by updated_at desc limit ${failuresShown}`,
  ]);
  return {
    today: (today?.results ?? []) as SendCounts[],
    failedTotal: ((failedTotal?.results[0] as { count?: number } | undefined)?.count ?? 0) as number,
    failures: (failures?.results ?? []) as { conversionId: string; event: string; code: number | null; message: string | null; at: number }[],
  };
}
