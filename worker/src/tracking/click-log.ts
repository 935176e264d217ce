/**
 * The Click Log over both stores of raw clicks: D1's `clicks` and the shard-day objects of the
 * range's days (docs/click-storage.md "The Click Log: browse, filter and CSV over a range"). Used
 * only when a day of the range has a shard count (tracking/shard-days.ts); otherwise the Click Log
 * reads D1 alone, as before.
 *
 * - **Rows**, newest first with ties by click id (an order every store shares): each store gives
 *   its first rows after the cursor and they are merged. A page by number first finds where it
 *   starts from the keys alone (time, click id, campaign) of the rows before it (`pageStart`), then
 *   reads its rows after that cursor; the CSV walks by cursor, so every chunk costs the same.
 * - **Totals**: the rollups where they can answer (they hold the shard-days' clicks up to each
 *   object's watermarks) plus what today's and yesterday's objects hold past their watermarks
 *   (`livePlaces`); otherwise every store counts the filter's clicks. The two reads are not one
 *   statement, so a rollup run between them can count a click twice or not at all in that one
 *   answer; the next refresh is right.
 */
import {
  campaignNames,
  clickCountsByCampaign,
  clickFacets,
  clickLogKeysAfter,
  clickLogPage,
  clickLogRowsAfter,
  countedClickCountsByCampaign,
  countedClickTotals,
  rolledClickCountsByCampaign,
  rolledClickTotals,
  type CampaignClickCounts,
  type CampaignCounts,
  type ClickFacet,
  type ClickFilter,
  type ClickLogDays,
  type ClickLogRow,
  type ClickTotals,
} from "../db/queries/clicks";
import { clicksAnsweredBetween } from "../db/queries/click-pipeline";
import { shardRollupMarks } from "../db/queries/shard-rollup";
import type { KeptCampaign } from "../db/queries/campaigns";
import type { CampaignClickSpan } from "../db/queries/deletion-impact";
import type { Db } from "../env";
import type { Stores } from "./click-queue";
import { clickDayOf, clickDayStart, LEGACY_DAY, legacyPlaces, shardName, type ClickPlace } from "./click-id";
import { readClickMove } from "./click-move";
import type { LogCursor, ShardLogRow } from "./click-shard";
import { keysAcrossShards, newerFirst, pageAcrossShards, placeFilter } from "./click-shards";
import { hasLegacy, shardCounts } from "./shard-days";

/**
 * The objects holding clicks of [startMs, endMs): every shard of each day with a count, and the
 * legacy objects when the clicks moved from D1 reach into the range (tracking/click-move.ts).
 */
export async function shardPlacesOf(db: Db, startMs: number, endMs: number, now = Date.now()): Promise<ClickPlace[]> {
  const counts = await shardCounts(db, now);
  const places: ClickPlace[] = [];
  for (let day = clickDayOf(startMs); day <= clickDayOf(endMs - 1); day++) {
    for (let shard = 0; shard < (counts.get(day) ?? 0); shard++) places.push({ day, shard });
  }
  if (hasLegacy(counts)) {
    const move = await readClickMove(db);
    if (move?.fromMs != null && move.toMs != null && move.fromMs < endMs && move.toMs >= startMs)
      places.push(...legacyPlaces().map((place) => ({ ...place, upTo: move.point })));
  }
  return places;
}

/**
 * The filter's first `limit` rows after `after` across D1 and the objects, newest first, with their
 * campaign's name. A shard-day keeps the clicks of a campaign deleted since (D1 deletes its own with
 * the campaign): they are left out, and the stores are asked again past them until the rows are
 * `limit` or the stores have no more.
 */
export async function clickRowsAcross({ db, shards }: Stores, places: ClickPlace[], filter: ClickFilter, after: LogCursor | null, limit: number) {
  const rows: ClickLogRow[] = [];
  let cursor = after;
  for (;;) {
    const [own, sharded] = await Promise.all([clickLogRowsAfter(db, filter, cursor, limit), pageAcrossShards(shards, places, filter, cursor, limit)]);
    const names = await campaignNames(
      db,
      sharded.rows.map((r) => r.campaignId),
    );
    const merged: (ClickLogRow | ShardLogRow)[] = [...own, ...sharded.rows].sort(newerFirst).slice(0, limit);
    for (const r of merged) {
      if ("campaign" in r) rows.push(r);
      else if (names.has(r.campaignId)) rows.push({ ...r, campaign: names.get(r.campaignId) ?? null });
    }
    const last = merged.at(-1);
    if (rows.length >= limit || merged.length < limit || !last) return rows.slice(0, limit);
    cursor = { clickedAt: last.clickedAt, clickId: last.clickId };
  }
}

/**
 * The objects whose part past the rollup's watermarks the Click Log's totals, campaign list and
 * filter values add to the rollups: today's and yesterday's (UTC), where clicks still arrive, the
 * legacy objects (their moved clicks' new exits), as the Stats report's live part
 * (stats/shard-tail.ts), and any object the rollup has not counted at all yet (`marks` has none
 * for it: a day since the switch, or every object after a rebuild). The rollup asks an older day's
 * counted objects once a day, so an exit on a click days old shows in these figures up to a day
 * late; asking every object of a 90-day range would be 1,440 calls a refresh.
 */
export const livePlaces = (places: ClickPlace[], marks: Map<string, unknown>, now = Date.now()) =>
  places.filter((p) => p.day === LEGACY_DAY || p.day >= clickDayOf(now) - 1 || !marks.has(`${p.day}/${p.shard}`));

/**
 * Every object's counts per campaign: what each of the live ones (`livePlaces`) holds past its
 * watermarks when `rolled` (the rollups answer for the rest), else all of the matching clicks of
 * every object.
 */
export async function objectCounts(
  { db, shards }: Stores,
  every: ClickPlace[],
  filter: ClickFilter,
  rolled: boolean,
): Promise<{ counts: CampaignCounts[]; names: Map<number, string> }> {
  const marks = rolled ? await shardRollupMarks(db, every) : null;
  const places = marks ? livePlaces(every, marks) : every;
  const parts = await Promise.all(
    places.map((place) => {
      const mark = marks?.get(`${place.day}/${place.shard}`);
      const since = marks ? { clickWatermark: mark?.clickWatermark ?? 0, exitWatermark: mark?.exitWatermark ?? 0 } : null;
      return shards.getByName(shardName(place)).counts(placeFilter(filter, place), since);
    }),
  );
  // A campaign deleted since is in no D1 count (its clicks went with it): its objects' counts neither.
  const names = await campaignNames(
    db,
    parts.flat().map((c) => c.campaignId),
  );
  return { counts: parts.flat().filter((c) => names.has(c.campaignId)), names };
}

/**
 * The campaigns' clicks in every object that holds clicks (each kept shard-day, and the legacy
 * objects up to the move's point), one call each: what a deletion takes along besides D1's
 * (db/queries/deletion-impact.ts). Asked only when a campaign, lander or offer is about to be
 * deleted.
 */
export async function objectClickSpans({ db, shards }: Stores, campaigns: KeptCampaign[], now = Date.now()): Promise<CampaignClickSpan[]> {
  const places = await shardPlacesOf(db, clickDayStart(0), clickDayStart(clickDayOf(now) + 2), now);
  const parts = await Promise.all(places.map((place) => shards.getByName(shardName(place)).campaignSpans(campaigns, place.upTo)));
  return parts.flat();
}

/**
 * Clicks answered in [from, to) across D1 and the objects, counted up to `cap`: whether clicks were
 * flowing (the built-in alerts, the clicks queue's state), not a scan of a busy hour.
 */
export async function clicksBetween(stores: Stores, from: number, to: number, cap = 10_000): Promise<number> {
  const inD1 = await clicksAnsweredBetween(stores.db, from, to, cap);
  if (inD1 >= cap) return inD1;
  const places = await shardPlacesOf(stores.db, from, to);
  if (!places.length) return inD1;
  const { counts } = await objectCounts(stores, places, { startMs: from, endMs: to }, false);
  return Math.min(cap, inD1 + counts.reduce((sum, c) => sum + c.total, 0));
}

/** The filter's totals across D1 and the objects (see the module comment). */
async function totalsAcross(stores: Stores, places: ClickPlace[], filter: ClickFilter, days: ClickLogDays): Promise<ClickTotals> {
  const rolled = await rolledClickTotals(stores.db, filter, days);
  const base = rolled ?? (await countedClickTotals(stores.db, filter));
  const { counts } = await objectCounts(stores, places, filter, rolled !== null);
  return counts.reduce((sum, p) => ({ total: sum.total + p.total, exits: sum.exits + p.exits, bots: sum.bots + p.bots }), base);
}

/**
 * Clicks and exits per campaign across D1 and the range's objects (the Click Log's campaign list),
 * as the totals are counted; D1's alone when no day of the range has objects.
 */
export async function clickCountsByCampaignAcross(stores: Stores, filter: ClickFilter, days: ClickLogDays): Promise<CampaignClickCounts[]> {
  const places = await shardPlacesOf(stores.db, filter.startMs, filter.endMs);
  if (!places.length) return clickCountsByCampaign(stores.db, filter, days);
  const rolled = await rolledClickCountsByCampaign(stores.db, filter, days);
  const base = rolled ?? (await countedClickCountsByCampaign(stores.db, filter));
  const byCampaign = new Map(base.map((r) => [r.campaignId, { ...r }]));
  const { counts, names } = await objectCounts(stores, places, filter, rolled !== null);
  for (const c of counts) {
    const row = byCampaign.get(c.campaignId) ?? { campaignId: c.campaignId, campaignName: names.get(c.campaignId) ?? null, totalClicks: 0, exitClicks: 0 };
    row.totalClicks += c.total;
    row.exitClicks += c.exits;
    byCampaign.set(c.campaignId, row);
  }
  return [...byCampaign.values()].filter((r) => r.totalClicks > 0).sort((a, b) => a.campaignId - b.campaignId);
}

/**
 * The Click Log's filter values across D1 and the objects: clickFacets (the audience rollup, which
 * holds the objects' clicks up to their watermarks, and D1's newest) plus each live object's
 * clicks past its click watermark (`livePlaces`); most clicks first within a dimension. D1's alone
 * when no day of the range has objects.
 */
export async function clickFacetsAcross({ db, shards }: Stores, days: ClickLogDays & { startMs: number; endMs: number }) {
  const every = await shardPlacesOf(db, days.startMs, days.endMs);
  if (!every.length) return clickFacets(db, days);
  const [own, marks] = await Promise.all([clickFacets(db, days), shardRollupMarks(db, every)]);
  const places = livePlaces(every, marks);
  const parts = await Promise.all(
    places.map((place) =>
      shards.getByName(shardName(place)).facetsPast(days.startMs, days.endMs, marks.get(`${place.day}/${place.shard}`)?.clickWatermark ?? 0, place.upTo),
    ),
  );
  const sums = new Map<string, ClickFacet>();
  for (const f of [...own, ...parts.flat()]) {
    const key = `${f.dim}\u0000${f.value}`;
    const sum = sums.get(key);
    if (sum) sum.clicks += f.clicks;
    else sums.set(key, { ...f });
  }
  return [...sums.values()].sort((a, b) =>
    a.dim < b.dim ? -1 : a.dim > b.dim ? 1 : b.clicks - a.clicks || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
  );
}

/**
 * One page of the Click Log across D1 and the range's objects, with the totals of everything the
 * filter matches; D1's alone when no day of the range has objects.
 */
export async function clickLogPageAcross(stores: Stores, filter: ClickFilter, page: number, pageSize: number, days: ClickLogDays) {
  const places = await shardPlacesOf(stores.db, filter.startMs, filter.endMs);
  if (!places.length) return clickLogPage(stores.db, filter, page, pageSize, days);
  const rowsOfPage = async () => {
    const start = await pageStart(stores, places, filter, (page - 1) * pageSize);
    return start === PAST_THE_END ? [] : clickRowsAcross(stores, places, filter, start, pageSize);
  };
  const [rows, totals] = await Promise.all([rowsOfPage(), totalsAcross(stores, places, filter, days)]);
  return { ...totals, rows };
}

/** pageStart's answer for a page past the filter's last row. */
const PAST_THE_END = "past the end";

/**
 * Where a page by number starts: the cursor after the first `skip` rows across D1 and the objects
 * (null: the first row). Read from the rows' keys alone (time, click id, campaign), so a deep page
 * skips its earlier pages' rows for a few dozen bytes each instead of whole rows; the page itself
 * is then read after the cursor as the next page of a walk would be. A deleted campaign's rows in
 * the objects are skipped as clickRowsAcross skips them.
 */
async function pageStart({ db, shards }: Stores, places: ClickPlace[], filter: ClickFilter, skip: number): Promise<LogCursor | null | typeof PAST_THE_END> {
  let cursor: LogCursor | null = null;
  for (let left = skip; left > 0;) {
    const after: LogCursor | null = cursor;
    const [own, sharded] = await Promise.all([clickLogKeysAfter(db, filter, after, left), keysAcrossShards(shards, places, filter, after, left)]);
    const names = await campaignNames(
      db,
      sharded.map((k) => k.campaignId),
    );
    // D1's rows are of campaigns that exist (its clicks go with their campaign).
    const merged: (LogCursor & { kept: boolean })[] = [
      ...own.map((k) => ({ ...k, kept: true })),
      ...sharded.map((k) => ({ ...k, kept: names.has(k.campaignId) })),
    ]
      .sort(newerFirst)
      .slice(0, left);
    const last = merged.at(-1);
    if (!last) return PAST_THE_END;
    const kept = merged.filter((k) => k.kept);
    if (kept.length >= left) {
      const at = kept[left - 1]!;
      return { clickedAt: at.clickedAt, clickId: at.clickId };
    }
    if (merged.length < left) return PAST_THE_END;
    left -= kept.length;
    cursor = { clickedAt: last.clickedAt, clickId: last.clickId };
  }
  return cursor;
}
