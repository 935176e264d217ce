/**
 * The Click Log over both stores of raw clicks: D1's `clicks` and the shard-day objects of the
 * range's days (docs/click-storage.md "The Click Log: browse, filter and CSV over a range"). Used
 * only when a day of the range has a shard count (tracking/shard-days.ts); otherwise the Click Log
 * reads D1 alone, as before.
 *
 * - **Rows**, newest first with ties by click id (an order every store shares): each store gives
 *   its first rows after the cursor and they are merged. A page by number asks each store for as
 *   many rows as the pages up to it hold, so deep pages cost more; the CSV walks by cursor, so every
 *   chunk costs the same.
 * - **Totals**: the rollups where they can answer (they hold the shard-days' clicks up to each
 *   object's watermarks) plus what each object holds past its watermarks; otherwise every store
 *   counts the filter's clicks. The two reads are not one statement, so a rollup run between them
 *   can count a click twice or not at all in that one answer; the next refresh is right.
 */
import {
  campaignNames,
  clickLogRowsAfter,
  countedClickTotals,
  rolledClickTotals,
  type ClickFilter,
  type ClickLogDays,
  type ClickLogRow,
  type ClickTotals,
} from "../db/queries/clicks";
import { shardRollupMarks } from "../db/queries/shard-rollup";
import type { Bindings, Db } from "../env";
import { clickDayOf, shardName, type ClickPlace } from "./click-id";
import type { LogCursor, ShardLogRow } from "./click-shard";
import { pageAcrossShards } from "./click-shards";
import { shardCounts } from "./shard-days";

export interface ClickStores {
  db: Db;
  shards: Bindings["CLICK_SHARDS"];
}

/** The shard-day objects holding clicks of [startMs, endMs): every shard of each day with a count. */
export async function shardPlacesOf(db: Db, startMs: number, endMs: number, now = Date.now()): Promise<ClickPlace[]> {
  const counts = await shardCounts(db, now);
  const places: ClickPlace[] = [];
  for (let day = clickDayOf(startMs); day <= clickDayOf(endMs - 1); day++) {
    for (let shard = 0; shard < (counts.get(day) ?? 0); shard++) places.push({ day, shard });
  }
  return places;
}

const newerFirst = (a: { clickedAt: number; clickId: string }, b: { clickedAt: number; clickId: string }) =>
  b.clickedAt - a.clickedAt || (a.clickId < b.clickId ? 1 : a.clickId > b.clickId ? -1 : 0);

/** Shard-day rows with their campaign's name (D1's; null for a campaign deleted since). */
async function named(db: Db, rows: ShardLogRow[]): Promise<ClickLogRow[]> {
  const names = await campaignNames(
    db,
    rows.map((r) => r.campaignId),
  );
  return rows.map((r) => ({ ...r, campaign: names.get(r.campaignId) ?? null }));
}

/** The filter's first `limit` rows after `after` across D1 and the objects, newest first. */
export async function clickRowsAcross({ db, shards }: ClickStores, places: ClickPlace[], filter: ClickFilter, after: LogCursor | null, limit: number) {
  const [own, sharded] = await Promise.all([clickLogRowsAfter(db, filter, after, limit), pageAcrossShards(shards, places, filter, after, limit)]);
  const rows = [...own, ...(await named(db, sharded.rows))];
  return rows.sort(newerFirst).slice(0, limit);
}

/** The filter's totals across D1 and the objects (see the module comment). */
async function totalsAcross({ db, shards }: ClickStores, places: ClickPlace[], filter: ClickFilter, days: ClickLogDays): Promise<ClickTotals> {
  const rolled = await rolledClickTotals(db, filter, days);
  const marks = rolled && (await shardRollupMarks(db, Math.min(...places.map((p) => p.day))));
  const base = rolled ?? (await countedClickTotals(db, filter));
  const parts = await Promise.all(
    places.map((place) => {
      const mark = marks?.get(`${place.day}/${place.shard}`);
      const since = marks ? { clickWatermark: mark?.clickWatermark ?? 0, exitWatermark: mark?.exitWatermark ?? 0 } : null;
      return shards.getByName(shardName(place)).totals(filter, since);
    }),
  );
  return parts.reduce((sum, p) => ({ total: sum.total + p.total, exits: sum.exits + p.exits, bots: sum.bots + p.bots }), base);
}

/** One page of the Click Log across D1 and the objects, with the totals of everything the filter matches. */
export async function clickLogPageAcross(stores: ClickStores, places: ClickPlace[], filter: ClickFilter, page: number, pageSize: number, days: ClickLogDays) {
  const [rows, totals] = await Promise.all([clickRowsAcross(stores, places, filter, null, page * pageSize), totalsAcross(stores, places, filter, days)]);
  return { ...totals, rows: rows.slice((page - 1) * pageSize) };
}
