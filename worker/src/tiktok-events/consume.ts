/**
 * The queue consumer: sends claimed conversions to TikTok's Events API in calls of up to 1,000
 * events, confirms what TikTok took, and decides what happens to the rest:
 * - rate limits, TikTok's 5xxxx, HTTP 5xx and network trouble: the rows go back to `queued` and
 *   their messages are retried with a doubling delay; after the queue's last retry a message
 *   lands in the dead-letter queue, whose consumer marks its rows `failed`;
 * - a bad token or missing permission (40105, 40102, 40104, 40001): `failed` with TikTok's
 *   message, acknowledged (retrying cannot help; 'Resend failed' after fixing it);
 * - any other refusal (40002, ...): one malformed event fails the whole call, so the call is
 *   split in halves until the bad events are alone; they fail, the others are sent.
 * Each message's rows are leased before sending (db/queries/tiktok-events.ts), so a message
 * delivered twice sends nothing twice.
 */
import { giveUpSends, leaseSends, markFailed, markSent, releaseSends, type LeasedSend } from "../db/queries/tiktok-events";
import type { Bindings, Db, TikTokEventsMessage } from "../env";
import type { FetchFn } from "../integrations/http";
import { sendEvents, TIKTOK_EVENTS_PER_CALL, type TikTokEvent, type TikTokEventsConfig } from "../integrations/tiktok-events";
import { createDb } from "../middleware/database";
import { loadEventsSetup } from "./setup";

export const TIKTOK_EVENTS_QUEUE_NAME = "trackyard-tiktok-events";
export const TIKTOK_EVENTS_DLQ_NAME = "trackyard-tiktok-events-dlq";

/** How long a consumer holds its rows: longer than its calls can take, short enough to recover from a crash. */
export const LEASE_MS = 10 * 60 * 1000;
/** Calls one batch may spend finding malformed events by halving; the rest of them then fail together. */
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

const encoder = new TextEncoder();
async function sha256Hex(text: string) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A send row as the API's event: event_id is the conversion id (TikTok de-duplicates on it). */
export async function toEvent(row: LeasedSend): Promise<TikTokEvent> {
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
    ...(row.valueCents !== null && row.currency ? { properties: { value: row.valueCents / 100, currency: row.currency } } : {}),
  };
}

interface Delivery {
  db: Db;
  config: TikTokEventsConfig;
  fetch?: FetchFn;
  now: () => number;
  splitCalls: number;
  /** Set once TikTok asked us to slow down: the batch's remaining rows wait for the retry. */
  halted: { code: number | null; message: string } | null;
  retry: Set<number>;
}

async function release(d: Delivery, rows: LeasedSend[], code: number | null, message: string) {
  await releaseSends(
    d.db,
    rows.map((r) => r.id),
    code,
    message,
    d.now(),
  );
  for (const r of rows) d.retry.add(r.id);
}

/** One call for the rows, and what follows from TikTok's answer (halving on a refused request). */
async function deliver(d: Delivery, rows: LeasedSend[]): Promise<void> {
  if (d.halted) return release(d, rows, d.halted.code, d.halted.message);
  const outcome = await sendEvents(d.config, await Promise.all(rows.map(toEvent)), { fetch: d.fetch });
  const ids = rows.map((r) => r.id);
  switch (outcome.kind) {
    case "sent":
      return void (await markSent(d.db, ids, d.now()));
    case "retry":
      d.halted = { code: outcome.code, message: outcome.message };
      return release(d, rows, outcome.code, outcome.message);
    case "refused":
      return void (await markFailed(d.db, ids, outcome.code, outcome.message, d.now()));
    case "invalid": {
      if (rows.length === 1 || d.splitCalls >= MAX_SPLIT_CALLS) return void (await markFailed(d.db, ids, outcome.code, outcome.message, d.now()));
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
  const leased = await leaseSends(db, ids, now(), now() + LEASE_MS);
  const retry = new Set<number>();
  try {
    const { problems, config } = await loadEventsSetup(db, env);
    if (!config) {
      await markFailed(
        db,
        leased.map((r) => r.id),
        null,
        `Sending to TikTok is not configured: ${problems.join("; ")}`,
        now(),
      );
    } else {
      const d: Delivery = { db, config, fetch: deps.fetch, now, splitCalls: 0, halted: null, retry };
      for (let i = 0; i < leased.length; i += TIKTOK_EVENTS_PER_CALL) await deliver(d, leased.slice(i, i + TIKTOK_EVENTS_PER_CALL));
    }
  } catch (err) {
    // Our own failure (D1, a bug): hand every row still held back, and let the queue try again.
    console.error("tiktok events: batch failed", err);
    await releaseSends(
      db,
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
