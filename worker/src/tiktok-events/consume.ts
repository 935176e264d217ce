/**
 * The queue consumer: sends claimed conversions to TikTok's Events API in calls of up to 1,000
 * events, confirms what TikTok took, and decides what happens to the rest (the codes as
 * docs/integrations.md reads them, "TikTok Events API"):
 * - rate limits, TikTok's 5xxxx, HTTP 5xx and network trouble: the rows go back to `queued` and
 *   their messages are retried with a doubling delay; after the queue's last retry a message
 *   lands in the dead-letter queue, whose consumer marks its rows `failed` (temporary);
 * - a bad token, missing permission or a wrong address (40105, 40102, 40104, 40001, HTTP 4xx):
 *   `failed` (setup) with TikTok's message, acknowledged ('Resend failed' after fixing it);
 * - any other refusal (40002, ...): one malformed event fails the whole call, so the call is
 *   split in halves until the bad events are alone; they fail (refused: 'Resend failed' leaves
 *   them), the others are sent;
 * - sending switched off since they were queued: skipped as not configured, decided again by a
 *   later pull or the cron's sweep.
 * Each batch leases its rows with a token of its own (db/queries/tiktok-events.ts): a message
 * delivered twice sends nothing twice, and only the holder writes an outcome. A call starts only
 * if it can end inside the lease; otherwise the rest goes back to the queue.
 */
import { giveUpSends, leaseSends, markFailed, markSent, releaseSends, skipUnconfigured, type LeasedSend } from "../db/queries/tiktok-events";
import type { Bindings, Db, TikTokEventsMessage } from "../env";
import type { FetchFn } from "../integrations/http";
import { sendEvents, TIKTOK_EVENTS_PER_CALL, type TikTokEvent, type TikTokEventsConfig } from "../integrations/tiktok-events";
import { sha256Hex } from "../lib/encoding";
import { createDb } from "../middleware/database";
import { emitSentToTikTok } from "../webhooks/emit";
import { loadEventsSetup } from "./setup";

export const TIKTOK_EVENTS_QUEUE_NAME = "trackyard-tiktok-events";
export const TIKTOK_EVENTS_DLQ_NAME = "trackyard-tiktok-events-dlq";

/** How long a consumer holds its rows: long enough for many calls, short enough to recover from a crash. */
export const LEASE_MS = 10 * 60 * 1000;
/** The longest one call may take (its timeout). */
export const CALL_TIMEOUT_MS = 60 * 1000;
/** Time kept after a call for writing its outcome: a call starts only with this much lease left beyond its timeout. */
export const WRITE_MARGIN_MS = 30 * 1000;
/** Calls one batch may spend finding malformed events by halving; the rest waits for the queue's next try. */
const MAX_SPLIT_CALLS = 60;
const DEFAULT_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 30 * 60;

export interface ConsumeDeps {
  /** The Events API's fetch (tests inject the fake). */
  fetch?: FetchFn;
  now?: () => number;
}

/** The delay before a message's next try: the base doubled per attempt so far, at most 30 minutes. */
export function retryDelaySeconds(attempts: number, env: Pick<Bindings, "TIKTOK_EVENTS_RETRY_SECONDS">) {
  const base = Number(env.TIKTOK_EVENTS_RETRY_SECONDS);
  const first = Number.isFinite(base) && base >= 0 ? base : DEFAULT_RETRY_SECONDS;
  return Math.min(Math.round(first * 2 ** Math.max(0, attempts - 1)), MAX_RETRY_SECONDS);
}

/** The ids a message carries; a body of another shape carries none (and is acknowledged). */
function idsOf(body: unknown): number[] {
  const ids = (body as Partial<TikTokEventsMessage> | null)?.ids;
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isSafeInteger(id) && id > 0) : [];
}

/** A send row as the API's event: event_id is the conversion id (TikTok de-duplicates on it). */
export async function toEvent(row: LeasedSend): Promise<TikTokEvent> {
  const properties = propertiesOf(row);
  const user: TikTokEvent["user"] = {};
  if (row.ttclid) user.ttclid = row.ttclid;
  if (row.clickId) user.external_id = await sha256Hex(row.clickId);
  if (row.ipAddress) user.ip = row.ipAddress;
  if (row.userAgent) user.user_agent = row.userAgent;
  return {
    event: row.event,
    event_time: Math.floor(row.eventAt / 1000),
    event_id: row.conversionId,
    user,
    ...(row.pageUrl ? { page: { url: row.pageUrl } } : {}),
    ...(properties ? { properties } : {}),
  };
}

/**
 * The purchase: its value and currency, and the CAKE offer as the one product bought (TikTok's
 * server-side template's shape: contents with id, name, price, quantity; content_type product).
 */
function propertiesOf(row: LeasedSend): TikTokEvent["properties"] | null {
  const value = row.valueCents !== null && row.currency ? { value: row.valueCents / 100, currency: row.currency } : null;
  if (row.offerId <= 0) return value;
  const content = {
    content_id: String(row.offerId),
    ...(row.offerName ? { content_name: row.offerName } : {}),
    ...(value ? { price: value.value } : {}),
    quantity: 1,
  };
  return { ...value, content_type: "product", contents: [content] };
}

interface Delivery {
  db: Db;
  env: Pick<Bindings, "WEBHOOKS_QUEUE">;
  config: TikTokEventsConfig;
  fetch?: FetchFn;
  now: () => number;
  /** This batch's lease: its token, and when it runs out. */
  token: string;
  leaseUntil: number;
  splitCalls: number;
  /** Set once the batch must stop (TikTok asked us to slow down, the lease or the split calls ran out): the remaining rows wait for the retry. */
  halted: { code: number | null; message: string } | null;
  retry: Set<number>;
}

async function release(d: Delivery, rows: LeasedSend[], code: number | null, message: string) {
  await releaseSends(
    d.db,
    d.token,
    rows.map((r) => r.id),
    code,
    message,
    d.now(),
  );
  for (const r of rows) d.retry.add(r.id);
}

const LEASE_RAN_OUT = "Not sent before its batch's lease ran out: sent on the queue's next try";
const SPLITS_RAN_OUT = "TikTok refused a call holding a malformed event, and this one was not told apart yet: sent on the queue's next try";

/** One call for the rows, and what follows from TikTok's answer (halving on a refused request). */
async function deliver(d: Delivery, rows: LeasedSend[]): Promise<void> {
  if (!d.halted && d.now() + CALL_TIMEOUT_MS + WRITE_MARGIN_MS > d.leaseUntil) d.halted = { code: null, message: LEASE_RAN_OUT };
  if (d.halted) return release(d, rows, d.halted.code, d.halted.message);
  const outcome = await sendEvents(d.config, await Promise.all(rows.map(toEvent)), { fetch: d.fetch, timeoutMs: CALL_TIMEOUT_MS });
  const ids = rows.map((r) => r.id);
  const at = d.now();
  switch (outcome.kind) {
    case "sent": {
      // Then on to webhook subscribers, once per send (only what this holder marked).
      const marked = await markSent(d.db, d.token, ids, at);
      return emitSentToTikTok(
        d.db,
        d.env,
        rows.filter((r) => marked.has(r.id)),
        at,
      );
    }
    case "retry":
      d.halted = { code: outcome.code, message: outcome.message };
      return release(d, rows, outcome.code, outcome.message);
    case "setup":
      return void (await markFailed(d.db, d.token, ids, { kind: "setup", code: outcome.code, message: outcome.message }, at));
    case "invalid": {
      if (rows.length === 1) return void (await markFailed(d.db, d.token, ids, { kind: "refused", code: outcome.code, message: outcome.message }, at));
      // Not yet told apart: the next delivery carries on halving (the bad ones found so far have failed, the good ones are sent).
      if (d.splitCalls >= MAX_SPLIT_CALLS) d.halted = { code: outcome.code, message: SPLITS_RAN_OUT };
      const half = Math.ceil(rows.length / 2);
      d.splitCalls += 2;
      await deliver(d, rows.slice(0, half));
      await deliver(d, rows.slice(half));
    }
  }
}

/** The main queue's batch. */
export async function consumeEvents(batch: MessageBatch<unknown>, env: Bindings, deps: ConsumeDeps = {}) {
  const now = deps.now ?? Date.now;
  const db = createDb(env.DB);
  const ids = [...new Set(batch.messages.flatMap((m) => idsOf(m.body)))];
  const token = crypto.randomUUID();
  const leasedAt = now();
  const leaseUntil = leasedAt + LEASE_MS;
  const leased = await leaseSends(db, ids, token, leasedAt, leaseUntil);
  const retry = new Set<number>();
  try {
    const { problems, config } = await loadEventsSetup(db, env);
    if (!config) {
      await skipUnconfigured(
        db,
        token,
        leased.map((r) => r.id),
        `Sending to TikTok is not configured: ${problems.join("; ")}`,
        now(),
      );
    } else {
      const d: Delivery = { db, env, config, fetch: deps.fetch, now, token, leaseUntil, splitCalls: 0, halted: null, retry };
      for (let i = 0; i < leased.length; i += TIKTOK_EVENTS_PER_CALL) await deliver(d, leased.slice(i, i + TIKTOK_EVENTS_PER_CALL));
    }
  } catch (err) {
    // Our own failure (D1, a bug): hand every row still held back, and let the queue try again.
    console.error("tiktok events: batch failed", err);
    await releaseSends(
      db,
      token,
      leased.map((r) => r.id),
      null,
      `Sending failed on our side: ${err instanceof Error ? err.message : String(err)}`,
      now(),
    ).catch(() => undefined);
    for (const r of leased) retry.add(r.id);
  }
  for (const message of batch.messages) {
    if (idsOf(message.body).some((id) => retry.has(id))) message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env) });
    else message.ack();
  }
}

/** The dead-letter queue's batch: what the main queue gave up on is recorded as failed. */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Bindings, deps: Pick<ConsumeDeps, "now"> = {}) {
  const ids = [...new Set(batch.messages.flatMap((m) => idsOf(m.body)))];
  await giveUpSends(createDb(env.DB), ids, (deps.now ?? Date.now)());
  batch.ackAll();
}
