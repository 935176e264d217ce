import { applyCakePull, type DayRange, type ShardCakeParts } from "../db/queries/cake";
import { archivedFrontier } from "../db/queries/click-archives";
import type { Db } from "../env";
import { createCakeClient, type CakeClick, type CakeConfig, type CakeConversion } from "../integrations/cake";
import { shiftDay, splitDays } from "../lib/calendar-days";
import type { PlacedCakeClicks } from "../tracking/cake-shards";
import { ExternalApiError, type HttpOptions } from "../integrations/http";

/**
 * How long a postback may wait for the pull to report its conversion before a pull covering its
 * day retires it. CAKE's reports trail its postbacks by minutes; hours of margin keep a slow
 * report from briefly hiding a real conversion, and bound how long a postback the pull never
 * reports (reversed, or filed under another id) can count.
 */
export const POSTBACK_GRACE_MS = 6 * 60 * 60 * 1000;
/**
 * Days before the pulled ones whose conversions are recomputed too: a postback is dated by its
 * arrival in the report time zone, up to a day before the network's day for it.
 */
const REBUILD_MARGIN_DAYS = 2;

/**
 * A row's day kept inside the days it was asked for. CAKE files every row it returns under one of
 * those days by its own clock; a date that reads outside them (⚠ an instant CAKE sent, read in a
 * report time zone other than the network's) belongs to the nearest of them. Without this, a row
 * would land on a day another request covers, and each run would take it away and put it back.
 */
const withinDays = <T extends { date: string }>(row: T, days: DayRange): T =>
  row.date < days.start ? { ...row, date: days.start } : row.date > days.end ? { ...row, date: days.end } : row;

/** Clicks summed per cake_stats key. */
export function aggregateClicks(clicks: CakeClick[], days: DayRange): CakeClick[] {
  const byKey = new Map<string, CakeClick>();
  for (const raw of clicks) {
    const c = withinDays(raw, days);
    const key = JSON.stringify([c.date, c.offerId, c.subid1, c.subid2, c.subid3]);
    const seen = byKey.get(key);
    if (seen) {
      seen.clicks += c.clicks;
      if (!seen.offerName) seen.offerName = c.offerName;
    } else {
      byKey.set(key, { ...c });
    }
  }
  return [...byKey.values()].filter((c) => c.clicks > 0);
}

/** One conversion per id (a report paged while it changes can repeat a row): the last one wins. */
const uniqueConversions = (conversions: CakeConversion[], days: DayRange) => [
  ...new Map(conversions.map((c) => [c.conversionId, withinDays(c, days)])).values(),
];

export interface CakeSyncInput {
  db: Db;
  config: CakeConfig;
  http: HttpOptions;
  runId: number;
  now: number;
  days: DayRange;
  /** Called with each written week's conversions (they go on to TikTok); its failure never fails the sync. */
  onConversions?: (conversions: CakeConversion[]) => Promise<unknown>;
  /**
   * Called before each week is written with the sub2 values it reports, so the clicks they name in
   * shard-day objects are in D1 for the attribution (tracking/attributed-clicks.ts); its failure
   * never fails the sync (those rows show as "Direct" until the next pull).
   */
  copyClicks?: (sub2s: string[]) => Promise<unknown>;
  /**
   * Where the click report rows of shard-day clicks go (tracking/cake-shards.ts): without it, every
   * row is D1's. Its failure fails the week's write, which the next pull makes again.
   */
  shards?: CakeClickShards;
}

/** tracking/cake-shards.ts, bound to the run's database and objects. */
export interface CakeClickShards {
  place(rows: CakeClick[]): Promise<PlacedCakeClicks>;
  stage(pull: { runId: number; pulled: DayRange; objects: PlacedCakeClicks["objects"] }): Promise<void>;
  apply(pull: { runId: number; pulled: DayRange; rebuild: DayRange }): Promise<ShardCakeParts & { written: number }>;
}

/**
 * Rows of shard-day clicks a pull holds before it stages them (about 15 MB of a Worker's 128 MB).
 * A page of CAKE's report (10,000 rows) spreads over a day's 16 objects or more: staged a page at
 * a time, that was a call to every object and two D1 statements a page, about 4,500 calls for a
 * week at a million clicks a day. Held for five pages, each object gets one call of a few thousand
 * rows (docs/click-storage.md "What else outgrows D1 at this load").
 */
export const CAKE_STAGE_ROWS = 50_000;

type ObjectRows = PlacedCakeClicks["objects"];

/**
 * Holds the pages' rows by object and stages them once `stageRows` have come (and at `flush`),
 * each object's rows in as few calls as they take. A key held twice is summed where it is staged.
 */
export function cakeStagingBuffer(stage: (objects: ObjectRows) => Promise<void>, stageRows = CAKE_STAGE_ROWS) {
  let held: ObjectRows = new Map();
  let rows = 0;
  const flush = async () => {
    if (!held.size) return;
    const objects = held;
    held = new Map();
    rows = 0;
    await stage(objects);
  };
  return {
    async add(objects: ObjectRows) {
      for (const [name, { place, rows: added }] of objects) {
        const group = held.get(name) ?? { place, rows: [] };
        for (const row of added) group.rows.push(row);
        held.set(name, group);
        rows += added.length;
      }
      if (rows >= stageRows) await flush();
    },
    flush,
  };
}

/**
 * The week's click report: with shard-day objects, the pages' rows of their clicks are staged in
 * them as they come (only D1's rows are kept), so a report of millions of rows is never held at
 * once; without, every row, as D1 keeps them. Rows of one key are summed, across pages too.
 */
async function readClicks(
  pages: AsyncIterable<CakeClick[]>,
  { chunk, runId, shards }: { chunk: DayRange; runId: number; shards?: CakeClickShards },
): Promise<{ fetched: number; d1: CakeClick[] }> {
  let fetched = 0;
  const d1: CakeClick[] = [];
  const staging = shards && cakeStagingBuffer((objects) => shards.stage({ runId, pulled: chunk, objects }));
  for await (const page of pages) {
    fetched += page.length;
    if (!shards || !staging) {
      d1.push(...page);
      continue;
    }
    const placed = await shards.place(aggregateClicks(page, chunk));
    d1.push(...placed.d1);
    await staging.add(placed.objects);
  }
  await staging?.flush();
  return { fetched, d1: aggregateClicks(d1, chunk) };
}

/**
 * The asked days whose attribution can still be rebuilt: CAKE's rows are credited to campaigns
 * and ads through our raw clicks, so a day whose clicks (or whose margin's clicks) retention has
 * archived is not pulled again: rebuilding it would turn its revenue into "Direct". Null when no
 * day is left.
 */
async function daysWithClicks(db: Db, days: DayRange): Promise<DayRange | null> {
  const frontier = await archivedFrontier(db);
  const first = frontier ? shiftDay(frontier.day, REBUILD_MARGIN_DAYS + 1) : days.start;
  const start = days.start < first ? first : days.start;
  return start <= days.end ? { start, end: days.end } : null;
}

/**
 * Days pulled and written together. With sub2 being our click id, CAKE's click report has a row
 * per click and nothing folds them; a week at a time keeps a busy network's report well inside a
 * Worker's memory, and each week's write is still one atomic batch.
 */
export const CAKE_WRITE_CHUNK_DAYS = 7;

/**
 * Pulls the days' conversions and clicks and writes them, newest week first. When CAKE fails,
 * the weeks already written stay written (each is whole) and the error says which days those
 * are; when it fails at once, the ExternalApiError is thrown.
 */
export async function syncCake({ db, config, http, runId, now, days: asked, onConversions, copyClicks, shards }: CakeSyncInput) {
  const days = await daysWithClicks(db, asked);
  if (!days) return { rowsFetched: 0, rowsUpserted: 0, error: null };
  const client = createCakeClient(config, http);
  let rowsFetched = 0;
  let rowsUpserted = 0;
  let savedFrom: string | null = null;
  for (const chunk of splitDays(days.start, days.end, CAKE_WRITE_CHUNK_DAYS).reverse()) {
    let pulledConversions: CakeConversion[];
    let clicks: { fetched: number; d1: CakeClick[] };
    try {
      [pulledConversions, clicks] = await Promise.all([
        client.conversions(chunk.start, chunk.end),
        readClicks(client.clickPages(chunk.start, chunk.end), { chunk, runId, shards }),
      ]);
    } catch (err) {
      if (!(err instanceof ExternalApiError) || savedFrom === null) throw err;
      const error = `${err.message} (the days from ${savedFrom} to ${days.end} were saved before that)`;
      return { rowsFetched, rowsUpserted, error };
    }
    // The clicks of the conversions, and of D1's click rows (an id moved to a legacy object), are
    // copied; a shard-day object sums its own click rows.
    await copyClicks?.([...clicks.d1.map((c) => c.subid2), ...pulledConversions.map((c) => c.subid2)]).catch((err: unknown) =>
      console.error("cake sync: shard-day clicks not copied for the attribution", err),
    );
    const rebuild = { start: shiftDay(chunk.start, -REBUILD_MARGIN_DAYS), end: chunk.end };
    const shardParts = shards ? await shards.apply({ runId, pulled: chunk, rebuild }) : undefined;
    rowsUpserted += shardParts?.written ?? 0;
    rowsUpserted += await applyCakePull(db, {
      runId,
      now,
      pulled: chunk,
      rebuild,
      graceCutoff: now - POSTBACK_GRACE_MS,
      conversions: uniqueConversions(pulledConversions, chunk),
      clicks: clicks.d1,
      shardParts,
    });
    rowsFetched += pulledConversions.length + clicks.fetched;
    savedFrom = chunk.start;
    // After the write: a conversion is claimed for TikTok only once it is in the ledger. Each run
    // pulls the same days again, so a claim lost here is made by the next run.
    await onConversions?.(pulledConversions).catch((err: unknown) => console.error("cake sync: conversions not handed on", err));
  }
  return { rowsFetched, rowsUpserted, error: null };
}
