/**
 * Reading raw clicks across shard-days, as docs/click-storage.md "The Click Log: browse, filter and CSV over a range"
 * plans it: each object of the range gives its newest rows after the cursor, and the rows are
 * merged newest first, so a page asks every object of its days once, at the same time.
 * Not yet on the click path: the Click Log reads D1 until the shards hold the clicks
 * (docs/click-storage.md "Steps to build it").
 */
import type { ClickFilter } from "../db/queries/clicks";
import type { ClickPlace } from "./click-id";
import { shardName, type ClickShard, type LogCursor, type ShardLogRow } from "./click-shard";

/** Newest first, ties by click id: the order of every object's rows. */
const newerFirst = (a: ShardLogRow, b: ShardLogRow) => b.clickedAt - a.clickedAt || (a.clickId < b.clickId ? 1 : a.clickId > b.clickId ? -1 : 0);

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
  // One more than the page from each: a shard holding more than the page says so by it.
  const parts = await Promise.all(places.map((place) => shards.getByName(shardName(place)).rowsAfter(filter, after, limit + 1)));
  const merged = parts.flat().sort(newerFirst);
  const rows = merged.slice(0, limit);
  const last = rows.at(-1);
  return { rows, next: merged.length > limit && last ? { clickedAt: last.clickedAt, clickId: last.clickId } : null };
}
