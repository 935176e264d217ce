/**
 * Raw clicks across shard-days. Writing (the clicks queue's consumer, tracking/click-queue.ts):
 * a batch's clicks grouped by the object their id names, one call per object, all at once; an
 * exit to its click's object, which keeps it until the click arrives. Reading, as
 * docs/click-storage.md "The Click Log: browse, filter and CSV over a range" plans it: each object of the range gives its
 * newest rows after the cursor, and the rows are merged newest first, so a page asks every object
 * of its days once, at the same time (tracking/click-log.ts adds D1's rows). Only layout-1 ids
 * name an object; `/r/` makes them for the days with a shard count (tracking/shard-days.ts).
 */
import type { ClickFilter, ExitRecord, NewClick } from "../db/queries/clicks";
import { clickDayStart, LEGACY_DAY, shardName, type ClickPlace } from "./click-id";
import type { ClickShard, LogCursor, ShardLogKey, ShardLogRow } from "./click-shard";

/** The filter as `place` is read with: a legacy object's only up to the move's point (click-id.ts `ClickPlace.upTo`). */
export const placeFilter = <F extends ClickFilter>(filter: F, place: ClickPlace): F => (place.upTo === undefined ? filter : { ...filter, maxId: place.upTo });

/** Newest first, ties by click id: the order of every object's rows, and of D1's merged with them (tracking/click-log.ts). */
export const newerFirst = (a: LogCursor, b: LogCursor) => b.clickedAt - a.clickedAt || (a.clickId < b.clickId ? 1 : a.clickId > b.clickId ? -1 : 0);

/**
 * One page of the filter's clicks across `places` (a range's shard-days), after `after`: the
 * rows, and the cursor of the next page (null when this one is the last).
 */
export async function pageAcrossShards(
  shards: DurableObjectNamespace<ClickShard>,
  places: ClickPlace[],
  filter: ClickFilter,
  after: LogCursor | null,
  limit: number,
): Promise<{ rows: ShardLogRow[]; next: LogCursor | null }> {
  const { found, next } = await acrossShardDays(places, after, limit, (some) =>
    Promise.all(some.map((place) => shards.getByName(shardName(place)).rowsAfter(placeFilter(filter, place), after, limit + 1))),
  );
  return { rows: found, next };
}

/** pageAcrossShards's rows as their keys only (time, click id, campaign): what a deep page by number skips. */
export async function keysAcrossShards(
  shards: DurableObjectNamespace<ClickShard>,
  places: ClickPlace[],
  filter: ClickFilter,
  after: LogCursor | null,
  limit: number,
): Promise<ShardLogKey[]> {
  const { found } = await acrossShardDays(places, after, limit, (some) =>
    Promise.all(some.map((place) => shards.getByName(shardName(place)).keysAfter(placeFilter(filter, place), after, limit + 1))),
  );
  return found;
}

/**
 * The first `limit` of what `ask` reads from the objects of `places` after `after`, newest first,
 * and the cursor past them (null when there is no more).
 *
 * A shard-day holds the clicks of its UTC day only, so the days are asked newest first, from the
 * cursor's day down (1 day, then 2, then 4: a sparse filter still takes few rounds), and stop once
 * more than `limit` rows are at or after the start of the oldest day asked: every day not asked
 * holds only older clicks, so none of them would be among the first. A page, or a chunk of the CSV,
 * of a 90-day range then asks the objects of a day or two instead of all 1,440. The legacy objects
 * (their clicks span many days) are asked with the first round. `ask` reads one more than `limit`
 * from each object: an object holding more says so by it.
 */
async function acrossShardDays<T extends LogCursor>(
  places: ClickPlace[],
  after: LogCursor | null,
  limit: number,
  ask: (some: ClickPlace[]) => Promise<T[][]>,
): Promise<{ found: T[]; next: LogCursor | null }> {
  const days = [...new Set(places.filter((p) => p.day !== LEGACY_DAY).map((p) => p.day))]
    .filter((day) => after === null || clickDayStart(day) <= after.clickedAt)
    .sort((a, b) => b - a);
  const found = (await ask(places.filter((p) => p.day === LEGACY_DAY))).flat();
  for (let next = 0, round = 1; next < days.length; next += round, round *= 2) {
    const asked = days.slice(next, next + round);
    found.push(...(await ask(places.filter((p) => asked.includes(p.day)))).flat());
    const oldest = clickDayStart(asked.at(-1)!);
    if (found.filter((r) => r.clickedAt >= oldest).length > limit) break;
  }
  const merged = found.sort(newerFirst);
  const first = merged.slice(0, limit);
  const last = first.at(-1);
  return { found: first, next: merged.length > limit && last ? { clickedAt: last.clickedAt, clickId: last.clickId } : null };
}

/** Items grouped by the object their place names, each group in the order given. */
function byObject<T>(placed: { place: ClickPlace; item: T }[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const { place, item } of placed) {
    const name = shardName(place);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return groups;
}

/**
 * Clicks to the shard-days their ids name (each with its place), one call per object, all at
 * once. Throws when an object fails: the queue retries the message, and a repeat stores nothing.
 * A different click under a stored id is logged, never taken for a repeat.
 */
export async function writeToShards(shards: DurableObjectNamespace<ClickShard>, placed: { place: ClickPlace; item: NewClick }[]) {
  await Promise.all(
    [...byObject(placed)].map(async ([name, rows]) => {
      const { conflicts, misplaced } = await shards.getByName(name).write(rows);
      if (conflicts.length)
        console.error(`clicks: ${name} holds other clicks under ${conflicts.length} of these ids, kept as they were: ${conflicts.join(", ")}`);
      if (misplaced.length) console.error(`clicks: ${name} refused ${misplaced.length} clicks whose ids name another shard-day: ${misplaced.join(", ")}`);
    }),
  );
}

/**
 * Exits to their clicks' shard-days: recorded there, or kept there until their click arrives. One
 * call per object with its exits in the order they came, all objects at once. Throws when an
 * object fails: the queue retries the message, and an exit recorded already is not recorded twice.
 */
export async function exitsToShards(shards: DurableObjectNamespace<ClickShard>, placed: { place: ClickPlace; item: ExitRecord }[]) {
  await Promise.all([...byObject(placed)].map(([name, exits]) => shards.getByName(name).recordExits(exits)));
}
