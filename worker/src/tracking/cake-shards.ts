/**
 * CAKE's click report rows follow their clicks into the shard-day objects (docs/click-storage.md
 * "What else outgrows D1 at this load"). With sub2 being our click id, the report has a row per
 * click that reached the offer: in D1's cake_stats that is the one table still growing with the
 * clicks. A row whose sub2 is a layout-1 id naming a stored shard-day goes to that object instead
 * (its `cake_clicks`), which sums its rows over its own clicks for the attribution's rebuild; D1
 * keeps the rows of every other sub2 (its own clicks, those moved to the legacy objects, and the
 * ones naming no click: "Direct"), and every conversion: the ledger, cake_stats' conversions and
 * the copies of converted clicks (tracking/attributed-clicks.ts) stay as they are.
 *
 * A pull (sync/cake-sync.ts) places its rows a page of CAKE's report at a time and, every few
 * pages, records in D1 which objects get rows of which dates (`cake_click_shards`) and stages them
 * there, so a report of millions of rows is never held at once. Then it writes each object's and
 * asks every object that may hold rows of the rebuilt days for its sums: all shards of the UTC
 * days from the day before the rebuild's first to the day after the pull's last (CAKE dates a
 * click by the network's clock, within a day of ours, when the visitor goes on to the offer at
 * once), and every object recorded for those dates (one who came back days later). An object that
 * fails fails the pull: D1's rollups are left as the last whole pull wrote them, and the next pull
 * writes every object again.
 */
import { between, sql } from "drizzle-orm";
import { cakeClickShards } from "../db/schema";
import type { DayRange, ShardCakeParts } from "../db/queries/cake";
import { keptCampaigns } from "../db/queries/campaigns";
import type { Bindings, Db } from "../env";
import type { CakeClick } from "../integrations/cake";
import { jsonChunks } from "../lib/json-chunks";
import { clicksRetention } from "../retention/config";
import { LEGACY_DAY, clickDayOf, placeOfClickId, shardName, type ClickPlace } from "./click-id";
import { isStoredPlace, shardCounts } from "./shard-days";

export type CakeShardsEnv = Pick<Bindings, "CLICK_SHARDS" | "CLICKS_RETENTION_DAYS">;

/** Rows staged in one call: well under the 32 MiB a call's arguments may take. */
const ROWS_PER_CALL = 5_000;

/** A pull's click rows by store: D1's, and each shard-day object's by name. */
export interface PlacedCakeClicks {
  d1: CakeClick[];
  objects: Map<string, { place: ClickPlace; rows: CakeClick[] }>;
}

/**
 * Each row to the object its sub2 names, when that is a stored shard-day (the check the consumer
 * makes of our own ids, without the signature: a forged id that names a stored object is kept
 * there and joins no click, "Direct", as it would in D1); every other row to D1.
 */
export async function placeCakeClicks(db: Db, env: CakeShardsEnv, rows: CakeClick[], now: number): Promise<PlacedCakeClicks> {
  const counts = await shardCounts(db, now);
  const keptDays = clicksRetention(env.CLICKS_RETENTION_DAYS).days;
  const placed: PlacedCakeClicks = { d1: [], objects: new Map() };
  for (const row of rows) {
    const place = row.subid2 ? placeOfClickId(row.subid2, now) : null;
    if (!place || !isStoredPlace(counts, place, keptDays, now)) {
      placed.d1.push(row);
      continue;
    }
    const name = shardName(place);
    const group = placed.objects.get(name);
    if (group) group.rows.push(row);
    else placed.objects.set(name, { place, rows: [row] });
  }
  return placed;
}

const dayOfDate = (date: string) => clickDayOf(Date.parse(`${date}T00:00:00Z`));

/**
 * Stages rows of the pull (a few pages' worth) in their objects (`applyCakeClicksToShards` then
 * writes them), after recording in D1 which objects get rows of which dates: a write that is not
 * recorded could be missed by the next pull of its date (a record whose write failed only adds a
 * call). D1's own rows of these clicks, written before the rows went to the objects, count no
 * more clicks: the objects' rows replace them. They are zeroed before the objects are written, so
 * a D1 batch that fails after cannot leave the same clicks in both (the pull's batch drops the
 * empty rows).
 * Throws when an object fails. A pull in steps names the stagings (`batch`): each object stages a
 * name once.
 */
export async function stageCakeClicksInShards(
  db: Db,
  env: CakeShardsEnv,
  pull: { runId: number; pulled: DayRange; objects: PlacedCakeClicks["objects"]; batch?: string },
) {
  const written = [...pull.objects.values()].flatMap(({ place, rows }) => [...new Set(rows.map((r) => r.date))].map((date) => [date, place.day, place.shard]));
  for (const chunk of jsonChunks(written)) {
    await db.run(sql`insert into cake_click_shards (date, day, shard)
      select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') from json_each(${chunk}) where true
      on conflict do nothing`);
  }
  const moved = [...pull.objects.values()].flatMap(({ rows }) => rows.map((r) => [r.subid2]));
  for (const chunk of jsonChunks(moved)) {
    // `subid2 <> ''` lets SQLite look each id up in cake_stats' partial sub2 index; without it, each
    // page's statement walked every row of the pulled days by the date index.
    await db.run(sql`update cake_stats set clicks = 0
      where date between ${pull.pulled.start} and ${pull.pulled.end} and clicks <> 0 and subid2 <> ''
        and subid2 in (select json_extract(value, '$[0]') from json_each(${chunk}))`);
  }
  await Promise.all(
    [...pull.objects].map(async ([name, { rows }]) => {
      const shard = env.CLICK_SHARDS.getByName(name);
      for (let i = 0; i < rows.length; i += ROWS_PER_CALL) {
        await shard.stageCakeClicks(pull.runId, rows.slice(i, i + ROWS_PER_CALL), pull.batch === undefined ? undefined : `${pull.batch}/${i}`);
      }
    }),
  );
}

/**
 * Writes each object's staged rows of the pulled days, in every object that may hold rows of them
 * (so a row CAKE no longer reports goes): the objects of the days around them and every object
 * recorded for their dates (the staged ones among them). Returns the objects' sums over the
 * rebuilt days with the rows written. Throws when an object fails.
 */
export async function applyCakeClicksToShards(
  db: Db,
  env: CakeShardsEnv,
  pull: { runId: number; pulled: DayRange; rebuild: DayRange },
  now: number,
): Promise<ShardCakeParts & { written: number }> {
  const counts = await shardCounts(db, now);
  const places = new Map<string, ClickPlace>();
  const add = (place: ClickPlace) => {
    if (place.day !== LEGACY_DAY && place.shard < (counts.get(place.day) ?? 0)) places.set(shardName(place), place);
  };
  for (let day = dayOfDate(pull.rebuild.start) - 1; day <= dayOfDate(pull.pulled.end) + 1; day++) {
    for (let shard = 0; shard < (counts.get(day) ?? 0); shard++) add({ day, shard });
  }
  const recorded = await db
    .select({ day: cakeClickShards.day, shard: cakeClickShards.shard })
    .from(cakeClickShards)
    .where(between(cakeClickShards.date, pull.rebuild.start, pull.pulled.end));
  recorded.forEach(add);
  const parts: ShardCakeParts & { written: number } = { attributed: [], audience: [], written: 0 };
  if (!places.size) return parts;
  const kept = await keptCampaigns(db);
  const answers = await Promise.all(
    [...places.keys()].map((name) => env.CLICK_SHARDS.getByName(name).applyCakeClicks(pull.runId, pull.pulled, pull.rebuild, kept)),
  );
  for (const answer of answers) {
    parts.attributed.push(...answer.attributed);
    parts.audience.push(...answer.audience);
    parts.written += answer.written;
  }
  return parts;
}
