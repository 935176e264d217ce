import { insertClick, insertClicks, recordExit, type ExitRecord, type NewClick } from "../db/queries/clicks";
import type { Db } from "../env";
import { isForeignKeyViolation, isUniqueViolation } from "../lib/db-errors";

type Click = NewClick & { clickId: string };
/** The part of the request's ExecutionContext used here (Hono's and the runtime's types differ). */
type Background = Pick<ExecutionContext, "waitUntil">;

const RETRY_DELAYS_MS = [50, 250, 1000];

/**
 * Runs a write, retrying transient failures (D1 can shed load or drop a connection). A constraint
 * failure is final: retrying cannot bring back a deleted campaign.
 */
async function withRetries(write: () => Promise<unknown>) {
  for (let attempt = 0; ; attempt++) {
    try {
      await write();
      return;
    } catch (err) {
      if (attempt >= RETRY_DELAYS_MS.length || isForeignKeyViolation(err) || isUniqueViolation(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
    }
  }
}

// A retried insert that had in fact landed collides with itself: that click is stored.
const alreadyStored = (err: unknown) => isUniqueViolation(err, "clicks.click_id");

/** Stores a batch; returns the clickIds that could not be stored. */
async function writeBatch(db: Db, clicks: Click[]): Promise<Set<string>> {
  try {
    await withRetries(() => insertClicks(db, clicks));
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
      await withRetries(() => insertClick(db, click));
    } catch (err) {
      if (alreadyStored(err)) continue;
      lost.add(click.clickId);
      console.error("click not stored", click.clickId, err);
    }
  }
  return lost;
}

/**
 * Clicks are gathered for a moment and written together: one D1 round trip per batch instead of
 * one per visitor, which is what lets /r/ keep pace with a bare redirect under load. A batch is
 * written FLUSH_AFTER_MS after its first click, or at once when it reaches FLUSH_AT clicks.
 */
export const FLUSH_AFTER_MS = 50;
export const FLUSH_AT = 200;

interface Batch {
  clicks: Click[];
  /** The clickIds that could not be stored, once the batch is written. */
  written: Promise<Set<string>>;
  close: () => void;
}

let open: Batch | null = null;

function openBatch(db: Db): Batch {
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  const batch: Batch = {
    clicks: [],
    close: () => {
      if (open === batch) open = null;
      close();
    },
    written: closed.then(() => writeBatch(db, batch.clicks)),
  };
  setTimeout(batch.close, FLUSH_AFTER_MS);
  return batch;
}

/** Clicks answered but not yet stored, by clickId: an exit arriving that fast still finds its click. */
const pending = new Map<string, { click: Click; stored: Promise<boolean> }>();

export const pendingClick = (clickId: string) => pending.get(clickId);

/**
 * Stores a click after the response: the visitor never waits on D1. Every request whose click
 * is in a batch holds the batch's write in its own `waitUntil`, so the runtime keeps the isolate
 * alive until the click is stored whichever request happens to run the write.
 */
export function recordClickLater(ctx: Background, db: Db, click: Click) {
  const batch = open ?? (open = openBatch(db));
  batch.clicks.push(click);
  if (batch.clicks.length >= FLUSH_AT) batch.close();
  const stored = batch.written
    .then((lost) => !lost.has(click.clickId))
    .finally(() => pending.delete(click.clickId));
  pending.set(click.clickId, { click, stored });
  ctx.waitUntil(stored);
}

/** Stores an exit after the response, once its click (if still being written) is stored. */
export function recordExitLater(ctx: Background, db: Db, exit: ExitRecord, clickStored: Promise<boolean> = Promise.resolve(true)) {
  const done = clickStored.then(async (stored) => {
    if (!stored) return;
    try {
      await withRetries(() => recordExit(db, exit));
    } catch (err) {
      console.error("exit not stored", exit.clickId, err);
    }
  });
  ctx.waitUntil(done);
}
