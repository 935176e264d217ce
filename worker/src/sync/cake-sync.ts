import {
  applyCakePull,
  clearPulledConversions,
  dropPulledRows,
  keepPulledD1Rows,
  pulledConversionsPage,
  pulledD1Rows,
  stagePulledConversions,
  type DayRange,
  type PullStep,
  type ShardCakeParts,
} from "../db/queries/cake";
import { archivedFrontier } from "../db/queries/click-archives";
import type { Db } from "../env";
import { createCakeClient, type CakeClick, type CakeConfig, type CakeConversion, type ReportPage } from "../integrations/cake";
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

export interface CakeSyncInput {
  db: Db;
  config: CakeConfig;
  http: HttpOptions;
  runId: number;
  now: number;
  days: DayRange;
  /**
   * Called with each written week's conversions, a page at a time (they go on to TikTok and the
   * webhooks); its failure never fails the sync.
   */
  onConversions?: (conversions: CakeConversion[]) => Promise<unknown>;
  /**
   * Called before each week is written with the sub2 values it reports (its conversions' a page at a
   * time, as they are read), so the clicks they name in shard-day objects are in D1 for the
   * attribution (tracking/attributed-clicks.ts); its failure never fails the sync (those rows show
   * as "Direct" until the next pull).
   */
  copyClicks?: (sub2s: string[]) => Promise<unknown>;
  /**
   * Where the click report rows of shard-day clicks go (tracking/cake-shards.ts): without it, every
   * row is D1's. Its failure fails the week's write, which the next pull makes again.
   */
  shards?: CakeClickShards;
  /**
   * A week whose click report is longer than `stepRows` is read in steps of about that many rows
   * (sync/cake-pull-workflow.ts): `handOff` starts them with the weeks left. Without it, every week
   * is read in this invocation.
   */
  inSteps?: { stepRows: number; handOff(rest: CakePullRest): Promise<void> };
}

/** tracking/cake-shards.ts, bound to the run's database and objects. */
export interface CakeClickShards {
  place(rows: CakeClick[]): Promise<PlacedCakeClicks>;
  stage(pull: { runId: number; pulled: DayRange; objects: PlacedCakeClicks["objects"]; batch?: string }): Promise<void>;
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

/** What reading a week's click report (or a step's part of it) gave. */
interface ClicksRead {
  fetched: number;
  /** The rows D1 keeps (the objects' are staged), a key's rows summed. */
  d1: CakeClick[];
  /** Rows of the week's report read so far, the ones before `fromRow` included. */
  read: number;
  /** The report's end was reached. */
  done: boolean;
  /** The report is longer than `handOffAbove`: nothing was kept or staged. */
  handOff: boolean;
}

/**
 * The week's click report: with shard-day objects, the pages' rows of their clicks are staged in
 * them as they come (only D1's rows are kept), so a report of millions of rows is never held at
 * once; without, every row, as D1 keeps them. Rows of one key are summed, across pages too. A step
 * of a pull run in steps reads from `fromRow` until `stopAfterRows` more have come and names its
 * stagings after `batch`; a pull in one invocation stops at the first page when CAKE says the
 * report is longer than `handOffAbove`.
 */
async function readClicks(
  pages: AsyncIterable<ReportPage<CakeClick>>,
  opts: {
    chunk: DayRange;
    runId: number;
    shards?: CakeClickShards;
    fromRow?: number;
    stopAfterRows?: number;
    batch?: string;
    handOffAbove?: number;
    /** Whether the report has more than this many rows, asked when its first page says nothing of its length. */
    longerThan?: (rows: number) => Promise<boolean>;
  },
): Promise<ClicksRead> {
  const { chunk, runId, shards } = opts;
  const fromRow = opts.fromRow ?? 0;
  let fetched = 0;
  let read = fromRow;
  let done = true;
  const d1: CakeClick[] = [];
  let flushes = 0;
  const staging =
    shards &&
    cakeStagingBuffer((objects) => shards.stage({ runId, pulled: chunk, objects, batch: opts.batch === undefined ? undefined : `${opts.batch}:${++flushes}` }));
  let first = true;
  for await (const page of pages) {
    if (first && opts.handOffAbove !== undefined) {
      // A network that sends no row_count is asked for the row past the limit instead, before
      // anything is staged: a one-invocation pull must not stage rows the steps stage again.
      const longer = page.rowCount !== null ? page.rowCount > opts.handOffAbove : ((await opts.longerThan?.(opts.handOffAbove)) ?? false);
      if (longer) return { fetched: 0, d1: [], read: 0, done: false, handOff: true };
    }
    first = false;
    fetched += page.rows.length;
    read = page.read;
    if (!shards || !staging) {
      d1.push(...page.rows);
    } else {
      const placed = await shards.place(aggregateClicks(page.rows, chunk));
      d1.push(...placed.d1);
      await staging.add(placed.objects);
    }
    if (opts.stopAfterRows !== undefined && fetched >= opts.stopAfterRows) {
      // The generator is left here; the report's end is only known by asking for the next page.
      done = page.rowCount !== null && read >= page.rowCount;
      break;
    }
  }
  await staging?.flush();
  return { fetched, d1: aggregateClicks(d1, chunk), read, done, handOff: false };
}

/** The shard-day clicks the rows' sub2 values name, copied for the attribution; a failure is logged (see `copyClicks`). */
const copyForAttribution = async (copyClicks: CakeSyncInput["copyClicks"], rows: readonly { subid2: string }[]) =>
  copyClicks?.(rows.map((r) => r.subid2)).catch((err: unknown) => console.error("cake sync: shard-day clicks not copied for the attribution", err));

/** What reading a week's conversions (or a step's part of them) gave. */
interface ConversionsRead {
  fetched: number;
  /** Rows of the report read so far, the ones before the step's first included. */
  read: number;
  /** The report's end was reached. */
  done: boolean;
}

/**
 * The week's conversions, a page at a time: each page's are staged in D1 for the write
 * (db/schema.ts `cakePullConversions`) and the shard-day clicks they name are copied for the
 * attribution, so a day of hundreds of thousands of conversions is never held at once. A step of a
 * pull run in steps reads from `step.fromRow` until `stopAfterRows` more have come; a pull in one
 * invocation stops when `stop` says the click report went to the steps.
 */
async function readConversions(
  pages: AsyncIterable<ReportPage<CakeConversion>>,
  opts: { db: Db; step: PullStep; chunk: DayRange; copyClicks?: CakeSyncInput["copyClicks"]; stopAfterRows?: number; stop?: () => boolean },
): Promise<ConversionsRead> {
  const { db, step, chunk } = opts;
  await clearPulledConversions(db, step);
  let fetched = 0;
  let read = step.fromRow;
  let done = true;
  for await (const page of pages) {
    if (opts.stop?.()) return { fetched, read, done: false };
    fetched += page.rows.length;
    read = page.read;
    const rows = page.rows.map((c) => withinDays(c, chunk));
    await stagePulledConversions(db, step, rows);
    await copyForAttribution(opts.copyClicks, rows);
    if (opts.stopAfterRows !== undefined && fetched >= opts.stopAfterRows) {
      done = page.rowCount !== null && read >= page.rowCount;
      break;
    }
  }
  return { fetched, read, done };
}

/**
 * Rows of CAKE's conversions report a step reads: a tenth of a click step's. A conversion costs a
 * step more than a click report row (its page is written to D1 and its clicks are copied from their
 * objects): at the default step, 10 pages.
 */
export const conversionStepRows = (stepRows: number) => Math.max(1, Math.floor(stepRows / 10));

/** Staged conversions handed on at once: the webhooks' claim binds their ids as one JSON parameter, well under D1's 2 MB. */
const HAND_ON_ROWS = 5_000;

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
 * Worker's memory, and each of its days is written in one atomic batch (db/queries/cake.ts
 * `applyCakePull`).
 */
export const CAKE_WRITE_CHUNK_DAYS = 7;

/** The weeks (or chunks of `size` days) of the days, newest first: the order a pull writes them in. */
export const cakeChunks = (days: DayRange, size = CAKE_WRITE_CHUNK_DAYS) => splitDays(days.start, days.end, size).reverse();

/** What a run's pull leaves to its steps (sync/cake-pull-workflow.ts): the days from `days.end` back, and what it did before. */
export interface CakePullRest {
  days: DayRange;
  rowsFetched: number;
  rowsUpserted: number;
  /** The first day of the weeks already written (null: none). */
  savedFrom: string | null;
}

type ChunkWriter = Pick<CakeSyncInput, "db" | "runId" | "now" | "onConversions" | "copyClicks" | "shards">;

/**
 * Writes a week pulled whole, its conversions staged as they were read: the clicks D1's rows name
 * are copied (the conversions' were, as they came), the objects write their staged rows and give
 * their sums, the conversions go into the ledger, and D1's batches replace the week a day at a
 * time. Then its conversions go on, a page at a time. What was staged stays: written again, the
 * week is the same. Returns the rows written.
 */
async function writeChunk({ db, runId, now, onConversions, copyClicks, shards }: ChunkWriter, chunk: DayRange, d1: CakeClick[]): Promise<number> {
  // The clicks of D1's click rows (an id moved to a legacy object) are copied; a shard-day object
  // sums its own click rows.
  await copyForAttribution(copyClicks, d1);
  const rebuild = { start: shiftDay(chunk.start, -REBUILD_MARGIN_DAYS), end: chunk.end };
  const shardParts = shards ? await shards.apply({ runId, pulled: chunk, rebuild }) : undefined;
  const written =
    (shardParts?.written ?? 0) +
    (await applyCakePull(db, {
      runId,
      now,
      pulled: chunk,
      rebuild,
      graceCutoff: now - POSTBACK_GRACE_MS,
      clicks: d1,
      shardParts,
    }));
  // After the write: a conversion is claimed for TikTok only once it is in the ledger. Each run
  // pulls the same days again, so a claim lost here is made by the next run.
  if (onConversions)
    await handOnConversions(db, { runId, start: chunk.start }, onConversions).catch((err: unknown) =>
      console.error("cake sync: conversions not handed on", err),
    );
  return written;
}

/** The written week's staged conversions to `onConversions`, HAND_ON_ROWS at a time. */
export async function handOnConversions(db: Db, pull: { runId: number; start: string }, onConversions: (conversions: CakeConversion[]) => Promise<unknown>) {
  for (let after = ""; ;) {
    const page = await pulledConversionsPage(db, pull, after, HAND_ON_ROWS);
    if (!page.length) return;
    await onConversions(page);
    after = page[page.length - 1]!.conversionId;
  }
}

/**
 * Pulls the days' conversions and clicks and writes them, newest week first. When CAKE fails,
 * the weeks already written stay written (each is whole) and the error says which days those
 * are; when it fails at once, the ExternalApiError is thrown. A week whose click report is longer
 * than one invocation reads (`inSteps`) hands it and the older weeks to the pull in steps: the run
 * goes on there (`continuing`).
 */
export async function syncCake(input: CakeSyncInput): Promise<{ rowsFetched: number; rowsUpserted: number; error: string | null; continuing?: true }> {
  const { db, config, http, runId, days: asked, shards, inSteps } = input;
  const days = await daysWithClicks(db, asked);
  if (!days) return { rowsFetched: 0, rowsUpserted: 0, error: null };
  const client = createCakeClient(config, http);
  let rowsFetched = 0;
  let rowsUpserted = 0;
  let savedFrom: string | null = null;
  for (const chunk of cakeChunks(days)) {
    let conversions: ConversionsRead;
    let clicks: ClicksRead;
    let handedOff = false;
    try {
      [conversions, clicks] = await Promise.all([
        readConversions(client.conversionPages(chunk.start, chunk.end), {
          db,
          step: { runId, start: chunk.start, fromRow: 0 },
          chunk,
          copyClicks: input.copyClicks,
          stop: () => handedOff,
        }),
        readClicks(client.clickPages(chunk.start, chunk.end), {
          chunk,
          runId,
          shards,
          handOffAbove: inSteps?.stepRows,
          longerThan: (rows) => client.clicksLongerThan(chunk.start, chunk.end, rows),
        }).then((read) => {
          handedOff = read.handOff;
          return read;
        }),
      ]);
    } catch (err) {
      if (!(err instanceof ExternalApiError) || savedFrom === null) throw err;
      const error = `${err.message} (the days from ${savedFrom} to ${days.end} were saved before that)`;
      return { rowsFetched, rowsUpserted, error };
    }
    if (clicks.handOff && inSteps) {
      // The steps read the week's conversions again, a day at a time.
      await dropPulledRows(db, runId);
      await inSteps.handOff({ days: { start: days.start, end: chunk.end }, rowsFetched, rowsUpserted, savedFrom });
      return { rowsFetched, rowsUpserted, error: null, continuing: true };
    }
    rowsUpserted += await writeChunk(input, chunk, clicks.d1);
    await dropPulledRows(db, runId);
    rowsFetched += conversions.fetched + clicks.fetched;
    savedFrom = chunk.start;
  }
  return { rowsFetched, rowsUpserted, error: null };
}

type StepInput = Pick<CakeSyncInput, "db" | "config" | "http" | "runId" | "shards">;

/**
 * A read step of a pull run in steps: the chunk's click report (a day's) from `fromRow` until `stepRows` more
 * rows have come, the objects' rows staged under names of the step's own (so the step run again
 * stages nothing twice), D1's kept in `cake_pull_rows` in place of what the step kept before.
 * `next` is where the next step reads from; null at the report's end.
 */
export async function readCakeStep({ db, config, http, runId, shards }: StepInput, chunk: DayRange, fromRow: number, stepRows: number) {
  const client = createCakeClient(config, http);
  const clicks = await readClicks(client.clickPages(chunk.start, chunk.end, fromRow), {
    chunk,
    runId,
    shards,
    fromRow,
    stopAfterRows: stepRows,
    batch: `${chunk.start}:${fromRow}`,
  });
  await keepPulledD1Rows(db, { runId, start: chunk.start, fromRow }, clicks.d1);
  return { fetched: clicks.fetched, next: clicks.done ? null : clicks.read };
}

/**
 * A conversions step of a pull run in steps: the chunk's (a day's) conversions from `fromRow` until
 * `stepRows` more have come, staged in place of what the step staged before, their clicks copied.
 * `next` is where the next step reads from; null at the report's end.
 */
export async function readConversionsStep(input: StepInput & Pick<ChunkWriter, "copyClicks">, chunk: DayRange, fromRow: number, stepRows: number) {
  const client = createCakeClient(input.config, input.http);
  const read = await readConversions(client.conversionPages(chunk.start, chunk.end, fromRow), {
    db: input.db,
    step: { runId: input.runId, start: chunk.start, fromRow },
    chunk,
    copyClicks: input.copyClicks,
    stopAfterRows: stepRows,
  });
  return { fetched: read.fetched, next: read.done ? null : read.read };
}

/**
 * The write step of a chunk (a day) read in steps: the conversions its steps staged, and D1's rows
 * the read steps kept, summed by key; written as a week pulled at once is. Run again, it writes the
 * same: what the steps kept stays until the next day's steps (or the close) drop it.
 */
export async function writeCakeStep(input: StepInput & ChunkWriter, chunk: DayRange) {
  const d1 = await pulledD1Rows(input.db, input.runId, chunk.start);
  const rowsUpserted = await writeChunk(input, chunk, d1);
  return { rowsUpserted };
}
