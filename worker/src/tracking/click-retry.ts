/**
 * Clicks and exits whose write still failed after the writer's retries (click-writer.ts): D1 shed
 * load, dropped connections or was down for longer than the retries wait. Rather than being
 * dropped (only logged), they go to a Cloudflare Queue, `trackyard-clicks-retry`, and this Worker's
 * queue() writes them (docs/tracking.md "Speed, and what bounds it at internet scale"):
 * - clicks idempotently by clickId: one already stored (the first write landed after all, or the
 *   message came twice) is left as it is; one whose campaign was deleted meanwhile is dropped;
 * - an exit once its click is stored: until then (the click may still be on its way through the
 *   queue) the message is retried;
 * - a write that fails again is retried with a doubling delay (2 s, 4 s, ... at most 5 minutes);
 *   after the queue's last retry (about 20 minutes) the message goes to the dead-letter queue,
 *   `trackyard-clicks-retry-dlq`, whose consumer tries every 30 minutes for half a day more and
 *   then logs the clicks it could not store, by clickId.
 * The click path itself moves to a queue in a later issue; this is only the path of a failed batch.
 */
import { insertClicksOnce, recordExitOnce, type ExitRecord, type NewClick } from "../db/queries/clicks";
import type { Bindings } from "../env";
import { createDb } from "../middleware/database";

export const CLICKS_RETRY_QUEUE_NAME = "trackyard-clicks-retry";
export const CLICKS_RETRY_DLQ_NAME = "trackyard-clicks-retry-dlq";

export type RetriedClick = NewClick & { clickId: string };
export type ClickRetryMessage = { kind: "clicks"; clicks: RetriedClick[] } | { kind: "exit"; exit: ExitRecord };

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

/** Clicks as messages of at most MESSAGE_BYTES of JSON each. */
export function clickMessages(clicks: RetriedClick[]): ClickRetryMessage[] {
  const messages: ClickRetryMessage[] = [];
  let current: RetriedClick[] = [];
  let size = 0;
  for (const click of clicks) {
    const bytes = encoder.encode(JSON.stringify(click)).length + 1;
    if (current.length && size + bytes > MESSAGE_BYTES) {
      messages.push({ kind: "clicks", clicks: current });
      current = [];
      size = 0;
    }
    current.push(click);
    size += bytes;
  }
  if (current.length) messages.push({ kind: "clicks", clicks: current });
  return messages;
}

/** Sends messages in batches within the queue's limits. Throws when the queue refuses them. */
export async function sendForRetry(queue: Queue<ClickRetryMessage>, messages: ClickRetryMessage[]) {
  let batch: MessageSendRequest<ClickRetryMessage>[] = [];
  let size = 0;
  for (const body of messages) {
    const bytes = encoder.encode(JSON.stringify(body)).length;
    if (batch.length && (size + bytes > BATCH_BYTES || batch.length === 100)) {
      await queue.sendBatch(batch);
      batch = [];
      size = 0;
    }
    batch.push({ body });
    size += bytes;
  }
  if (batch.length) await queue.sendBatch(batch);
}

/** The next try's delay: doubling from FIRST_RETRY_SECONDS, at most MAX_RETRY_SECONDS. */
export const retryDelaySeconds = (attempts: number) => Math.min(FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_SECONDS);

const isClick = (c: unknown): c is RetriedClick => {
  const click = c as Partial<RetriedClick> | null;
  return typeof click?.clickId === "string" && typeof click.campaignId === "number" && typeof click.clickedAt === "number";
};

/** A message body of the shapes above (our own producer's), or null for anything else. */
function messageOf(body: unknown): ClickRetryMessage | null {
  const m = body as Partial<{ kind: string; clicks: unknown; exit: Partial<ExitRecord> }> | null;
  if (m?.kind === "clicks" && Array.isArray(m.clicks) && m.clicks.every(isClick)) return { kind: "clicks", clicks: m.clicks };
  const exit = m?.exit;
  if (m?.kind === "exit" && typeof exit?.clickId === "string" && typeof exit.offerId === "number" && typeof exit.at === "number") {
    return {
      kind: "exit",
      exit: { clickId: exit.clickId, offerId: exit.offerId, at: exit.at, ipAddress: exit.ipAddress ?? null, userAgent: exit.userAgent ?? null },
    };
  }
  return null;
}

/** Writes one message. Returns false when it must wait (an exit whose click is not stored yet). */
async function write(env: Pick<Bindings, "DB">, message: ClickRetryMessage) {
  const db = createDb(env.DB);
  if (message.kind === "clicks") {
    await insertClicksOnce(db, message.clicks);
    return true;
  }
  return (await recordExitOnce(db, message.exit)) === "recorded";
}

const describe = (m: ClickRetryMessage) => (m.kind === "clicks" ? `${m.clicks.length} clicks` : `the exit of click ${m.exit.clickId}`);

/** `trackyard-clicks-retry`: each message written, or retried later. */
export async function consumeClickRetries(batch: MessageBatch<unknown>, env: Pick<Bindings, "DB">) {
  for (const message of batch.messages) {
    const body = messageOf(message.body);
    if (!body) {
      console.error("click retry queue: a message of an unknown shape, dropped", message.id);
      message.ack();
      continue;
    }
    try {
      if (await write(env, body)) message.ack();
      else message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    } catch (err) {
      console.error(`click retry queue: ${describe(body)} not stored yet (try ${message.attempts})`, err);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}

/**
 * `trackyard-clicks-retry-dlq`: what the retry queue gave up on, tried every 30 minutes; after
 * the last try the clicks are logged by clickId (the only record left of them) and let go.
 */
export async function consumeClickDeadLetters(batch: MessageBatch<unknown>, env: Pick<Bindings, "DB">) {
  for (const message of batch.messages) {
    const body = messageOf(message.body);
    if (!body) {
      message.ack();
      continue;
    }
    let failure: unknown = "its click was never stored";
    try {
      if (await write(env, body)) {
        message.ack();
        continue;
      }
    } catch (err) {
      failure = err;
    }
    if (message.attempts < DLQ_ATTEMPTS) {
      message.retry({ delaySeconds: DLQ_RETRY_SECONDS });
      continue;
    }
    const ids = body.kind === "clicks" ? body.clicks.map((c) => c.clickId) : [body.exit.clickId];
    console.error(`click retry queue: ${describe(body)} lost after every retry: ${ids.join(", ")}`, failure);
    message.ack();
  }
}
