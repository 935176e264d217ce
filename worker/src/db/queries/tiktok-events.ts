/**
 * The send state of conversions going to TikTok's Events API (tiktok_event_sends) and its
 * settings. How exactly-once holds:
 * - claim: a producer inserts the (conversion, event) row before it enqueues; the unique key makes
 *   the second producer of the same conversion (postback and pull) a no-op, so only one enqueues;
 * - lease: the consumer moves `queued` rows to `sending` in one statement, with a token of its
 *   own, so two deliveries of the same message (queues deliver at least once) cannot both send a
 *   row; every outcome is written only where the row still carries that token, so a consumer
 *   whose lease ran out and was taken over cannot overwrite the new holder's result;
 * - confirm: `sent` only after TikTok answered code 0; a retryable failure puts the row back to
 *   `queued`, a final one to `failed` with TikTok's message and the kind of failure.
 * The one gap no database closes: a consumer cut off after TikTok accepted but before `sent` was
 * written sends the row again after its lease runs out, and TikTok drops it (it de-duplicates on
 * event + event_id, the conversion id).
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { jsonAt, jsonChunks } from "../../lib/json-chunks";
import { DEFAULT_EVENTS_CURRENCY, PENDING_EVENT_CHOICES, type PendingEvent, type TikTokEventSettings } from "../../schemas/tiktok-events";
import { rawBatch } from "../raw-batch";
import { TIKTOK_FAILURE_KINDS, type TikTokFailureKind, type TikTokSendStatus, type TikTokSkipReason } from "../schema";

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

/**
 * Who set the test event code in use, and when (the row's `updated_at`): a code left set sends
 * every event to Test Events, so the panel names who to ask. Written only when the code changes.
 */
const TEST_CODE_SET_BY_KEY = "tiktok_events_test_event_code_set_by";

/**
 * All four at once, in one batch, with who set a new test event code (`by`, a username); `also`
 * (an audit entry's SQL) joins the same batch, all or nothing.
 */
export async function writeEventSettings(db: Db, value: TikTokEventSettings, by: string, now = Date.now(), also: SQL[] = []) {
  await rawBatch(db, [
    // Before the code itself is written, so the code stored until now is what it is compared with.
    sql`delete from settings where key = ${TEST_CODE_SET_BY_KEY} and ${value.testEventCode} = ''`,
    sql`insert into settings (key, value, updated_at)
        select ${TEST_CODE_SET_BY_KEY}, ${by}, ${now}
        where ${value.testEventCode} <> ''
          and ${value.testEventCode} is not coalesce((select value from settings where key = ${SETTING_KEYS.testEventCode}), '')
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    ...(Object.keys(SETTING_KEYS) as (keyof TikTokEventSettings)[]).map(
      (k) => sql`
        insert into settings (key, value, updated_at) values (${SETTING_KEYS[k]}, ${value[k]}, ${now})
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    ),
    ...also,
  ]);
}

/** The test event code in use, who set it and when; null when none is set. `by` is null for a code set before this was recorded. */
export async function readTestCodeSetting(db: Db) {
  const [row] = await db.all<{ code: string; by: string | null; at: number | null }>(sql`
    select code.value as code, who.value as by, who.updated_at as at
    from settings code left join settings who on who.key = ${TEST_CODE_SET_BY_KEY}
    where code.key = ${SETTING_KEYS.testEventCode} and code.value <> ''`);
  return row ?? null;
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
  /**
   * The click sub2 names when it is in a shard-day or legacy object, read from there by the
   * producer (tracking/attributed-clicks.ts `shardClicksFor`); a click in D1 is joined here.
   */
  click?: ClaimClick;
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

/** What a claim reads of a conversion's click. */
export interface ClaimClick {
  clickId: string;
  campaignId: number;
  tiktokCampaignId: string | null;
  ttclid: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  clickedAt: number;
}

/** The visitor's values a send keeps only while it may still be sent: `queued`, `sending` and `failed` (for 'Resend failed'). */
const VISITOR_VALUES = sql.raw("ttclid = null, ip_address = null, user_agent = null, page_url = null");

/**
 * Claims each (conversion, event) once: a new one is stored `queued` (to be enqueued by the
 * caller) or `skipped` with the reason; one already known is left alone, except one skipped
 * only because sending was not configured, which is decided again (so setting the pixel up sends
 * the conversions the next pull sees). Returns the ids the caller must enqueue.
 *
 * A conversion is TikTok's when its click (sub2) carries a ttclid, or at least TikTok's macros
 * (then it lacks the ttclid TikTok matches on). The click is D1's, or the one the claim carries
 * from its object (a click of a deleted campaign counts as none, as in D1). A queued row keeps
 * the visitor's values the event needs (ttclid, address, agent, page) until it is sent; a skipped
 * row keeps none (docs/click-storage.md "What a conversion keeps in D1").
 */
export async function claimSends(db: Db, claims: SendClaim[], opts: ClaimOptions): Promise<number[]> {
  if (!claims.length) return [];
  const chunks = jsonChunks(
    claims.map((c) => [
      c.conversionId,
      c.event,
      c.subid2,
      c.valueCents,
      c.eventAt,
      ...(c.click
        ? [c.click.clickId, c.click.campaignId, c.click.tiktokCampaignId, c.click.ttclid, c.click.ipAddress, c.click.userAgent, c.click.clickedAt]
        : []),
    ]),
  );
  // The click in D1's clicks (k0) or the one read from its object (o_*, while its campaign exists).
  const k = (column: string) => sql.raw(`coalesce(k0.${column}, case when oc.id is not null then i.o_${column} end)`);
  const queuedOnly = (column: string) => sql`case when reason is null then ${sql.raw(column)} end`;
  const results = await rawBatch(
    db,
    chunks.map(
      (chunk) => sql`
        insert into tiktok_event_sends (conversion_id, event, status, skip_reason, click_id, ttclid, ip_address, user_agent,
          page_url, value_cents, currency, event_at, created_at, updated_at)
        select cid, event, case when reason is null then 'queued' else 'skipped' end, reason, click_id, ${queuedOnly("ttclid")},
          ${queuedOnly("ip_address")}, ${queuedOnly("user_agent")}, ${queuedOnly("page_url")}, value_cents, ${opts.currency}, event_at,
          ${opts.now}, ${opts.now}
        from (
          select i.cid, i.event, i.value_cents, i.event_at, ${k("click_id")} as click_id, ${k("ttclid")} as ttclid,
            ${k("ip_address")} as ip_address, ${k("user_agent")} as user_agent, l.url as page_url,
            case
              when ${opts.configured ? 0 : 1} then 'not_configured'
              when ${k("click_id")} is null or (${k("ttclid")} is null and ${k("tiktok_campaign_id")} is null) then 'not_tiktok'
              when ${k("ttclid")} is null then 'no_ttclid'
              when i.event_at - ${k("clicked_at")} > ${CLICK_WINDOW_MS} then 'outside_window'
            end as reason
          from (select ${jsonAt(0)} as cid, ${jsonAt(1)} as event, ${jsonAt(2)} as sub2, ${jsonAt(3)} as value_cents, ${jsonAt(4)} as event_at,
                  ${jsonAt(5)} as o_click_id, ${jsonAt(6)} as o_campaign_id, ${jsonAt(7)} as o_tiktok_campaign_id, ${jsonAt(8)} as o_ttclid,
                  ${jsonAt(9)} as o_ip_address, ${jsonAt(10)} as o_user_agent, ${jsonAt(11)} as o_clicked_at
                from json_each(${chunk})) i
          left join clicks k0 on i.sub2 <> '' and k0.click_id = i.sub2
          left join campaigns oc on k0.id is null and oc.id = i.o_campaign_id
          left join campaigns c on c.id = ${k("campaign_id")}
          left join landers l on l.id = c.lander_id)
        where true
        on conflict (conversion_id, event) do update set
          status = excluded.status, skip_reason = excluded.skip_reason, click_id = excluded.click_id, ttclid = excluded.ttclid,
          ip_address = excluded.ip_address, user_agent = excluded.user_agent, page_url = excluded.page_url,
          value_cents = excluded.value_cents, currency = excluded.currency, event_at = excluded.event_at,
          code = null, message = null, updated_at = excluded.updated_at
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
  /** CAKE's offer of the conversion (0 when CAKE never named it), and its name when known. */
  offerId: number;
  offerName: string;
}

const idList = (ids: readonly number[]) => sql`(select value from json_each(${JSON.stringify(ids)}))`;

/** The rows among `ids` that the consumer holding `token` still holds: only it writes their outcome. */
const heldBy = (token: string, ids: readonly number[]) => sql`id in ${idList(ids)} and status = 'sending' and lease_token = ${token}`;

/**
 * Takes the rows among `ids` that wait to be sent (`queued`, or `sending` whose holder's lease ran
 * out) for the consumer `token` until `leaseUntil`, and reads them with their CAKE offer (the
 * pull may have named it after the postback claimed the row). Rows sent, failed, skipped or held
 * by another consumer are left out: the caller acknowledges their messages.
 */
export async function leaseSends(db: Db, ids: readonly number[], token: string, now: number, leaseUntil: number): Promise<LeasedSend[]> {
  if (!ids.length) return [];
  const [, leased] = await rawBatch(db, [
    sql`update tiktok_event_sends set status = 'sending', lease_until = ${leaseUntil}, lease_token = ${token}, attempts = attempts + 1, updated_at = ${now}
        where id in ${idList(ids)} and (status = 'queued' or (status = 'sending' and lease_until < ${now}))`,
    sql`select s.id, s.conversion_id as conversionId, s.event, s.click_id as clickId, s.ttclid, s.ip_address as ipAddress,
          s.user_agent as userAgent, s.page_url as pageUrl, s.value_cents as valueCents, s.currency, s.event_at as eventAt, s.attempts,
          coalesce(c.offer_id, 0) as offerId,
          coalesce(nullif(c.offer_name, ''), (select o.offer_name from cake_conversions o
            where o.offer_id = c.offer_id and o.offer_name <> '' limit 1), '') as offerName
        from tiktok_event_sends s left join cake_conversions c on c.conversion_id = s.conversion_id
        where s.id in ${idList(ids)} and s.status = 'sending' and s.lease_token = ${token}
        order by s.id`,
  ]);
  return (leased?.results ?? []) as LeasedSend[];
}

/** TikTok took them (code 0); answers the ids this holder marked (each is marked sent once). */
export const markSent = async (db: Db, token: string, ids: readonly number[], now: number): Promise<Set<number>> =>
  ids.length
    ? new Set(
        (
          await db.all<{ id: number }>(sql`
            update tiktok_event_sends set status = 'sent', sent_at = ${now}, updated_at = ${now}, lease_until = null, lease_token = null,
              code = null, message = null, failure_kind = null, ${VISITOR_VALUES}
            where ${heldBy(token, ids)} returning id`)
        ).map((r) => r.id),
      )
    : new Set();

/** They cannot be sent as things are: kept as `failed` with TikTok's code and message and the kind, for 'Resend failed'. */
export const markFailed = (
  db: Db,
  token: string,
  ids: readonly number[],
  failure: { kind: TikTokFailureKind; code: number | null; message: string },
  now: number,
) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'failed', failure_kind = ${failure.kind}, code = ${failure.code}, message = ${failure.message},
          updated_at = ${now}, lease_until = null, lease_token = null
        where ${heldBy(token, ids)}`)
    : Promise.resolve();

/** Sending was switched off (pixel cleared, token removed) after they were queued: skipped as not configured, decided again later. */
export const skipUnconfigured = (db: Db, token: string, ids: readonly number[], message: string, now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'skipped', skip_reason = 'not_configured', code = null, message = ${message},
          updated_at = ${now}, lease_until = null, lease_token = null, ${VISITOR_VALUES}
        where ${heldBy(token, ids)}`)
    : Promise.resolve();

/** A retryable failure: back to `queued` with the reason, for the queue's next delivery of their message. */
export const releaseSends = (db: Db, token: string, ids: readonly number[], code: number | null, message: string, now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'queued', code = ${code}, message = ${message}, updated_at = ${now}, lease_until = null, lease_token = null
        where ${heldBy(token, ids)}`)
    : Promise.resolve();

/**
 * The queue gave up on their message (it reached the dead-letter queue): the rows still waiting
 * become `failed` (temporary: the last reason was worth retrying), so the panel shows them and
 * 'Resend failed' can retry.
 */
export const giveUpSends = (db: Db, ids: readonly number[], now: number) =>
  ids.length
    ? db.run(sql`
        update tiktok_event_sends set status = 'failed', failure_kind = 'temporary', updated_at = ${now}, lease_until = null, lease_token = null,
          message = 'The queue gave up after its retries' || coalesce(': ' || message, '')
        where id in ${idList(ids)} and (status = 'queued' or (status = 'sending' and lease_until < ${now}))`)
    : Promise.resolve();

/**
 * 'Resend failed': the failed rows that can succeed now (not those TikTok refused as malformed)
 * back to `queued`; returns their ids to enqueue.
 */
export async function requeueFailed(db: Db, now: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(sql`
    update tiktok_event_sends set status = 'queued', updated_at = ${now}, attempts = 0, failure_kind = null
    where status = 'failed' and failure_kind is not 'refused' returning id`);
  return rows.map((r) => r.id);
}

/**
 * Conversions skipped because sending was not configured, whose event happened since `since`,
 * as claims to decide again (the cron's sweep, once sending is configured). Their sub2 is the
 * click copied in when they were claimed, or CAKE's.
 */
export const unconfiguredSends = (db: Db, since: number, limit = 10_000) =>
  db.all<SendClaim>(sql`
    select s.conversion_id as conversionId, s.event, coalesce(s.click_id, c.subid2, '') as subid2, coalesce(s.value_cents, 0) as valueCents,
      s.event_at as eventAt
    from tiktok_event_sends s indexed by tiktok_event_sends_not_configured_idx
    left join cake_conversions c on c.conversion_id = s.conversion_id
    where s.skip_reason = 'not_configured' and s.status = 'skipped' and s.event_at >= ${since}
    limit ${limit}`);

/**
 * Rows nobody is looking after: `queued` untouched for `staleMs` (their enqueue failed, or the
 * queue lost them) and `sending` past their lease (a consumer was cut off). Touched here, so the
 * next sweep leaves them alone while they travel again.
 */
export async function takeStaleSends(db: Db, now: number, staleMs: number, limit = 10_000): Promise<number[]> {
  const rows = await db.all<{ id: number }>(sql`
    update tiktok_event_sends set status = 'queued', updated_at = ${now}, lease_until = null, lease_token = null
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

export interface SendFailure {
  conversionId: string;
  event: string;
  kind: TikTokFailureKind;
  code: number | null;
  message: string | null;
  at: number;
}

/**
 * Rows per state whose state was set since `since` (the day's start), every failed row counted by
 * kind, and the latest failures of each kind (so a refusal is not hidden behind newer timeouts).
 */
export async function sendOverview(db: Db, since: number, failuresPerKind = 3) {
  const [today, failed, failures] = await rawBatch(db, [
    sql`select status, skip_reason as skipReason, count(*) as count from tiktok_event_sends indexed by tiktok_event_sends_updated_idx
        where updated_at >= ${since} group by status, skip_reason`,
    sql`select coalesce(failure_kind, 'temporary') as kind, count(*) as count from tiktok_event_sends where status = 'failed' group by 1`,
    sql`select conversionId, event, kind, code, message, at from (
          select conversion_id as conversionId, event, coalesce(failure_kind, 'temporary') as kind, code, message, updated_at as at,
            row_number() over (partition by failure_kind order by updated_at desc, id desc) as n
          from tiktok_event_sends where status = 'failed')
        where n <= ${failuresPerKind} order by at desc`,
  ]);
  const failedByKind = Object.fromEntries(TIKTOK_FAILURE_KINDS.map((k) => [k, 0])) as Record<TikTokFailureKind, number>;
  for (const row of (failed?.results ?? []) as { kind: TikTokFailureKind; count: number }[]) failedByKind[row.kind] += row.count;
  return {
    today: (today?.results ?? []) as SendCounts[],
    failed: failedByKind,
    failures: (failures?.results ?? []) as SendFailure[],
  };
}
