import type { ExitRecord, NewClick } from "../db/queries/clicks";
import { withRetries, type RetryPolicy } from "../lib/retry";
import { clickMessages, sendClickMessages, writeClicks, writeExits, type ClickMessage, type Stores } from "./click-queue";
import { describeVisitor } from "./visitor";

type Click = NewClick & { clickId: string };
/** The part of the request's ExecutionContext used here (Hono's and the runtime's types differ). */
type Background = Pick<ExecutionContext, "waitUntil">;
/** The clicks queue; without it (a bench's bare env) clicks are written straight to D1. */
type ClicksQueue = Queue<ClickMessage> | undefined;

/** A refused send (the queue shedding load, a dropped connection) is tried again before D1 is written instead. */
const SEND_RETRIES: RetryPolicy = { delaysMs: [50, 250, 1000], retryable: () => true };

/**
 * Clicks and exits are gathered per isolate and sent to the clicks queue together, as one message
 * (docs/tracking.md "Clicks through a queue"): one queue operation per batch instead of one per
 * visitor, which keeps an isolate's sends far below the queue's message rate and its cost per click
 * near nothing. A batch is sent once events pause for BATCH_IDLE_MS (a quiet isolate's click goes at
 * once), or BATCH_MAX_WAIT_MS after its first event, or when it holds BATCH_MAX_CLICKS: a busy
 * isolate sends about one message a second however many visitors it serves. The queue's consumer
 * (click-queue.ts) writes them to D1; nothing here touches D1 unless the queue refuses the batch.
 *
 * The runtime judges each request on its own: a request whose `waitUntil` waits on a promise that
 * only another request's I/O can settle is cancelled as hung, and so are continuations created by
 * a request that has ended. So no request ever waits on another's promise here. The request that
 * opens a batch keeps it alive with its own timer and sends it when the timer says so; a request
 * that fills a batch sends it itself. The visitors in between wait for nothing.
 */
export const BATCH_IDLE_MS = 20;
export const BATCH_MAX_WAIT_MS = 1000;
export const BATCH_MAX_CLICKS = 1000;

interface Batch {
  clicks: Click[];
  /** Exits, after the clicks they belong to: the consumer writes a message's clicks first. */
  exits: ExitRecord[];
  /** When its first and latest events arrived. */
  firstAt: number;
  lastAt: number;
  queue: ClicksQueue;
}

let open: Batch | null = null;

/**
 * Clicks answered in this isolate, by clickId, for SENT_KEPT_MS after they were answered (at most
 * SENT_KEPT of them, the oldest let go first): an exit reaching this isolate before the consumer
 * has written its click still finds it (its campaign, offer and ad values) without asking D1.
 */
export const SENT_KEPT_MS = 60_000;
const SENT_KEPT = 10_000;
const recent = new Map<string, { click: Click; until: number }>();

function forgetOld(now: number) {
  // A Map iterates in insertion order: the oldest first.
  for (const [id, { until }] of recent) {
    if (until > now && recent.size <= SENT_KEPT) break;
    recent.delete(id);
  }
}

/**
 * The queue refused the batch after its retries: the stores are written instead, as the queue's
 * consumer writes them (a click whose id names a shard-day to that object, the others to D1;
 * idempotently, so a send that landed after all is no harm), and only if that fails too are the
 * events lost, logged by id. An exit whose click is in no store yet is not kept here (D1 has no
 * pending exits; a shard-day keeps its own): it is logged.
 */
async function writeInstead(stores: Stores, batch: Batch, sendError?: unknown) {
  if (sendError !== undefined)
    console.error(`clicks queue refused ${batch.clicks.length} clicks and ${batch.exits.length} exits; writing them to their stores instead`, sendError);
  try {
    await writeClicks(stores, batch.clicks);
    const waiting = await writeExits(stores, batch.exits);
    if (waiting.length) console.error(`exits not stored, their clicks not found: ${waiting.map((e) => e.clickId).join(", ")}`);
  } catch (err) {
    const ids = [...batch.clicks.map((c) => c.clickId), ...batch.exits.map((e) => `exit of ${e.clickId}`)];
    console.error(`clicks not queued and not stored: ${ids.join(", ")}`, err);
  }
}

/**
 * Clicks and exits this isolate answered that are not yet sent to the queue (or written instead):
 * in a batch still open, or being sent. Where one isolate both sends and consumes (the worker
 * tests), this and the queue's unwritten messages both at zero mean every event answered so far is
 * in D1 (worker/test/helpers.ts `clicksWritten`).
 */
let unsent = 0;
export const unsentEvents = () => unsent;

/** Closes a batch and sends it, as the calling request's own I/O. */
async function flush(batch: Batch, stores: Stores) {
  if (open === batch) open = null;
  try {
    // Parsed here, after every visitor of the batch was answered, never on /r/ itself.
    for (const click of batch.clicks) Object.assign(click, describeVisitor(click.userAgent, click.asn));
    const queue = batch.queue;
    if (!queue) return await writeInstead(stores, batch);
    try {
      await withRetries(() => sendClickMessages(queue, clickMessages(batch.clicks, batch.exits)), SEND_RETRIES);
    } catch (err) {
      await writeInstead(stores, batch, err);
    }
  } finally {
    unsent -= batch.clicks.length + batch.exits.length;
  }
}

/**
 * Opens a batch. The opening request's `waitUntil` holds a timer, re-armed for whichever comes
 * first, the lull or the longest wait (re-arming on every click would cost a timer per visitor),
 * until the batch is sent by that timer or filled and sent by another request.
 */
function openBatch(ctx: Background, stores: Stores, now: number, queue: ClicksQueue): Batch {
  const batch: Batch = { clicks: [], exits: [], firstAt: now, lastAt: now, queue };
  ctx.waitUntil(
    new Promise<void>((resolve) => {
      const check = () => {
        if (open !== batch) return resolve();
        const wait = Math.min(batch.lastAt + BATCH_IDLE_MS, batch.firstAt + BATCH_MAX_WAIT_MS) - Date.now();
        if (wait <= 0) resolve(flush(batch, stores));
        else setTimeout(check, wait);
      };
      setTimeout(check, BATCH_IDLE_MS);
    }),
  );
  return batch;
}

/** The batch this event joins: the open one, or a new one. */
function batchFor(ctx: Background, stores: Stores, queue: ClicksQueue) {
  const now = Date.now();
  const batch = open ?? (open = openBatch(ctx, stores, now, queue));
  batch.lastAt = now;
  return batch;
}

/** A click answered in this isolate within SENT_KEPT_MS: an exit needs no D1 lookup for it. */
export function recentClick(clickId: string): Click | undefined {
  const now = Date.now();
  forgetOld(now);
  return recent.get(clickId)?.click;
}

/** Sends a click to the clicks queue after the response: the visitor never waits on it. */
export function recordClickLater(ctx: Background, stores: Stores, click: Click, queue?: ClicksQueue) {
  const batch = batchFor(ctx, stores, queue);
  batch.clicks.push(click);
  unsent++;
  recent.set(click.clickId, { click, until: Date.now() + SENT_KEPT_MS });
  if (batch.clicks.length + batch.exits.length >= BATCH_MAX_CLICKS) ctx.waitUntil(flush(batch, stores));
}

/**
 * Sends an exit to the clicks queue after the response, in the same batch as its click when that
 * is still open (the consumer writes it right after the click), else in a later one (the consumer
 * waits for the click).
 */
export function recordExitLater(ctx: Background, stores: Stores, exit: ExitRecord, queue?: ClicksQueue) {
  const batch = batchFor(ctx, stores, queue);
  batch.exits.push(exit);
  unsent++;
  if (batch.clicks.length + batch.exits.length >= BATCH_MAX_CLICKS) ctx.waitUntil(flush(batch, stores));
}
