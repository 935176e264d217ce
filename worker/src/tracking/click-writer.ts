import { insertClick, insertClicks, recordExit, type ExitRecord, type NewClick } from "../db/queries/clicks";
import type { Db } from "../env";
import { isForeignKeyViolation, isUniqueViolation } from "../lib/db-errors";
import { sleep, withRetries, type RetryPolicy } from "../lib/retry";
import { describeVisitor } from "./visitor";

type Click = NewClick & { clickId: string };
/** The part of the request's ExecutionContext used here (Hono's and the runtime's types differ). */
type Background = Pick<ExecutionContext, "waitUntil">;

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

/** Stores a batch; returns the clickIds that could not be stored. */
async function writeBatch(db: Db, clicks: Click[]): Promise<Set<string>> {
  try {
    await withRetries(() => insertClicks(db, clicks), WRITE_RETRIES);
    return new Set();
  } catch (err) {
    if (!isForeignKeyViolation(err) && !alreadyStored(err)) {
      console.error(`${clicks.length} clicks not stored`, err);
      return new Set(clicks.map((c) => c.clickId));
    }
  }
  // The batch is atomic, so one bad row (a campaign deleted meanwhile) failed it whole:
  // store the rows one by one so only that row is dropped.
  const lost = new Set<string>();
  for (const click of clicks) {
    try {
      await withRetries(() => insertClick(db, click), WRITE_RETRIES);
    } catch (err) {
      if (alreadyStored(err)) continue;
      lost.add(click.clickId);
      // A campaign deleted after its click was answered (here, or in another isolate whose
      // delete this one's campaign cache has not seen yet) takes the click along, as it took its
      // stored clicks: an expected outcome, noted in a line, not a failure.
      if (isForeignKeyViolation(err)) console.log(`clicks: dropped click ${click.clickId}: campaign ${click.campaignId} was deleted before it was stored`);
      else console.error("click not stored", click.clickId, err);
    }
  }
  return lost;
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

interface Batch {
  clicks: Click[];
  /** When its first and latest clicks arrived. */
  firstAt: number;
  lastAt: number;
  /** Once written: the clickIds that could not be stored. */
  lost?: Set<string>;
}

let open: Batch | null = null;

/** Clicks answered but not yet stored, by clickId: an exit arriving that fast still finds its click. */
const pending = new Map<string, { click: Click; batch: Batch }>();

/** Closes a batch and writes it, as the calling request's own I/O. */
async function flush(batch: Batch, db: Db) {
  if (open === batch) open = null;
  try {
    // Parsed here, after every visitor of the batch was answered, never on /r/ itself.
    for (const click of batch.clicks) Object.assign(click, describeVisitor(click.userAgent, click.asn));
    batch.lost = await writeBatch(db, batch.clicks);
  } finally {
    batch.lost ??= new Set(batch.clicks.map((c) => c.clickId));
    for (const click of batch.clicks) pending.delete(click.clickId);
  }
}

/**
 * Opens a batch. The opening request's `waitUntil` holds a timer, re-armed for whichever comes
 * first, the lull or the longest wait (re-arming on every click would cost a timer per visitor),
 * until the batch is written by that timer or filled and written by another request.
 */
function openBatch(ctx: Background, db: Db, now: number): Batch {
  const batch: Batch = { clicks: [], firstAt: now, lastAt: now };
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
 * A click still waiting in this isolate's batch, and a way to learn whether it ends up stored. The
 * asking request polls with its own timers rather than awaiting the writer's promise (see above).
 */
export function pendingClick(clickId: string) {
  const entry = pending.get(clickId);
  if (!entry) return undefined;
  const { batch } = entry;
  const stored = async () => {
    for (const giveUpAt = Date.now() + EXIT_WAIT_MS; !batch.lost && Date.now() < giveUpAt;) {
      await sleep(BATCH_IDLE_MS);
    }
    return batch.lost ? !batch.lost.has(clickId) : false;
  };
  return { click: entry.click, stored };
}

/** Stores a click after the response: the visitor never waits on D1. */
export function recordClickLater(ctx: Background, db: Db, click: Click) {
  const now = Date.now();
  const batch = open ?? (open = openBatch(ctx, db, now));
  batch.clicks.push(click);
  batch.lastAt = now;
  pending.set(click.clickId, { click, batch });
  if (batch.clicks.length >= BATCH_MAX_CLICKS) ctx.waitUntil(flush(batch, db));
}

/** Stores an exit after the response, once its click (if still being written) is stored. */
export function recordExitLater(ctx: Background, db: Db, exit: ExitRecord, clickStored: () => Promise<boolean> = async () => true) {
  const done = clickStored().then(async (stored) => {
    if (!stored) {
      console.error("exit not stored: its click was not stored", exit.clickId);
      return;
    }
    try {
      await withRetries(() => recordExit(db, exit), WRITE_RETRIES);
    } catch (err) {
      // The click (its campaign) or the offer was deleted meanwhile: the exit goes with them.
      if (isForeignKeyViolation(err))
        console.log(`exits: dropped the exit of click ${exit.clickId}: the click or offer ${exit.offerId} was deleted before it was stored`);
      else console.error("exit not stored", exit.clickId, err);
    }
  });
  ctx.waitUntil(done);
}
