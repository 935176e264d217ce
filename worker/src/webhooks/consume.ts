/**
 * The webhooks queue's consumer (docs/webhooks.md "How delivery works"): an event message is fanned
 * out into one delivery message per subscription that may receive it; a delivery is one signed POST,
 * logged, and retried by the queue with a doubling delay until WEBHOOK_MAX_ATTEMPTS. A run of
 * WEBHOOK_DISABLE_AFTER_FAILURES failed attempts switches the subscription off and tells its owner.
 */
import { postWithoutRedirects, snippet } from "../alerts/channels";
import { signedJsonHeaders } from "../alerts/webhook-signature";
import { auditStatement } from "../audit/record";
import { notifyUser } from "../db/queries/notifications";
import { receivingSubscriptions, recordAttempt, subscriptionById } from "../db/queries/webhooks";
import type { Bindings, Db } from "../env";
import type { FetchFn } from "../integrations/http";
import { createDb } from "../middleware/database";
import { WEBHOOK_DISABLE_AFTER_FAILURES, WEBHOOK_EVENTS, WEBHOOK_MAX_ATTEMPTS, type WebhookEventType } from "../schemas/webhooks";
import type { WebhookMessage } from "./queue";
import { openWebhookSecret } from "./secret";
import { allowsPrivateTargets, webhookTargetProblem } from "./target";

const DEFAULT_RETRY_SECONDS = 60;
/** Queues' longest delay. */
const MAX_RETRY_SECONDS = 12 * 60 * 60;

export interface WebhookDeps {
  fetch?: FetchFn;
  now?: () => number;
}

/** The wait before attempt `attempts + 1`: WEBHOOK_RETRY_SECONDS (default 60) doubled per attempt so far. */
export function webhookRetrySeconds(attempts: number, env: Pick<Bindings, "WEBHOOK_RETRY_SECONDS">) {
  const base = Number(env.WEBHOOK_RETRY_SECONDS ?? DEFAULT_RETRY_SECONDS);
  const first = Number.isFinite(base) && base >= 0 ? base : DEFAULT_RETRY_SECONDS;
  return Math.min(Math.round(first * 2 ** Math.max(0, attempts - 1)), MAX_RETRY_SECONDS);
}

const isType = (t: unknown): t is WebhookEventType => typeof t === "string" && Object.hasOwn(WEBHOOK_EVENTS, t);

function messageOf(body: unknown): WebhookMessage | null {
  const m = body as Partial<WebhookMessage> | null;
  if (!m || typeof m !== "object" || typeof m.event?.id !== "string") return null;
  if (m.kind === "event" && isType(m.event.type)) return m as WebhookMessage;
  if (m.kind === "delivery" && Number.isSafeInteger(m.subscriptionId)) return m as WebhookMessage;
  return null;
}

async function fanOut(db: Db, env: Bindings, m: Extract<WebhookMessage, { kind: "event" }>) {
  const ids = await receivingSubscriptions(db, m.event.type as WebhookEventType, m.mediaBuyer);
  for (let i = 0; i < ids.length; i += 100) {
    await env.WEBHOOKS_QUEUE.sendBatch(
      ids
        .slice(i, i + 100)
        .map((subscriptionId) => ({ body: { kind: "delivery", event: m.event, subscriptionId } satisfies WebhookMessage, contentType: "json" })),
    );
  }
}

type Outcome = { ok: boolean; status: number | null; error: string | null };

async function post(env: Bindings, url: string, secret: string, body: string, type: string, now: number, fetch: FetchFn): Promise<Outcome> {
  const problem = webhookTargetProblem(url, allowsPrivateTargets(env));
  if (problem) return { ok: false, status: null, error: `Not sent: ${problem}` };
  const headers = { ...(await signedJsonHeaders(secret, now, body, "Trackyard-Webhooks")), "X-Trackyard-Event": type };
  const answer = await postWithoutRedirects(fetch, url, { headers, body });
  if ("error" in answer) return { ok: false, status: null, error: `Not reached: ${answer.error}` };
  if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status, error: null };
  if (answer.status >= 300 && answer.status < 400)
    return { ok: false, status: answer.status, error: `Answered a redirect (${answer.status}), which is not followed` };
  return { ok: false, status: answer.status, error: `Answered ${answer.status}${answer.text.trim() ? `: ${snippet(answer.text)}` : ""}` };
}

/** One attempt; answers whether the queue should try again. */
async function deliver(db: Db, env: Bindings, m: Extract<WebhookMessage, { kind: "delivery" }>, attempt: number, deps: WebhookDeps): Promise<boolean> {
  const now = deps.now ?? Date.now;
  const sub = await subscriptionById(db, m.subscriptionId);
  // Deleted or switched off since the event was fanned out: nothing to deliver.
  if (!sub || sub.disabledAt !== null) return false;
  const body = JSON.stringify(m.event);
  const started = now();
  let outcome: Outcome;
  try {
    const secret = await openWebhookSecret(env, sub.userId, sub.secret);
    outcome = await post(env, sub.url, secret, body, m.event.type, started, deps.fetch ?? ((input, init) => fetch(input, init)));
  } catch (err) {
    outcome = { ok: false, status: null, error: `Not sent: ${err instanceof Error ? err.message : String(err)}` };
  }
  const at = now();
  const { disabledNow } = await recordAttempt(db, {
    subscriptionId: sub.id,
    eventId: m.event.id,
    eventType: m.event.type,
    attempt,
    ok: outcome.ok,
    status: outcome.status,
    error: outcome.error,
    durationMs: Math.max(0, at - started),
    at,
  });
  if (disabledNow) {
    const host = new URL(sub.url).host;
    await db.batch([
      notifyUser(
        db,
        sub.userId,
        {
          title: `Webhook to ${host} switched off`,
          text: `${WEBHOOK_DISABLE_AFTER_FAILURES} deliveries in a row failed (the last: ${outcome.error ?? `HTTP ${outcome.status}`}). Nothing is sent to it until you enable it again on Account.`,
          link: "/account",
          severity: "warning",
          sourceKind: "webhook",
        },
        at,
      ),
      auditStatement(db, { id: null, username: "webhooks" }, null, {
        action: "webhook.disable",
        kind: "webhook",
        id: sub.id,
        summary: `Webhook ${sub.url} of ${sub.username} switched off after ${WEBHOOK_DISABLE_AFTER_FAILURES} failed deliveries in a row`,
      }),
    ]);
  }
  return !outcome.ok && !disabledNow && attempt < WEBHOOK_MAX_ATTEMPTS;
}

export async function consumeWebhooks(batch: MessageBatch<unknown>, env: Bindings, deps: WebhookDeps = {}) {
  const db = createDb(env.DB);
  await Promise.all(
    batch.messages.map(async (message) => {
      const m = messageOf(message.body);
      if (!m) return message.ack();
      try {
        if (m.kind === "event") await fanOut(db, env, m);
        else if (await deliver(db, env, m, message.attempts, deps)) return message.retry({ delaySeconds: webhookRetrySeconds(message.attempts, env) });
        message.ack();
      } catch (err) {
        // Our own failure (D1, the queue): the queue tries again later.
        console.error(`webhooks: ${m.kind} of ${m.event.id} failed`, err);
        message.retry({ delaySeconds: webhookRetrySeconds(message.attempts, env) });
      }
    }),
  );
}
