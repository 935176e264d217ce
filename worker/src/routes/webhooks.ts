import { and, eq, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { decide } from "../access";
import { newSigningSecret } from "../alerts/webhook-signature";
import { audit } from "../audit/record";
import { countSubscriptions, listDeliveries, listSubscriptions, subscriptionById, type SubscriptionRow } from "../db/queries/webhooks";
import { webhookSubscriptions } from "../db/schema";
import type { AppEnv } from "../env";
import { badRequest, forbidden, notFound } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { signedInUser } from "../lib/request";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { createWebhookSchema, WEBHOOK_EVENTS, WEBHOOK_LOG_SHOWN, WEBHOOK_MAX_PER_USER, WEBHOOK_TEST_EVENT } from "../schemas/webhooks";
import { eventIdOf } from "../webhooks/emit";
import type { WebhookMessage } from "../webhooks/queue";
import { sealWebhookSecret } from "../webhooks/secret";
import { allowsPrivateTargets, webhookTargetProblem } from "../webhooks/target";

const me = signedInUser;

const shown = (s: SubscriptionRow) => ({
  id: s.id,
  url: s.url,
  events: s.events,
  owner: { id: s.userId, username: s.username },
  createdAt: iso(s.createdAt),
  failures: s.failures,
  disabledAt: isoOrNull(s.disabledAt),
  disabledReason: s.disabledReason,
  lastAttemptAt: isoOrNull(s.lastAttemptAt),
  lastOk: s.lastOk === null ? null : s.lastOk === 1,
});

/** The caller's own subscription, or any for an admin; someone else's is "not found" to a member. */
async function reachable(c: Context<AppEnv>, id: number): Promise<SubscriptionRow> {
  const user = me(c);
  const sub = await subscriptionById(c.get("db"), id);
  if (!sub || (sub.userId !== user.id && user.role !== "admin")) throw notFound("No such webhook");
  return sub;
}

/**
 * Webhooks out (docs/webhooks.md): each user's own subscriptions; admins list and manage anyone's.
 * API keys never call these (access.ts): a key that could add a subscription could copy the data
 * out for good, long after the key is revoked.
 */
export const webhookRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listSubscriptions(c.get("db"), me(c).id)).map(shown), 200))

  .get("/all", async (c) => c.json((await listSubscriptions(c.get("db"))).map(shown), 200))

  /** A new subscription to events the caller may read; its signing secret is in this answer only. */
  .post("/", validate("json", createWebhookSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    const { url, events: asked } = c.req.valid("json");
    const events = [...new Set(asked)];
    const problem = webhookTargetProblem(url, allowsPrivateTargets(c.env));
    if (problem) throw badRequest(problem);
    const refused = events.filter((e) => decide(WEBHOOK_EVENTS[e].who, user) !== "allow");
    if (refused.length) throw forbidden(`You cannot subscribe to ${refused.join(", ")}: only to events your own role and features can read`);
    if ((await countSubscriptions(db, user.id)) >= WEBHOOK_MAX_PER_USER)
      throw badRequest(`You have ${WEBHOOK_MAX_PER_USER} webhooks already: delete one first`);
    const secret = newSigningSecret();
    const sealed = await sealWebhookSecret(c.env, user.id, secret);
    const [[created]] = await db.batch([
      db.insert(webhookSubscriptions).values({ userId: user.id, url, events, secret: sealed }).returning({ id: webhookSubscriptions.id }),
      audit(c, {
        action: "webhook.create",
        kind: "webhook",
        id: sql`last_insert_rowid()`,
        summary: `${user.username} subscribed ${url} to ${events.join(", ")}`,
      }),
    ]);
    const sub = await subscriptionById(db, created!.id);
    return c.json({ secret, webhook: shown(sub!) }, 201);
  })

  /** The latest deliveries, newest first. */
  .get("/:id/deliveries", validate("param", idParam), async (c) => {
    const sub = await reachable(c, c.req.valid("param").id);
    const rows = await listDeliveries(c.get("db"), sub.id, WEBHOOK_LOG_SHOWN);
    return c.json(
      rows.map((d) => ({
        id: d.id,
        eventId: d.eventId,
        eventType: d.eventType,
        attempt: d.attempt,
        ok: d.ok,
        status: d.status,
        error: d.error,
        durationMs: d.durationMs,
        at: iso(d.at),
      })),
      200,
    );
  })

  /** Queues a `webhook.test` event for this subscription alone; its outcome appears in the log. */
  .post("/:id/test", validate("param", idParam), async (c) => {
    const sub = await reachable(c, c.req.valid("param").id);
    if (sub.disabledAt !== null) throw badRequest("This webhook is switched off: enable it first");
    const now = Date.now();
    const event = {
      id: await eventIdOf(WEBHOOK_TEST_EVENT, crypto.randomUUID()),
      type: WEBHOOK_TEST_EVENT,
      created_at: iso(now),
      data: { message: "A test event from Trackyard's Account screen", webhook_id: sub.id },
    } as const;
    await c.env.WEBHOOKS_QUEUE.send({ kind: "delivery", event, subscriptionId: sub.id } satisfies WebhookMessage, { contentType: "json" });
    return c.json({ queued: true, eventId: event.id }, 202);
  })

  /** Switches a subscription on again (after the failures switched it off): its run of failures starts from nothing. */
  .post("/:id/enable", validate("param", idParam), async (c) => {
    const sub = await reachable(c, c.req.valid("param").id);
    const db = c.get("db");
    await db.batch([
      db
        .update(webhookSubscriptions)
        .set({ disabledAt: null, disabledReason: null, failures: 0 })
        .where(and(eq(webhookSubscriptions.id, sub.id), sql`${webhookSubscriptions.disabledAt} is not null`)),
      audit(c, { action: "webhook.enable", kind: "webhook", id: sub.id, summary: `${me(c).username} enabled webhook ${sub.url} again` }, { ifChanged: true }),
    ]);
    return c.json(shown((await subscriptionById(db, sub.id))!), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const user = me(c);
    const sub = await reachable(c, c.req.valid("param").id);
    const db = c.get("db");
    await db.batch([
      db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id)),
      audit(
        c,
        {
          action: "webhook.delete",
          kind: "webhook",
          id: sub.id,
          summary: `${user.username} deleted webhook ${sub.url}${sub.userId === user.id ? "" : ` of ${sub.username}`}`,
        },
        { ifChanged: true },
      ),
    ]);
    return c.json({ ok: true }, 200);
  });
