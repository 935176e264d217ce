import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { AlertSeverity } from "../../schemas/alerts";
import { notifications, users } from "../schema";

/** How many of a user's latest notifications the header's list shows. */
export const NOTIFICATIONS_SHOWN = 20;

export interface NewNotification {
  title: string;
  text: string;
  link: string | null;
  severity: AlertSeverity;
  sourceKind: "rule" | "builtin" | "channel" | "webhook";
}

/** One notification for every admin, written in one statement (an admin added later does not see old ones). */
export const notifyAdmins = (db: Db, n: NewNotification, now: number) =>
  db.insert(notifications).select(
    db
      .select({
        id: sql<number>`null`.as("id"),
        userId: users.id,
        title: sql<string>`${n.title}`.as("title"),
        text: sql<string>`${n.text}`.as("text"),
        link: sql<string | null>`${n.link}`.as("link"),
        severity: sql<AlertSeverity>`${n.severity}`.as("severity"),
        sourceKind: sql<string>`${n.sourceKind}`.as("source_kind"),
        createdAt: sql<number>`${now}`.as("created_at"),
        readAt: sql<number | null>`null`.as("read_at"),
      })
      .from(users)
      .where(eq(users.role, "admin")),
  );

/** One notification for one user (a webhook subscription of theirs was switched off). */
export const notifyUser = (db: Db, userId: string, n: NewNotification, now: number) =>
  db.insert(notifications).values({ userId, title: n.title, text: n.text, link: n.link, severity: n.severity, sourceKind: n.sourceKind, createdAt: now });

export async function listNotifications(db: Db, userId: string) {
  const [items, [unread]] = await Promise.all([
    db
      .select({
        id: notifications.id,
        title: notifications.title,
        text: notifications.text,
        link: notifications.link,
        severity: notifications.severity,
        createdAt: notifications.createdAt,
        readAt: notifications.readAt,
      })
      .from(notifications)
      .where(eq(notifications.userId, userId))
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(NOTIFICATIONS_SHOWN),
    db
      .select({ n: sql<number>`count(*)` })
      .from(notifications)
      .where(and(eq(notifications.userId, userId), isNull(notifications.readAt))),
  ]);
  return { items, unread: unread?.n ?? 0 };
}

export const markAllRead = (db: Db, userId: string, now: number) =>
  db
    .update(notifications)
    .set({ readAt: now })
    .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)));

/** How long notifications are kept: the list shows the latest 20, so older ones are only clutter. */
export const NOTIFICATION_RETENTION_DAYS = 90;

export const purgeNotificationsBefore = (db: Db, before: number) => db.delete(notifications).where(lt(notifications.createdAt, before));
