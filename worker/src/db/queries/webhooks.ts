/**
 * Webhook subscriptions and their delivery log (docs/webhooks.md). Who receives an event is
 * decided here, at delivery time, from the owner's role, features and media buyers as they are now.
 */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { WEBHOOK_DISABLE_AFTER_FAILURES, WEBHOOK_EVENTS, type WebhookEventType } from "../../schemas/webhooks";
import { users, webhookDeliveries, webhookSubscriptions } from "../schema";

/** Deliveries kept per subscription; Account shows the latest WEBHOOK_LOG_SHOWN. */
const DELIVERIES_KEPT = 200;

const subscriptionColumns = {
  id: webhookSubscriptions.id,
  userId: webhookSubscriptions.userId,
  username: users.username,
  role: users.role,
  url: webhookSubscriptions.url,
  events: webhookSubscriptions.events,
  secret: webhookSubscriptions.secret,
  createdAt: webhookSubscriptions.createdAt,
  failures: webhookSubscriptions.failures,
  disabledAt: webhookSubscriptions.disabledAt,
  disabledReason: webhookSubscriptions.disabledReason,
  lastAttemptAt: sql<number | null>`(select max(d.at) from webhook_deliveries d where d.subscription_id = ${webhookSubscriptions.id})`,
  lastOk: sql<number | null>`(select d.ok from webhook_deliveries d where d.subscription_id = ${webhookSubscriptions.id} order by d.id desc limit 1)`,
};

/** A user's subscriptions (or everyone's), newest first. */
export const listSubscriptions = (db: Db, userId?: string) =>
  db
    .select(subscriptionColumns)
    .from(webhookSubscriptions)
    .innerJoin(users, eq(users.id, webhookSubscriptions.userId))
    .where(userId ? eq(webhookSubscriptions.userId, userId) : undefined)
    .orderBy(desc(webhookSubscriptions.id));

export type SubscriptionRow = Awaited<ReturnType<typeof listSubscriptions>>[number];

export async function subscriptionById(db: Db, id: number): Promise<SubscriptionRow | null> {
  const [row] = await db
    .select(subscriptionColumns)
    .from(webhookSubscriptions)
    .innerJoin(users, eq(users.id, webhookSubscriptions.userId))
    .where(eq(webhookSubscriptions.id, id));
  return row ?? null;
}

export const countSubscriptions = async (db: Db, userId: string) =>
  (
    await db
      .select({ n: sql<number>`count(*)` })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.userId, userId))
  )[0]?.n ?? 0;

/**
 * The switched-on subscriptions to `type` whose owner may receive this event now: admins any; a
 * member only events open to their features, and a conversion only of a media buyer assigned to them.
 */
export async function receivingSubscriptions(db: Db, type: WebhookEventType, mediaBuyer: string | null): Promise<number[]> {
  const who = WEBHOOK_EVENTS[type].who;
  const member =
    who === "admin"
      ? sql`0`
      : sql`exists (select 1 from user_permissions p where p.user_id = u.id and p.feature in (select value from json_each(${JSON.stringify(who.feature)})))
          and exists (select 1 from user_subid1_assignments a where a.user_id = u.id and a.subid1 = ${mediaBuyer ?? ""} and a.subid1 <> '')`;
  const rows = await db.all<{ id: number }>(sql`
    select s.id from webhook_subscriptions s join users u on u.id = s.user_id
    where s.disabled_at is null and exists (select 1 from json_each(s.events) e where e.value = ${type})
      and (u.role = 'admin' or (${member}))
    order by s.id`);
  return rows.map((r) => r.id);
}

/**
 * Whether any switched-on subscription takes events of `type`, whoever may receive them: with none,
 * the event is not put on the queue at all (webhooks/emit.ts).
 */
export async function anySubscriptionTakes(db: Db, type: WebhookEventType): Promise<boolean> {
  const [row] = await db.all<{ one: number }>(sql`
    select 1 as one from webhook_subscriptions s
    where s.disabled_at is null and exists (select 1 from json_each(s.events) e where e.value = ${type})
    limit 1`);
  return row !== undefined;
}

export interface Attempt {
  subscriptionId: number;
  eventId: string;
  eventType: string;
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  at: number;
}

/**
 * Logs an attempt and moves the subscription's run of failures: reset by a success, and at
 * WEBHOOK_DISABLE_AFTER_FAILURES the subscription is switched off. Answers whether this attempt
 * switched it off (exactly once per run: the count passes the limit only on its way up).
 */
export async function recordAttempt(db: Db, a: Attempt): Promise<{ disabledNow: boolean }> {
  const reason = `Switched off after ${WEBHOOK_DISABLE_AFTER_FAILURES} failed deliveries in a row; the last: ${a.error ?? `HTTP ${a.status}`}`;
  const [, updated] = await db.batch([
    db.insert(webhookDeliveries).values(a),
    db
      .update(webhookSubscriptions)
      .set(
        a.ok
          ? { failures: 0 }
          : {
              failures: sql`${webhookSubscriptions.failures} + 1`,
              disabledAt: sql`case when ${webhookSubscriptions.failures} + 1 = ${WEBHOOK_DISABLE_AFTER_FAILURES} and ${webhookSubscriptions.disabledAt} is null then ${a.at} else ${webhookSubscriptions.disabledAt} end`,
              disabledReason: sql`case when ${webhookSubscriptions.failures} + 1 = ${WEBHOOK_DISABLE_AFTER_FAILURES} and ${webhookSubscriptions.disabledAt} is null then ${reason} else ${webhookSubscriptions.disabledReason} end`,
            },
      )
      .where(eq(webhookSubscriptions.id, a.subscriptionId))
      .returning({ failures: webhookSubscriptions.failures, disabledAt: webhookSubscriptions.disabledAt }),
    db
      .delete(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, a.subscriptionId),
          lt(
            webhookDeliveries.id,
            sql`(select d.id from webhook_deliveries d where d.subscription_id = ${a.subscriptionId} order by d.id desc limit 1 offset ${DELIVERIES_KEPT - 1})`,
          ),
        ),
      ),
  ]);
  const row = updated[0];
  return { disabledNow: !a.ok && row?.failures === WEBHOOK_DISABLE_AFTER_FAILURES && row.disabledAt === a.at };
}

export const listDeliveries = (db: Db, subscriptionId: number, limit: number) =>
  db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subscriptionId)).orderBy(desc(webhookDeliveries.id)).limit(limit);
