import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../env";
import { alertChannels } from "../schema";

export type AlertChannelRow = typeof alertChannels.$inferSelect;

export const listChannels = (db: Db) => db.select().from(alertChannels).orderBy(asc(alertChannels.name), asc(alertChannels.id));

export const getChannel = async (db: Db, id: number) => (await db.select().from(alertChannels).where(eq(alertChannels.id, id)))[0];

export const channelsByIds = (db: Db, ids: number[]) =>
  ids.length ? db.select().from(alertChannels).where(inArray(alertChannels.id, ids)) : Promise.resolve([]);

/** The channels chosen to receive the built-in alerts. */
export const builtinChannelIds = async (db: Db) =>
  (await db.select({ id: alertChannels.id }).from(alertChannels).where(eq(alertChannels.builtin, true))).map((r) => r.id);

/** Records a delivery's answer on the channel: the Channels screen shows the last one. */
export const recordDelivery = (db: Db, id: number, status: string, now: number) =>
  db.update(alertChannels).set({ lastSentAt: now, lastStatus: status }).where(eq(alertChannels.id, id));

/** Marks a channel broken unless it already is: returns the row when this call marked it (so the admins are told once). */
export const markBroken = (db: Db, id: number, reason: string, now: number) =>
  db
    .update(alertChannels)
    .set({ brokenAt: now, brokenReason: reason })
    .where(and(eq(alertChannels.id, id), isNull(alertChannels.brokenAt)))
    .returning({ id: alertChannels.id, name: alertChannels.name });
