/**
 * The shard-day clicks CAKE reports (sub2 = our click id: its conversions, and the clicks of its
 * click report), copied into D1's `attributed_clicks` (db/schema.ts) when the postback or the pull
 * sees them. The CAKE attribution (db/queries/cake.ts) and the split tests
 * (db/queries/split-tests.ts) then join a conversion's click by its id in D1 whichever store holds
 * it: the click's campaign, ad values, audience and path. A copy leaves the visitor's values out
 * (`VISITOR_COLUMNS`); the Events API's claims read those from the click's object
 * (`shardClicksFor`). docs/click-storage.md "Exits, postbacks and conversions sent to TikTok"
 * plans these lookups as one call per object with all of its ids; this is that.
 *
 * A sub2 is CAKE's value, from outside: only a layout-1 id that passes its check, naming a kept
 * day and a shard that day had, is copied (tracking/click-id.ts; TikTok's claim reads with the
 * shape alone, `shardClicksFor`), and an id copied already is not asked again. Once D1's clicks
 * are being moved (tracking/click-move.ts), an old id (from before the check, or of layout 0) is
 * asked of its legacy object too; one not moved yet is D1's, which the attribution joins as before
 * (and the move copies it when it goes). A lookup that fails is logged and its revenue shows as
 * "Direct" until the next pull of its day, which asks again and rebuilds the day's attribution.
 */
import { sql } from "drizzle-orm";
import { insertClicksOnce, type NewClick } from "../db/queries/clicks";
import { attributedClicks } from "../db/schema";
import type { Bindings, Db } from "../env";
import { clicksRetention } from "../retention/config";
import { checkClickId, legacyPlace, shardName, uncheckedClickId } from "./click-id";
import { hasLegacy, isStoredPlace, shardCounts } from "./shard-days";

type AttributedEnv = Pick<Bindings, "CLICK_SHARDS" | "SESSION_SECRET" | "CLICKS_RETENTION_DAYS">;

/** Ids asked of D1 at once (one JSON parameter). */
const IDS_PER_QUERY = 1000;

/**
 * The objects holding the clicks these sub2 values name, with their ids: only ids that pass their
 * check (`signed`; else only their shape, for a read that finds nothing under a forged id) and
 * name a kept shard-day, or (once D1's clicks are being moved) a legacy object.
 */
async function clickObjects(db: Db, env: AttributedEnv, sub2s: Iterable<string>, now: number, signed: boolean): Promise<Map<string, string[]>> {
  const byObject = new Map<string, string[]>();
  const distinct = new Set([...sub2s].filter((s) => s !== ""));
  if (!distinct.size) return byObject;
  const counts = await shardCounts(db, now);
  const keptDays = clicksRetention(env.CLICKS_RETENTION_DAYS).days;
  for (const raw of distinct) {
    const checked = signed ? await checkClickId(env.SESSION_SECRET, raw, now) : uncheckedClickId(raw, now);
    if (!checked) continue;
    let name: string;
    if (checked.kind !== "sharded") {
      if (!hasLegacy(counts)) continue;
      name = shardName(legacyPlace(checked.clickId));
    } else if (isStoredPlace(counts, checked.place, keptDays, now)) name = shardName(checked.place);
    else continue;
    const ids = byObject.get(name);
    if (ids) ids.push(checked.clickId);
    else byObject.set(name, [checked.clickId]);
  }
  return byObject;
}

/**
 * What a copy leaves out: the visitor's address, agent, ttclid, place and network. Its readers
 * read the click's campaign, ad values, audience (country, device, OS, browser), bot flag and path;
 * TikTok's claim reads the visitor's values from the click's object (`shardClicksFor`), so they
 * stay with the raw click, for its retention, and never in D1 (docs/click-storage.md "What a conversion keeps in D1").
 */
export const VISITOR_COLUMNS = ["ipAddress", "userAgent", "ttclid", "region", "city", "asn", "asOrganization", "botReason"] as const;

/** A click as its copy keeps it: every visitor column null. */
const withoutVisitor = <T extends NewClick>(click: T): T => ({ ...click, ...Object.fromEntries(VISITOR_COLUMNS.map((c) => [c, null])) });

/** Copies the shard-day clicks among these sub2 values that are not copied yet; returns how many were copied now. */
export async function copyAttributedClicks(db: Db, env: AttributedEnv, sub2s: Iterable<string>, now = Date.now()): Promise<number> {
  const byObject = await clickObjects(db, env, sub2s, now, true);
  const wanted = [...byObject.values()].flat();
  if (!wanted.length) return 0;
  const copied = new Set<string>();
  for (let i = 0; i < wanted.length; i += IDS_PER_QUERY) {
    const rows = await db
      .select({ clickId: attributedClicks.clickId })
      .from(attributedClicks)
      .where(sql`${attributedClicks.clickId} in (select value from json_each(${JSON.stringify(wanted.slice(i, i + IDS_PER_QUERY))}))`);
    for (const row of rows) copied.add(row.clickId);
  }
  const found = await Promise.all(
    [...byObject].map(async ([name, ids]) => {
      const missing = ids.filter((id) => !copied.has(id));
      if (!missing.length) return [];
      try {
        return await env.CLICK_SHARDS.getByName(name).clickRows(missing);
      } catch (err) {
        console.error(`attributed clicks: ${name} failed to give ${missing.length} clicks; attributed at the next pull`, err);
        return [];
      }
    }),
  );
  const rows = found.flat().map(({ id: _rowid, ...click }) => withoutVisitor(click));
  return rows.length ? insertClicksOnce(db, rows, "attributed_clicks") : 0;
}

/**
 * The shard-day (and legacy) clicks among these sub2 values, whole, from their objects: one call
 * per object with all of its ids, keyed by the sub2 as given. TikTok's claim reads the visitor's
 * values here, not from D1. The ids' signatures are not checked: this only reads, and a forged id
 * finds no click, as it would in D1. The checks took about two fifths of reading a hand-on's
 * 5,000 clicks (docs/click-storage.md "What a conversion keeps in D1"). Throws when an object
 * fails, so the caller claims nothing it would judge without its click (a conversion is claimed
 * again by the next pull, or by the cron's sweep for a postback).
 */
export async function shardClicksFor(db: Db, env: AttributedEnv, sub2s: Iterable<string>, now = Date.now()): Promise<Map<string, NewClick>> {
  const given = [...sub2s];
  const byObject = await clickObjects(db, env, given, now, false);
  const found = await Promise.all([...byObject].map(([name, ids]) => env.CLICK_SHARDS.getByName(name).clickRows(ids)));
  const byId = new Map(found.flat().map(({ id: _rowid, ...click }) => [click.clickId, click]));
  const bySub2 = new Map<string, NewClick>();
  for (const sub2 of given) {
    const click = byId.get(sub2.toLowerCase());
    if (click) bySub2.set(sub2, click);
  }
  return bySub2;
}

/** Deletes the copies of clicks older than the kept days (their shard-days are no longer read), 5,000 a statement; how many. */
export async function purgeAttributedClicks(db: Db, keptDays: number, now: number) {
  const before = now - (keptDays + 1) * 24 * 60 * 60 * 1000;
  const result = await db.run(sql`
    delete from attributed_clicks where id in (select id from attributed_clicks where clicked_at < ${before} limit 5000)`);
  return result.meta.changes;
}
