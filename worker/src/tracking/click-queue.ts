/**
 * The clicks queue (docs/tracking.md "Clicks through a queue"). `/r/` and `/click` answer, then
 * their isolate's micro-batch of clicks and exits goes to a Cloudflare Queue, `trackyard-clicks`,
 * as one message (click-writer.ts); this Worker's queue() writes them to D1:
 * - every click of a delivered batch of messages in one D1 batch (one transaction), by clickId: one
 *   already stored (a message delivered twice, or retried after the consumer died part way) is
 *   left as it is, one whose campaign was deleted meanwhile is dropped;
 * - then the exits, in the order they came, each once (by click and time): an exit whose click is
 *   not stored yet (it is in another isolate's message) goes back to the queue on its own and is
 *   tried again with a doubling delay until the click lands;
 * - a message whose write fails is retried with a doubling delay (2 s, 4 s, ... at most 5 minutes);
 *   after the queue's last retry (about 20 minutes) it goes to the dead-letter queue,
 *   `trackyard-clicks-dlq`, whose consumer tries every 30 minutes for half a day and then logs what
 *   it could not store, by clickId. Pausing that queue's delivery keeps its messages for a replay.
 * A click whose id names a shard-day (a layout-1 id: tracking/click-id.ts) is written to that
 * Durable Object instead, and its exits too (tracking/click-shards.ts), with the same retries.
 */
import { insertClicksOnce, recordExitOnce, storedClickIds, type ExitRecord, type NewClick } from "../db/queries/clicks";
import { recordClicksFailed, recordClicksStored } from "../db/queries/click-pipeline";
import type { Bindings, Db } from "../env";
import { createDb } from "../middleware/database";
import { legacyPlace, placeOfClickId, type ClickPlace } from "./click-id";
import { exitsToShards, writeToShards } from "./click-shards";
import { hasLegacy, shardCounts } from "./shard-days";

export const CLICKS_QUEUE_NAME = "trackyard-clicks";
export const CLICKS_DLQ_NAME = "trackyard-clicks-dlq";
/** How long the queue gathers messages before delivering them (wrangler.toml's max_batch_timeout). */
export const CLICKS_QUEUE_WAIT_MS = 1000;

export type QueuedClick = NewClick & { clickId: string };
/** An isolate's micro-batch (its exits after its clicks), or one exit sent back to wait for its click. */
export type ClickMessage = { kind: "clicks"; clicks: QueuedClick[]; exits?: ExitRecord[] } | { kind: "exit"; exit: ExitRecord };

/** The first retry waits this long; each next one twice as long, up to MAX_RETRY_SECONDS. */
const FIRST_RETRY_SECONDS = 2;
const MAX_RETRY_SECONDS = 300;
/** The dead-letter queue's consumer: a try every 30 minutes, DLQ_ATTEMPTS of them (wrangler.toml's max_retries + 1). */
const DLQ_RETRY_SECONDS = 30 * 60;
export const DLQ_ATTEMPTS = 25;

/** A queue message is at most 128 KB: clicks go in messages of at most this much JSON. */
const MESSAGE_BYTES = 100_000;
/** sendBatch takes at most 100 messages and 256 KB in all. */
const BATCH_BYTES = 200_000;

const encoder = new TextEncoder();
const bytesOf = (value: unknown) => encoder.encode(JSON.stringify(value)).length + 1;

/**
 * Clicks and exits as messages of at most MESSAGE_BYTES of JSON each. An exit goes in the message
 * of its click when that message has room, else in a later one: the consumer waits for the click.
 */
export function clickMessages(clicks: QueuedClick[], exits: ExitRecord[] = []): ClickMessage[] {
  const messages: { kind: "clicks"; clicks: QueuedClick[]; exits: ExitRecord[] }[] = [];
  let current = { kind: "clicks" as const, clicks: [] as QueuedClick[], exits: [] as ExitRecord[] };
  let size = 0;
  const add = (bytes: number, put: () => void) => {
    if ((current.clicks.length || current.exits.length) && size + bytes > MESSAGE_BYTES) {
      messages.push(current);
      current = { kind: "clicks", clicks: [], exits: [] };
      size = 0;
    }
    put();
    size += bytes;
  };
  for (const click of clicks) add(bytesOf(click), () => current.clicks.push(click));
  for (const exit of exits) add(bytesOf(exit), () => current.exits.push(exit));
  if (current.clicks.length || current.exits.length) messages.push(current);
  return messages.map((m) => (m.exits.length ? m : { kind: "clicks", clicks: m.clicks }));
}

/**
 * Messages sent by this isolate and not yet written by a consumer in this isolate. Only where one
 * isolate both sends and consumes (the worker tests) does it reach zero when everything is written:
 * the tests wait on it (worker/test/helpers.ts `clicksWritten`). In production it only grows.
 */
let unwritten = 0;
export const unwrittenMessages = () => unwritten;

/** Sends messages in batches within the queue's limits. Throws when the queue refuses them. */
export async function sendClickMessages(queue: Queue<ClickMessage>, messages: ClickMessage[], delaySeconds?: number) {
  let batch: MessageSendRequest<ClickMessage>[] = [];
  let size = 0;
  const send = async () => {
    // Counted before sending: the consumer may write a message before sendBatch's promise settles,
    // and its decrement must not come first (the count would never return to zero).
    unwritten += batch.length;
    try {
      await queue.sendBatch(batch, delaySeconds === undefined ? undefined : { delaySeconds });
    } catch (err) {
      unwritten -= batch.length;
      throw err;
    }
  };
  for (const body of messages) {
    const bytes = bytesOf(body);
    if (batch.length && (size + bytes > BATCH_BYTES || batch.length === 100)) {
      await send();
      batch = [];
      size = 0;
    }
    batch.push({ body });
    size += bytes;
  }
  if (batch.length) await send();
}

/** The next try's delay: doubling from FIRST_RETRY_SECONDS, at most MAX_RETRY_SECONDS. */
export const retryDelaySeconds = (attempts: number) => Math.min(FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_SECONDS);

const isClick = (c: unknown): c is QueuedClick => {
  const click = c as Partial<QueuedClick> | null;
  return typeof click?.clickId === "string" && typeof click.campaignId === "number" && typeof click.clickedAt === "number";
};

function exitOf(raw: unknown): ExitRecord | null {
  const exit = raw as Partial<ExitRecord> | null;
  if (typeof exit?.clickId !== "string" || typeof exit.offerId !== "number" || typeof exit.at !== "number") return null;
  return { clickId: exit.clickId, offerId: exit.offerId, at: exit.at, ipAddress: exit.ipAddress ?? null, userAgent: exit.userAgent ?? null };
}

/** A message body of the shapes above (our own producer's), or null for anything else. */
function messageOf(body: unknown): ClickMessage | null {
  const m = body as Partial<{ kind: string; clicks: unknown; exits: unknown; exit: unknown }> | null;
  if (m?.kind === "clicks" && Array.isArray(m.clicks) && m.clicks.every(isClick)) {
    const exits = Array.isArray(m.exits) ? m.exits.map(exitOf) : [];
    if (exits.every((e): e is ExitRecord => e !== null))
      return exits.length ? { kind: "clicks", clicks: m.clicks, exits } : { kind: "clicks", clicks: m.clicks };
    return null;
  }
  const exit = m?.kind === "exit" ? exitOf(m.exit) : null;
  return exit ? { kind: "exit", exit } : null;
}

const exitsOf = (m: ClickMessage) => (m.kind === "exit" ? [m.exit] : (m.exits ?? []));
const describe = (m: ClickMessage) =>
  m.kind === "exit" ? `the exit of click ${m.exit.clickId}` : `${m.clicks.length} clicks and ${m.exits?.length ?? 0} exits`;

/** Where clicks are written: D1, and the shard-day objects (a layout-1 id names one). */
export type Stores = { db: Db; shards: Bindings["CLICK_SHARDS"] };

/** Items by where their click is stored: with the shard-day its layout-1 id names, or D1's (`own`), each in the order given. */
function byStore<T>(items: T[], idAndTime: (item: T) => [string, number]) {
  const placed: { place: ClickPlace; item: T }[] = [];
  const own: T[] = [];
  for (const item of items) {
    const place = placeOfClickId(...idAndTime(item));
    if (place) placed.push({ place, item });
    else own.push(item);
  }
  return { placed, own };
}

/**
 * Records exits in order: a shard-day's to its object, one call per object (the object keeps an
 * exit until its click comes), the others to D1, or, once the move of D1's clicks has started
 * (tracking/click-move.ts), to their legacy objects, which keep each until the move brings its
 * click. Returns the D1 exits whose click is not stored yet.
 */
export async function writeExits({ db, shards }: Stores, exits: ExitRecord[]) {
  const waiting: ExitRecord[] = [];
  const { placed, own: old } = byStore(exits, (exit) => [exit.clickId, exit.at]);
  // The shard counts as this isolate read them, at most SHARD_DAYS_TTL_MS ago: an exit written to
  // D1 that late after the switch is still there for the move, which copies nothing for
  // MOVE_SETTLE_MS (tracking/click-move.ts).
  const moving = old.length > 0 && hasLegacy(await shardCounts(db));
  const own = moving ? [] : old;
  if (moving) placed.push(...old.map((item) => ({ place: legacyPlace(item.clickId), item })));
  if (placed.length) await exitsToShards(shards, placed);
  for (const exit of own) {
    const outcome = await recordExitOnce(db, exit);
    if (outcome === "no click") waiting.push(exit);
    // An expected outcome, noted in a line, not a failure.
    else if (outcome === "no offer")
      console.log(`exits: dropped the exit of click ${exit.clickId}: the click or offer ${exit.offerId} was deleted before it was stored`);
  }
  return waiting;
}

/**
 * Writes clicks by clickId: a click whose id names a shard-day to that object, the others to D1.
 * Fewer stored in D1 than given means repeats (already stored) or clicks whose campaign was
 * deleted after they were answered: the latter are noted, as the campaign's stored clicks went
 * with it.
 */
export async function writeClicks({ db, shards }: Stores, all: QueuedClick[]) {
  const { placed, own: clicks } = byStore(all, (click) => [click.clickId, click.clickedAt]);
  if (placed.length) await writeToShards(shards, placed);
  if (!clicks.length || (await insertClicksOnce(db, clicks)) === clicks.length) return;
  const stored = await storedClickIds(
    db,
    clicks.map((c) => c.clickId),
  );
  for (const click of clicks)
    if (!stored.has(click.clickId)) console.log(`clicks: dropped click ${click.clickId}: campaign ${click.campaignId} was deleted before it was stored`);
}

function done(message: Message<unknown>) {
  message.ack();
  // A test may hand the consumer a batch it made itself, never sent.
  unwritten = Math.max(0, unwritten - 1);
}

type Parsed = { message: Message<unknown>; body: ClickMessage };

function parse(batch: MessageBatch<unknown>, queue: string): Parsed[] {
  const parsed: Parsed[] = [];
  for (const message of batch.messages) {
    const body = messageOf(message.body);
    if (body) parsed.push({ message, body });
    else {
      console.error(`${queue}: a message of an unknown shape, dropped`, message.id);
      done(message);
    }
  }
  return parsed;
}

/** A batch stored this long after its oldest message was sent means the queue is backing up: logged. */
export const LAG_NOTED_MS = 60_000;

/**
 * When the oldest of these messages of clicks was sent (exits waiting for their click are left
 * out: their wait is not the queue's). Null when there are none.
 */
function oldestSent(parsed: Parsed[]) {
  const sent = parsed.filter(({ body }) => body.kind === "clicks").map(({ message }) => message.timestamp.getTime());
  return sent.length ? Math.min(...sent) : null;
}

/**
 * The batch's lag, recorded for the Click Log and the backlog alert (tracking/click-backlog.ts):
 * one small write per delivered batch. A failure to record is logged, never a reason to retry
 * clicks that are stored, and when D1 refuses the failed batch's record too, only the age of the
 * last success can tell.
 */
async function recordLag(db: Db, parsed: Parsed[], clicks: number, stored: boolean) {
  const oldest = oldestSent(parsed);
  if (oldest === null) return;
  const now = Date.now();
  try {
    if (stored) await recordClicksStored(db, now, now - oldest);
    else await recordClicksFailed(db, now, oldest);
  } catch (err) {
    console.error(`clicks queue: the batch's lag not recorded (${stored ? "stored" : "not stored"})`, err);
  }
  if (stored && now - oldest > LAG_NOTED_MS) console.warn(`clicks queue: behind by ${Math.round((now - oldest) / 1000)} s (${clicks} clicks written now)`);
}

/**
 * `trackyard-clicks`: the batch's clicks written together, then each message's exits. Every write
 * is idempotent, so a message retried after a failure part way (its clicks stored, its exits not)
 * is simply written again.
 */
export async function consumeClicks(batch: MessageBatch<unknown>, env: Pick<Bindings, "DB" | "CLICKS_QUEUE" | "CLICK_SHARDS">) {
  const db = createDb(env.DB);
  const stores = { db, shards: env.CLICK_SHARDS };
  const parsed = parse(batch, CLICKS_QUEUE_NAME);
  const clicks = parsed.flatMap(({ body }) => (body.kind === "clicks" ? body.clicks : []));
  try {
    await writeClicks(stores, clicks);
  } catch (err) {
    console.error(`clicks queue: ${clicks.length} clicks not stored yet (try ${batch.messages[0]?.attempts ?? 1})`, err);
    await recordLag(db, parsed, clicks.length, false);
    for (const { message } of parsed) message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    return;
  }
  await recordLag(db, parsed, clicks.length, true);
  for (const { message, body } of parsed) {
    try {
      const waiting = await writeExits(stores, exitsOf(body));
      if (!waiting.length) done(message);
      else if (body.kind === "exit") message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      else {
        // The message's clicks are stored: only its exits wait, on their own, for clicks in other messages.
        await sendClickMessages(
          env.CLICKS_QUEUE,
          waiting.map((exit) => ({ kind: "exit", exit })),
          retryDelaySeconds(1),
        );
        done(message);
      }
    } catch (err) {
      console.error(`clicks queue: ${describe(body)} not stored yet (try ${message.attempts})`, err);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}

/**
 * `trackyard-clicks-dlq`: what the clicks queue gave up on, tried every 30 minutes; after the last
 * try the clicks and exits are logged by clickId (the only record left of them) and let go.
 */
export async function consumeClickDeadLetters(batch: MessageBatch<unknown>, env: Pick<Bindings, "DB" | "CLICK_SHARDS">) {
  const stores = { db: createDb(env.DB), shards: env.CLICK_SHARDS };
  for (const { message, body } of parse(batch, CLICKS_DLQ_NAME)) {
    let failure: unknown = "its click was never stored";
    try {
      if (body.kind === "clicks") await writeClicks(stores, body.clicks);
      if (!(await writeExits(stores, exitsOf(body))).length) {
        done(message);
        continue;
      }
    } catch (err) {
      failure = err;
    }
    if (message.attempts < DLQ_ATTEMPTS) {
      message.retry({ delaySeconds: DLQ_RETRY_SECONDS });
      continue;
    }
    const ids = body.kind === "clicks" ? body.clicks.map((c) => c.clickId) : [];
    const exits = exitsOf(body).map((e) => e.clickId);
    console.error(
      `clicks queue: ${describe(body)} lost after every retry: clicks ${ids.join(", ") || "none"}; exits of ${exits.join(", ") || "none"}`,
      failure,
    );
    done(message);
  }
}
