import { insertClick, insertClicks, recordExit, type ExitRecord, type NewClick } from "../db/queries/clicks";
import type { Db } from "../env";
import { isForeignKeyViolation, isUniqueViolation } from "../lib/db-errors";
import { sleep, withRetries, type RetryPolicy } from "../lib/retry";
import { clickMessages, sendForRetry, type ClickRetryMessage } from "./click-retry";
import { describeVisitor } from "./visitor";

type Click = NewClick & { clickId: string };
/** The part of the request's ExecutionContext used here (Hono's and the runtime's types differ). */
type Background = Pick<ExecutionContext, "waitUntil">;
/** Where a failed write goes (tracking/click-retry.ts); without it (a bench's bare env) it is only logged. */
type RetryQueue = Queue<ClickRetryMessage> | undefined;

/**
 * Writes retry transient failures (D1 can shed load or drop a connection). A constraint failure
 * is final: retrying cannot bring back a deleted campaign.
 */
const WRITE_RETRIES: RetryPolicy = {
  delaysMs: [50, 250, 1000],
  retryable: (err) => !isForeignKeyViolation(err) && !isUniqueViolation(err),
};

// A retried insert that had in fact landed collides with itself: that click is stored.
const alreadyStored = (err: unknown) => isUniqueViolation(err, "clicks.click_id");

/**
 * Stores a batch. Returns the clicks that could not be stored: `failed` (D1 kept failing: worth
 * another try later) and `dropped` (a campaign deleted meanwhile: never storable).
 */
async function writeBatch(db: Db, clicks: Click[]): Promise<{ failed: Click[]; dropped: Set<string> }> {
  const dropped = new Set<string>();
  try {
    await withRetries(() => insertClicks(db, clicks), WRITE_RETRIES);
    return { failed: [], dropped };
  } catch (err) {
    if (!isForeignKeyViolation(err) && !alreadyStored(err)) {
      console.error(`${clicks.length} clicks not stored`, err);
      return { failed: clicks, dropped };
    }
  }
  // The batch is atomic, so one bad row (a campaign deleted meanwhile) failed it whole:
  // store the rows one by one so only that row is dropped.
  const failed: Click[] = [];
  for (const click of clicks) {
    try {
      await withRetries(() => insertClick(db, click), WRITE_RETRIES);
    } catch (err) {
      if (alreadyStored(err)) continue;
      // A campaign deleted after its click was answered (here, or in another isolate whose
      // delete this one's campaign cache has not seen yet) takes the click along, as it took its
      // stored clicks: an expected outcome, noted in a line, not a failure.
      if (isForeignKeyViolation(err)) {
        dropped.add(click.clickId);
        console.log(`clicks: dropped click ${click.clickId}: campaign ${click.campaignId} was deleted before it was stored`);
      } else {
        failed.push(click);
        console.error("click not stored", click.clickId, err);
      }
    }
  }
  return { failed, dropped };
}

/**
 * Clicks are gathered and written together: one D1 round trip and one transaction per batch
 * instead of one per visitor, which is what lets /r/ keep pace with a bare redirect under load.
 * A batch is written once clicks pause for BATCH_IDLE_MS (a quiet isolate's click lands at once),
 * or BATCH_MAX_WAIT_MS after its first click, or when it holds BATCH_MAX_CLICKS: a busy isolate
 * sends about one write a second however many visitors it serves.
 *
 * The runtime judges each request on its own: a request whose `waitUntil` waits on a promise that
 * only another request's I/O can settle is cancelled as hung, and so are continuations created by
 * a request that has ended. So no request ever waits on another's promise here. The request that
 * opens a batch keeps it alive with its own timer and writes it when the timer says so; a request
 * that fills a batch writes it itself. The visitors in between wait for nothing.
 */
export const BATCH_IDLE_MS = 20;
export const BATCH_MAX_WAIT_MS = 1000;
export const BATCH_MAX_CLICKS = 1000;

/** What became of a click once its batch was written. */
export type ClickState = "stored" | "queued" | "lost";

interface Batch {
  clicks: Click[];
  /** When its first and latest clicks arrived. */
  firstAt: number;
  lastAt: number;
  retry: RetryQueue;
  /** Once written: the clicks sent to the retry queue, and those lost (not stored, not queued). */
  queued?: Set<string>;
  lost?: Set<string>;
}

let open: Batch | null = null;

/** Clicks answered but not yet stored, by clickId: an exit arriving that fast still finds its click. */
const pending = new Map<string, { click: Click; batch: Batch }>();

/**
 * Clicks sent to the retry queue stay findable here this long (at most QUEUED_KEPT of them, the
 * oldest let go first), so an exit in this isolate still finds its click and follows it into the
 * queue: the consumer records the exit once the click has landed.
 */
export const QUEUED_KEPT_MS = 60_000;
const QUEUED_KEPT = 10_000;
const queuedBatches: { batch: Batch; until: number }[] = [];
let queuedKept = 0;

function forgetQueued(now: number) {
  while (queuedBatches.length && (queuedBatches[0]!.until <= now || queuedKept > QUEUED_KEPT)) {
    const { batch } = queuedBatches.shift()!;
    queuedKept -= batch.queued!.size;
    for (const id of batch.queued!) if (pending.get(id)?.batch === batch) pending.delete(id);
  }
}

/** Sends a batch's failed clicks to the retry queue; returns whether the queue took them. */
async function queueFailed(batch: Batch, failed: Click[]) {
  if (!batch.retry || !failed.length) return false;
  try {
    await sendForRetry(batch.retry, clickMessages(failed));
    console.warn(`${failed.length} clicks sent to the retry queue`);
    return true;
  } catch (err) {
    console.error(`${failed.length} clicks not stored and not queued`, err);
    return false;
  }
}

/** Closes a batch and writes it, as the calling request's own I/O. */
async function flush(batch: Batch, db: Db) {
  if (open === batch) open = null;
  let queued = false;
  try {
    // Parsed here, after every visitor of the batch was answered, never on /r/ itself.
    for (const click of batch.clicks) Object.assign(click, describeVisitor(click.userAgent, click.asn));
    const { failed, dropped } = await writeBatch(db, batch.clicks);
    queued = await queueFailed(batch, failed);
    batch.queued = new Set(queued ? failed.map((c) => c.clickId) : []);
    batch.lost = new Set([...dropped, ...(queued ? [] : failed.map((c) => c.clickId))]);
  } finally {
    batch.queued ??= new Set();
    batch.lost ??= new Set(batch.clicks.map((c) => c.clickId));
    for (const click of batch.clicks) if (!batch.queued.has(click.clickId)) pending.delete(click.clickId);
    if (batch.queued.size) {
      queuedBatches.push({ batch, until: Date.now() + QUEUED_KEPT_MS });
      queuedKept += batch.queued.size;
    }
    forgetQueued(Date.now());
  }
}

/**
 * Opens a batch. The opening request's `waitUntil` holds a timer, re-armed for whichever comes
 * first, the lull or the longest wait (re-arming on every click would cost a timer per visitor),
 * until the batch is written by that timer or filled and written by another request.
 */
function openBatch(ctx: Background, db: Db, now: number, retry: RetryQueue): Batch {
  const batch: Batch = { clicks: [], firstAt: now, lastAt: now, retry };
  ctx.waitUntil(
    new Promise<void>((resolve) => {
      const check = () => {
        if (open !== batch) return resolve();
        const wait = Math.min(batch.lastAt + BATCH_IDLE_MS, batch.firstAt + BATCH_MAX_WAIT_MS) - Date.now();
        if (wait <= 0) resolve(flush(batch, db));
        else setTimeout(check, wait);
      };
      setTimeout(check, BATCH_IDLE_MS);
    }),
  );
  return batch;
}

/** How long an exit waits for its click's batch before giving up (the runtime allows 30 s). */
const EXIT_WAIT_MS = 20_000;

/**
 * A click still waiting in this isolate's batch (or sent on to the retry queue), and a way to
 * learn what becomes of it. The asking request polls with its own timers rather than awaiting the
 * writer's promise (see above).
 */
export function pendingClick(clickId: string) {
  forgetQueued(Date.now());
  const entry = pending.get(clickId);
  if (!entry) return undefined;
  const { batch } = entry;
  const stored = async (): Promise<ClickState> => {
    for (const giveUpAt = Date.now() + EXIT_WAIT_MS; !batch.lost && Date.now() < giveUpAt;) {
      await sleep(BATCH_IDLE_MS);
    }
    if (!batch.lost) return "lost";
    if (batch.queued?.has(clickId)) return "queued";
    return batch.lost.has(clickId) ? "lost" : "stored";
  };
  return { click: entry.click, stored };
}

/** Stores a click after the response: the visitor never waits on D1. A failed write goes to `retry`. */
export function recordClickLater(ctx: Background, db: Db, click: Click, retry?: RetryQueue) {
  const now = Date.now();
  const batch = open ?? (open = openBatch(ctx, db, now, retry));
  batch.clicks.push(click);
  batch.lastAt = now;
  pending.set(click.clickId, { click, batch });
  if (batch.clicks.length >= BATCH_MAX_CLICKS) ctx.waitUntil(flush(batch, db));
}

/** Sends an exit to the retry queue; false when there is none or it refused. */
async function queueExit(retry: RetryQueue, exit: ExitRecord) {
  if (!retry) return false;
  try {
    await sendForRetry(retry, [{ kind: "exit", exit }]);
    return true;
  } catch (err) {
    console.error("exit not stored and not queued", exit.clickId, err);
    return false;
  }
}

/**
 * Stores an exit after the response, once its click (if still being written) is stored. An exit
 * whose click went to the retry queue, or whose own write fails, goes to the retry queue too: the
 * consumer records it once the click is stored.
 */
export function recordExitLater(
  ctx: Background,
  db: Db,
  exit: ExitRecord,
  clickStored: () => Promise<ClickState | boolean> = async () => true,
  retry?: RetryQueue,
) {
  const done = clickStored().then(async (state) => {
    if (state === "queued") {
      await queueExit(retry, exit);
      return;
    }
    if (state === "lost" || state === false) {
      console.error("exit not stored: its click was not stored", exit.clickId);
      return;
    }
    try {
      await withRetries(() => recordExit(db, exit), WRITE_RETRIES);
    } catch (err) {
      // The click (its campaign) or the offer was deleted meanwhile: the exit goes with them.
      if (isForeignKeyViolation(err))
        console.log(`exits: dropped the exit of click ${exit.clickId}: the click or offer ${exit.offerId} was deleted before it was stored`);
      else if (!(await queueExit(retry, exit))) console.error("exit not stored", exit.clickId, err);
    }
  });
  ctx.waitUntil(done);
}
