import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { ChannelDelivery } from "../../schemas/alerts";
import { BUILTIN_ALERTS, type BuiltinAlertKey } from "../../schemas/builtin-alerts";
import { builtinAlertFirings, builtinAlertSettings } from "../schema";

export interface BuiltinAlertState {
  key: BuiltinAlertKey;
  enabled: boolean;
  /** The number in force: the admin's, or the alert's default; null for alerts without one. */
  threshold: number | null;
}

/** Every built-in alert with its switch and number; an alert no admin touched is on with its default. */
export async function builtinAlertStates(db: Db): Promise<BuiltinAlertState[]> {
  const saved = new Map((await db.select().from(builtinAlertSettings)).map((r) => [r.alert, r]));
  return BUILTIN_ALERTS.map((a) => {
    const row = saved.get(a.key);
    return { key: a.key, enabled: row?.enabled ?? true, threshold: a.threshold ? (row?.threshold ?? a.threshold.default) : null };
  });
}

export const saveBuiltinAlert = (db: Db, key: BuiltinAlertKey, enabled: boolean, threshold: number | null, now: number) =>
  db
    .insert(builtinAlertSettings)
    .values({ alert: key, enabled, threshold, updatedAt: now })
    .onConflictDoUpdate({ target: builtinAlertSettings.alert, set: { enabled, threshold, updatedAt: now } });

/** Claims an occurrence: the row when this call is the first to see it, none when it already fired. */
export const claimFiring = (
  db: Db,
  values: { alert: BuiltinAlertKey; occurrence: string; firedAt: number; title: string; facts: { label: string; value: string }[] },
) => db.insert(builtinAlertFirings).values(values).onConflictDoNothing().returning({ id: builtinAlertFirings.id });

export const recordFiringDeliveries = (db: Db, id: number, deliveries: ChannelDelivery[]) =>
  db.update(builtinAlertFirings).set({ deliveries }).where(eq(builtinAlertFirings.id, id));

/** Each alert's latest firing, for the Built-in alerts screen. */
export async function latestFirings(db: Db) {
  const rows = await db.all<{ alert: string; firedAt: number; title: string }>(sql`
    select f.alert as alert, f.fired_at as firedAt, f.title as title from ${builtinAlertFirings} f
    where f.id = (select g.id from ${builtinAlertFirings} g where g.alert = f.alert order by g.fired_at desc, g.id desc limit 1)`);
  return new Map(rows.map((r) => [r.alert, r]));
}

export const firingsOf = (db: Db, key: BuiltinAlertKey) =>
  db.select().from(builtinAlertFirings).where(eq(builtinAlertFirings.alert, key)).orderBy(desc(builtinAlertFirings.firedAt), desc(builtinAlertFirings.id));
