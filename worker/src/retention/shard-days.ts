/**
 * The retention's part for the shard-day objects
 * (docs/click-storage.md "Retention and the R2 archives"). A day of the archive (the click
 * rollup's day, in the report time zone) may hold clicks in D1 and in the objects of the one or
 * two UTC days it overlaps: the archive Workflow
 * writes them all into the day's one file (retention/archive-day.ts reads D1 first, then each
 * object in turn), checks every store's count, and once the archived days cover a whole UTC day,
 * empties each of that day's objects with one `deleteAll()` and marks the day emptied in D1's
 * `click_shard_days`. From then on nothing reads the day's objects (tracking/shard-days.ts).
 *
 * What keeps it safe:
 * - A day is archived only once the rollup has counted every click of its objects, as for D1's
 *   clicks; an object is emptied only once the rollup has also counted its last exit (its exits
 *   stop with the day's retention: a click id of a day no longer kept gets no lookup).
 * - A campaign deleted since keeps its clicks in the objects (D1's went with it): they are in no
 *   file and no count here, and go with the object.
 * - Each step can run again: an object emptied already is empty, and the day is marked once.
 */
import { and, eq, isNull, lt } from "drizzle-orm";
import type { HeldClicks } from "../db/queries/click-archives";
import { shardRollupMarks } from "../db/queries/shard-rollup";
import { campaigns, clickMoves, clickShardDays } from "../db/schema";
import type { Bindings, Db } from "../env";
import { clickDayOf, clickDayStart, LEGACY_DAY, LEGACY_SHARDS, legacyPlaces, shardName, type ClickPlace } from "../tracking/click-id";
import { clicksToMove, readClickMove } from "../tracking/click-move";
import { objectCounts } from "../tracking/click-log";
import { forgetShardCounts, shardDaysFrom } from "../tracking/shard-days";

export type ClickShards = Bindings["CLICK_SHARDS"];

/**
 * The time of the objects' first click at or after `fromMs` of a campaign that still exists, or
 * null: the day holding it is the next to archive when D1 has none older. Days are asked oldest
 * first, each day's objects at once, until one has such a click.
 */
export async function oldestShardClickFrom(db: Db, shards: ClickShards, fromMs: number): Promise<number | null> {
  const [days, legacy] = await Promise.all([shardDaysFrom(db, clickDayOf(fromMs)), legacyHeld(db)]);
  if (!days.length && !legacy) return null;
  const ids = (await db.select({ id: campaigns.id }).from(campaigns)).map((c) => c.id);
  if (!ids.length) return null;
  const oldest = (found: (number | null)[]) => {
    const times = found.filter((at): at is number => at !== null);
    return times.length ? Math.min(...times) : null;
  };
  // The legacy objects hold the clicks moved from D1, of any day before the switch.
  const moved = legacy ? oldest(await Promise.all(legacyPlaces().map((place) => shards.getByName(shardName(place)).oldestFrom(fromMs, ids)))) : null;
  for (const { day, shards: count } of days) {
    if (clickDayStart(day + 1) <= fromMs) continue;
    if (moved !== null && moved < clickDayStart(day)) return moved;
    const found = oldest(await Promise.all(Array.from({ length: count }, (_, shard) => shards.getByName(shardName({ day, shard })).oldestFrom(fromMs, ids))));
    if (found !== null) return moved === null ? found : Math.min(found, moved);
  }
  return moved;
}

/** The move of D1's clicks when its legacy objects are not emptied yet (tracking/click-move.ts). */
async function legacyHeld(db: Db) {
  const [row] = await db
    .select({ day: clickShardDays.day })
    .from(clickShardDays)
    .where(and(eq(clickShardDays.day, LEGACY_DAY), isNull(clickShardDays.emptiedAt)));
  return row ? readClickMove(db) : null;
}

/** Each object's extent beside the rollup's watermarks for it. */
async function extents(db: Db, shards: ClickShards, places: ClickPlace[]) {
  if (!places.length) return [];
  const [marks, found] = await Promise.all([shardRollupMarks(db, places), Promise.all(places.map((place) => shards.getByName(shardName(place)).extent()))]);
  return places.map((place, i) => ({ place, extent: found[i]!, mark: marks.get(`${place.day}/${place.shard}`) ?? null }));
}

type Extent = Awaited<ReturnType<typeof extents>>[number];
/** Whether the rollup has counted every click the object holds. */
const clicksCounted = ({ extent, mark }: Extent) => extent.maxId === null || extent.maxId <= (mark?.clickWatermark ?? 0);
/** ... and every exit. */
const exitsCounted = ({ extent, mark }: Extent) => extent.lastExitAt === null || extent.lastExitAt <= (mark?.exitWatermark ?? 0);

/** The objects among `places` holding clicks the click rollup has not counted yet. */
export async function uncountedPlaces(db: Db, shards: ClickShards, places: ClickPlace[]): Promise<ClickPlace[]> {
  return (await objectsCounted(db, shards, places)).uncounted;
}

/**
 * The objects among `places` holding clicks the click rollup has not counted yet, and what it
 * counted of the others: their highest click ids, which the archive's record checks again in its
 * own statement (db/queries/click-archives.ts `recordArchive`), so a rebuild between this read and
 * the record (the rollup's rows of the objects start over) keeps the day from being recorded.
 */
export async function objectsCounted(db: Db, shards: ClickShards, places: ClickPlace[]): Promise<{ uncounted: ClickPlace[]; held: HeldClicks[] }> {
  const found = await extents(db, shards, places);
  return {
    uncounted: found.filter((e) => !clicksCounted(e)).map((e) => e.place),
    held: found.flatMap(({ place, extent }) => (extent.maxId === null ? [] : [{ day: place.day, shard: place.shard, maxId: extent.maxId }])),
  };
}

/** The clicks and exits of [startMs, endMs) the objects hold for campaigns that still exist: what the day's file must hold of them. */
export async function shardClicksOfSpan(db: Db, shards: ClickShards, places: ClickPlace[], startMs: number, endMs: number) {
  const { counts } = await objectCounts({ db, shards }, places, { startMs, endMs }, false);
  return { rows: counts.reduce((sum, c) => sum + c.total, 0), exits: counts.reduce((sum, c) => sum + c.exits, 0) };
}

export interface EmptiedShardDays {
  /** The UTC days (days since 2020-01-01) whose objects this call emptied. */
  emptied: number[];
  /** Why a day wholly archived is not emptied yet (null: every such day is). */
  waiting: string | null;
}

/**
 * Empties the objects of every UTC day wholly before `endMs` (the end of the archived days: each
 * of their clicks is in a verified file), oldest first, once the rollup has counted each object's
 * clicks and exits, and marks the day emptied. A day not counted yet stops it: the run ends
 * waiting, and the cron's next run of the day carries on.
 */
export async function emptyArchivedShardDays(db: Db, shards: ClickShards, endMs: number, now: number): Promise<EmptiedShardDays> {
  const result: EmptiedShardDays = { emptied: [], waiting: null };
  for (const { day, shards: count } of await shardDaysFrom(db, 0)) {
    if (clickDayStart(day + 1) > endMs) break;
    const places = Array.from({ length: count }, (_, shard) => ({ day, shard }));
    const behind = (await extents(db, shards, places)).filter((e) => !clicksCounted(e) || !exitsCounted(e));
    if (behind.length) {
      result.waiting = `${behind.length} of day ${day}'s ${count} shard-day objects are kept until the click rollup has counted their clicks and exits`;
      return result;
    }
    await Promise.all(places.map((place) => shards.getByName(shardName(place)).empty()));
    await db.update(clickShardDays).set({ emptiedAt: now }).where(eq(clickShardDays.day, day));
    forgetShardCounts();
    result.emptied.push(day);
  }
  result.waiting = await dropArchivedLegacy(db, shards, endMs, now);
  return result;
}

/**
 * The legacy objects' part (tracking/click-move.ts): their clicks before `endMs` deleted row by
 * row (they hold any day before the switch), once the rollup has counted their clicks and exits;
 * once none is left and D1 has nothing more to move, each is emptied with `deleteAll()` and
 * LEGACY_DAY marked emptied, after which nothing reads them. Returns why they wait, or null.
 */
async function dropArchivedLegacy(db: Db, shards: ClickShards, endMs: number, now: number): Promise<string | null> {
  const move = await legacyHeld(db);
  if (!move || move.fromMs === null || move.fromMs >= endMs) return null;
  const behind = (await extents(db, shards, legacyPlaces())).filter((e) => !clicksCounted(e) || !exitsCounted(e));
  if (behind.length) return `${behind.length} of the ${LEGACY_SHARDS} legacy objects are kept until the click rollup has counted their clicks and exits`;
  const left = await Promise.all(legacyPlaces().map((place) => shards.getByName(shardName(place)).dropBefore(endMs)));
  // What they hold starts at the archived days' end now.
  await db
    .update(clickMoves)
    .set({ fromMs: endMs })
    .where(and(eq(clickMoves.id, move.id), lt(clickMoves.fromMs, endMs)));
  if (left.some((n) => n > 0) || (await clicksToMove(db, move))) return null;
  await Promise.all(legacyPlaces().map((place) => shards.getByName(shardName(place)).empty()));
  await db.update(clickShardDays).set({ emptiedAt: now }).where(eq(clickShardDays.day, LEGACY_DAY));
  forgetShardCounts();
  return null;
}
