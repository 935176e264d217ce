/**
 * One shard-day of raw clicks: a SQLite Durable Object holding the clicks of one UTC day that the
 * click store gave one shard, with their exits (docs/click-storage.md "The two designs", design A).
 * An object is named `clicks/<day>/<shard>` (`shardName`), so a day's objects come into being with
 * their first write, and a layout-1 click id (tracking/click-id.ts) names the one object that
 * holds its click.
 *
 * Its tables: D1's own `clicks`, created here from the same definition (db/schema.ts) with its
 * indexes and without the foreign key (the campaigns live in D1); `exits`, a row per exit keyed by
 * click id and time (the layout docs/click-storage.md "What a click costs, measured" chose: smaller
 * than `lander_clicks` with its two indexes, and an exit's repeat is its key); and `pending_exits`,
 * keyed the same way: exits that arrived before their click (the click still in the queue),
 * applied by the write that brings the click. The shard is the one place for that id, so the
 * order the two arrive in does not matter. And CAKE's click report rows of its clicks
 * (`cake_clicks`, with a pull's staging: tracking/cake-shards.ts), which go when the object is
 * emptied, with the clicks they count.
 *
 * Every method can be called again with the same input and changes nothing the second time: a
 * queue message delivered twice, or a write retried after a failure part way, stores each click
 * and each exit once. A different click under an id already stored (60 random bits within a
 * shard-day: docs/click-storage.md "The click id that names its shard") is counted as a conflict,
 * not taken for a repeat.
 *
 * The clicks queue's consumer writes here the clicks and exits whose ids name a shard-day
 * (tracking/click-shards.ts); `/r/` makes such ids for the days with a shard count
 * (tracking/shard-days.ts). What reads them, and what does not yet, is docs/click-storage.md
 * "Steps to build it".
 */
import { DurableObject } from "cloudflare:workers";
import { and, desc, eq, getTableColumns, isNull, lt, lte, ne, sql, type SQL } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { getTableConfig, integer, primaryKey, SQLiteSyncDialect, sqliteTable, text, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { KeptCampaign } from "../db/queries/campaigns";
import { campaignSpansQuery, type CampaignClickSpan } from "../db/queries/deletion-impact";
import { cakeClickRowColumns, clicks } from "../db/schema";
import { shardCakeQueries, type DayRange, type ShardAttributedRow, type ShardAudienceRow, type ShardCakeParts } from "../db/queries/cake";
import type { CakeClick } from "../integrations/cake";
import {
  CLICK_FOR_EXIT,
  CLICK_LOG_COLUMNS,
  CLICK_LOG_KEY_COLUMNS,
  clickValues,
  INSERTED,
  matchingAfter,
  campaignCountsQuery,
  facetsPastQuery,
  type CampaignCounts,
  type ClickFacet,
  type ClickFilter,
  type ExitRecord,
  type NewClick,
} from "../db/queries/clicks";
import {
  shardRollupQueries,
  type AudienceCount,
  type DailyCount,
  type ShardRollupAsk,
  type ShardRollupCounts,
  type ShardWatermarks,
} from "../db/queries/shard-rollup";
import { pairVisitsQuery, type VariantPairRow } from "../db/queries/split-tests";
import { placeOfClickId, shardName } from "./click-id";

/** An exit's columns, keyed by its click and time: the shard's exits, and the ones still waiting for their click. */
const exitColumns = {
  clickId: text("click_id").notNull(),
  at: integer("at").notNull(),
  offerId: integer("offer_id").notNull(),
  ipAddress: text("ip_address"),
  userAgent: text("user_agent"),
};
export const shardExits = sqliteTable("exits", exitColumns, (t) => [primaryKey({ columns: [t.clickId, t.at] })]);
export const pendingExits = sqliteTable("pending_exits", exitColumns, (t) => [primaryKey({ columns: [t.clickId, t.at] })]);
/**
 * A legacy object's clicks whose exit D1's rollup counted before the move brought them here
 * (tracking/click-move.ts): the rollup leaves their exit out when it counts this object's exits
 * past its watermark, so each exit is counted once, whichever store recorded it. Empty in a
 * shard-day's object.
 */
export const countedExits = sqliteTable("counted_exits", { clickId: text("click_id").notNull() }, (t) => [primaryKey({ columns: [t.clickId] })]);

/**
 * CAKE's click report rows whose sub2 is one of this shard-day's click ids (tracking/cake-shards.ts):
 * D1's cake_stats columns but the conversions, which stay in D1's ledger, keyed as cake_stats is.
 * They go with the object when the retention empties it, as the clicks they count do.
 */
export const cakeClicks = sqliteTable("cake_clicks", cakeClickRowColumns(), (t) => [
  primaryKey({ columns: [t.date, t.offerId, t.subid1, t.subid2, t.subid3] }),
]);
/** A pull's rows, staged over as many calls as they take, until the pull replaces its days with them in one transaction. */
export const cakeClickStaging = sqliteTable("cake_click_staging", { runId: integer("run_id").notNull(), ...cakeClickRowColumns() }, (t) => [
  primaryKey({ columns: [t.runId, t.date, t.offerId, t.subid1, t.subid2, t.subid3] }),
]);

/**
 * The calls of a pull run in steps (sync/cake-pull-workflow.ts) staged here, by the step's own name
 * for the call: a step the Workflow runs again after a failure stages nothing twice.
 */
export const cakeStagedBatches = sqliteTable("cake_staged_batches", { runId: integer("run_id").notNull(), batch: text("batch").notNull() }, (t) => [
  primaryKey({ columns: [t.runId, t.batch] }),
]);

/** The pulls written here (a run and its first day): a pull's write repeated changes nothing. Only the latest run's are kept. */
export const cakePullsApplied = sqliteTable("cake_pulls_applied", { runId: integer("run_id").notNull(), start: text("start").notNull() }, (t) => [
  primaryKey({ columns: [t.runId, t.start] }),
]);

/** A stored click as an exit needs it (the columns D1's lookup reads: db/queries/clicks.ts). */
export type ShardClickForExit = Pick<typeof clicks.$inferSelect, keyof typeof CLICK_FOR_EXIT>;

/** A Click Log row as a shard-day holds it (the campaign's name is D1's). */
export type ShardLogRow = Pick<typeof clicks.$inferSelect, keyof typeof CLICK_LOG_COLUMNS>;

/** A Click Log row's keys: its place in the order and its campaign. */
export type ShardLogKey = Pick<typeof clicks.$inferSelect, keyof typeof CLICK_LOG_KEY_COLUMNS>;

/**
 * Where a page of the Click Log ended: its last row's time and click id. Newest first, ties broken
 * by click id, which is unique across every shard (a row's id is only its object's).
 */
export interface LogCursor {
  clickedAt: number;
  clickId: string;
}

/**
 * What a write did: clicks stored now, repeats of stored ones, different clicks under a stored id,
 * ids naming another shard-day (refused: no lookup would find them here), and pending exits applied.
 */
export interface ShardWrite {
  written: number;
  repeated: number;
  conflicts: string[];
  misplaced: string[];
  exitsApplied: number;
}

/**
 * What the retention needs to know before archiving or emptying the object (retention/shard-days.ts):
 * its highest click rowid and latest exit time, which the click rollup must have counted to.
 */
export interface ShardExtent {
  maxId: number | null;
  lastExitAt: number | null;
}

/**
 * What a move's call did (ClickShard.move): the clicks now held (stored now or before), the ids
 * under which the object holds a different click (those stay in D1), pending exits applied.
 */
export interface ShardMove {
  held: number;
  conflicts: string[];
  exitsApplied: number;
}

/** A click as D1 stores it, rowid included: what the move brings to a legacy object. */
export type MovedClick = typeof clicks.$inferSelect;

/** What an exit found: the click it belongs to, or nothing yet (kept as pending). */
export type ShardExit = { click: ShardClickForExit; recorded: boolean } | { click: null; pending: true };

/** The shard's size (SQLite's pages, as Cloudflare counts a Durable Object's storage) and its rows. */
export interface ShardSize {
  bytes: number;
  clicks: number;
  exits: number;
  pendingExits: number;
}

const dialect = new SQLiteSyncDialect();

/**
 * What creates a Drizzle table as D1's migrations did: `create table` with its columns' names,
 * types, primary key (a column's, or the table's over several) and not-null (no foreign keys),
 * then a unique index per unique column and each declared index, partial ones with their
 * condition, under the same names. An index on an expression is not made here (db/schema.ts
 * declares none on `clicks`): it throws. A table keyed over several columns is made without a
 * rowid: the key is the row's place (docs/click-storage.md "What a click costs, measured").
 */
function createTable(table: SQLiteTable): { create: string; indexes: string[] } {
  const { name, indexes, primaryKeys } = getTableConfig(table);
  const columns = Object.values(getTableColumns(table));
  const defined = columns.map((c) => [`"${c.name}"`, c.getSQLType(), c.primary ? "primary key" : "", c.notNull ? "not null" : ""].filter(Boolean).join(" "));
  const keys = primaryKeys.map((key) => `primary key (${key.columns.map((c) => `"${c.name}"`).join(", ")})`);
  return {
    create: `create table if not exists "${name}" (${[...defined, ...keys].join(", ")})${keys.length ? " without rowid" : ""}`,
    indexes: [
      ...columns.filter((c) => c.isUnique).map((c) => `create unique index if not exists "${c.uniqueName}" on "${name}" ("${c.name}")`),
      ...indexes.map(({ config }) => {
        const on = config.columns.map((c) => {
          if (!("name" in c)) throw new Error(`index ${config.name}: an expression, which a shard does not make`);
          return `"${c.name}"`;
        });
        const where = config.where ? ` where ${dialect.sqlToQuery(config.where, "indexes").sql}` : "";
        return `create ${config.unique ? "unique " : ""}index if not exists "${config.name}" on "${name}" (${on.join(", ")})${where}`;
      }),
    ],
  };
}

/**
 * A shard-day's tables as the code that opens it expects them. `create ... if not exists` makes a
 * new object's; an object made by older code gets the columns `clicks` gained since (D1's
 * migrations add columns that may be null, and so does this), then any new index. Run on every
 * start of an object, before a call is delivered.
 */
export function ensureTables(storage: SqlStorage) {
  const { create, indexes } = createTable(clicks);
  storage.exec(create);
  const present = new Set(
    storage
      .exec<{ name: string }>("select name from pragma_table_info('clicks')")
      .toArray()
      .map((c) => c.name),
  );
  for (const column of Object.values(getTableColumns(clicks))) {
    if (!present.has(column.name)) storage.exec(`alter table clicks add column "${column.name}" ${column.getSQLType()}`);
  }
  const others = [shardExits, pendingExits, countedExits, cakeClicks, cakeClickStaging, cakeStagedBatches, cakePullsApplied].map((t) => createTable(t).create);
  for (const statement of [...indexes, ...others]) storage.exec(statement);
}

/** A click moved from D1, under its D1 rowid (tracking/click-move.ts): the rollup's watermarks for the legacy objects are D1 ids. */
const INSERT_MOVED = `insert into clicks ("id", ${INSERTED.map(([, c]) => `"${c.name}"`).join(", ")}) values (${["id", ...INSERTED].map(() => "?").join(", ")}) on conflict (click_id) do nothing`;

const INSERT_CLICK = `insert into clicks (${INSERTED.map(([, c]) => `"${c.name}"`).join(", ")}) values (${INSERTED.map(() => "?").join(", ")}) on conflict (click_id) do nothing`;

/** Clicks among these ids, given as one JSON parameter (a query binds at most 100 values). */
const amongIds = (clickIds: string[]) => sql`${clicks.clickId} in (select value from json_each(${JSON.stringify(clickIds)}))`;

/** A stored click is this one again when its time, address and campaign are the message's. */
const sameClick = (stored: { clickedAt: number; ipAddress: string | null; campaignId: number }, row: NewClick) =>
  stored.clickedAt === row.clickedAt && stored.ipAddress === (row.ipAddress ?? null) && stored.campaignId === row.campaignId;

export class ClickShard extends DurableObject<unknown> {
  private readonly db: DrizzleSqliteDODatabase;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.db = drizzle(ctx.storage);
    // Before any call is delivered: every statement is idempotent, so each start runs them all.
    void ctx.blockConcurrencyWhile(async () => ensureTables(ctx.storage.sql));
  }

  /**
   * Stores clicks once each (see the module comment), then applies the exits that waited for them.
   * A layout-1 id naming another shard-day than this object's name is refused: the lookups of its
   * exit and its conversion would ask that other object, so stored here it would be found by none.
   */
  write(rows: NewClick[]): ShardWrite {
    // The name the object was opened by (`clicks/<day>/<shard>`); absent for an object opened by id.
    const own = this.ctx.id.name;
    return this.ctx.storage.transactionSync(() => {
      const result: ShardWrite = { written: 0, repeated: 0, conflicts: [], misplaced: [], exitsApplied: 0 };
      const stored: string[] = [];
      for (const row of rows) {
        const place = own ? placeOfClickId(row.clickId, row.clickedAt) : null;
        if (place && shardName(place) !== own) {
          result.misplaced.push(row.clickId);
          continue;
        }
        const outcome = this.insertOnce(row, INSERT_CLICK, clickValues(row));
        if (outcome === "stored") {
          result.written++;
          stored.push(row.clickId);
        } else if (outcome === "repeated") result.repeated++;
        else result.conflicts.push(row.clickId);
      }
      for (const id of stored) result.exitsApplied += this.applyPending(id);
      return result;
    });
  }

  /**
   * Clicks moved from D1 into this legacy object (tracking/click-move.ts), each under its D1
   * rowid, with D1's exits of them and the ids whose exit D1's rollup counted, in one transaction.
   * A click already here is left as it is (a move step run again after being cut off); the exits
   * that waited for these clicks (arrived after the switch) are applied. When D1 had none, the
   * click's exit time is the earliest of them, but no earlier than `countedFrom`: past this object's
   * exit watermark, which the rollup may have moved past the exit while it waited, so the rollup
   * still counts it (its `exits` row keeps its own time). A click whose id the object holds for
   * a different click is not taken, nor are its exits: it stays in D1 (tracking/click-move.ts).
   * Called again with the same input it changes nothing.
   */
  move(rows: MovedClick[], exits: ExitRecord[], counted: string[], countedFrom: number): ShardMove {
    return this.ctx.storage.transactionSync(() => {
      const result: ShardMove = { held: 0, conflicts: [], exitsApplied: 0 };
      for (const row of rows) {
        if (this.insertOnce(row, INSERT_MOVED, [row.id, ...clickValues(row)]) === "conflict") result.conflicts.push(row.clickId);
        else result.held++;
      }
      const other = new Set(result.conflicts);
      for (const exit of exits) if (!other.has(exit.clickId)) this.insertExit("exits", exit);
      for (const clickId of counted)
        if (!other.has(clickId)) this.ctx.storage.sql.exec("insert into counted_exits (click_id) values (?) on conflict do nothing", clickId);
      for (const row of rows) if (!other.has(row.clickId)) result.exitsApplied += this.applyPending(row.clickId, countedFrom);
      return result;
    });
  }

  /**
   * Deletes the clicks before `endMs` with their exits (the retention, once a legacy object's
   * clicks of the archived days are in verified files: retention/shard-days.ts), and returns the
   * clicks left. A shard-day's object is emptied whole instead (`empty`).
   */
  dropBefore(endMs: number): number {
    return this.ctx.storage.transactionSync(() => {
      const gone = sql`(select click_id from clicks where clicked_at < ${endMs})`;
      this.db
        .delete(shardExits)
        .where(sql`${shardExits.clickId} in ${gone}`)
        .run();
      this.db
        .delete(countedExits)
        .where(sql`${countedExits.clickId} in ${gone}`)
        .run();
      this.db.delete(clicks).where(lt(clicks.clickedAt, endMs)).run();
      return (
        this.db
          .select({ n: sql<number>`count(*)` })
          .from(clicks)
          .get()?.n ?? 0
      );
    });
  }

  /**
   * An exit: recorded on its click (the first one recorded sets its exit time; one `exits` row per exit time)
   * and the click returned, or kept as pending while the click is not stored yet.
   */
  recordExit(exit: ExitRecord): ShardExit {
    return this.ctx.storage.transactionSync(() => this.exitOnce(exit));
  }

  /**
   * Exits in the order given, each as recordExit takes it, in one transaction: a delivery's exits
   * for this object in one call (the clicks queue's consumer). Returns how many were recorded on
   * their click now (the others were there already, or wait for their click).
   */
  recordExits(exits: ExitRecord[]): number {
    return this.ctx.storage.transactionSync(() => exits.map((exit) => this.exitOnce(exit)).filter((e) => e.click !== null && e.recorded).length);
  }

  /**
   * The stored clicks among these ids, as exits and conversions need them. The ids go as one JSON
   * parameter: a query binds at most 100 (docs/click-storage.md "Cloudflare's limits and prices").
   * Callers ask per batch (a queue batch, a page of conversions), well within a parameter's size.
   */
  lookup(clickIds: string[]): ShardClickForExit[] {
    if (!clickIds.length) return [];
    return this.db.select(CLICK_FOR_EXIT).from(clicks).where(amongIds(clickIds)).all();
  }

  /** The stored clicks among these ids, every column (the copy D1 keeps of a click CAKE reports: tracking/attributed-clicks.ts). */
  clickRows(clickIds: string[]): (typeof clicks.$inferSelect)[] {
    if (!clickIds.length) return [];
    return this.db.select().from(clicks).where(amongIds(clickIds)).all();
  }

  /**
   * The filter's clicks after `after`, newest first (ties by click id), at most `limit`: this
   * object's part of a Click Log page or an export's chunk, merged across a day's objects by
   * tracking/click-shards.ts. A walk of the time index, as D1's page is.
   */
  rowsAfter(filter: ClickFilter, after: LogCursor | null, limit: number): ShardLogRow[] {
    return this.db
      .select(CLICK_LOG_COLUMNS)
      .from(clicks)
      .where(this.after(filter, after))
      .orderBy(desc(clicks.clickedAt), desc(clicks.clickId))
      .limit(limit)
      .all();
  }

  /** rowsAfter's rows as their keys only (time, click id, campaign): what a deep page by number skips. */
  keysAfter(filter: ClickFilter, after: LogCursor | null, limit: number): ShardLogKey[] {
    return this.db
      .select(CLICK_LOG_KEY_COLUMNS)
      .from(clicks)
      .where(this.after(filter, after))
      .orderBy(desc(clicks.clickedAt), desc(clicks.clickId))
      .limit(limit)
      .all();
  }

  /** The filter's clicks after the cursor; its time also as a bound of its own, so the time index starts there. */
  private after(filter: ClickFilter, after: LogCursor | null) {
    return and(matchingAfter(filter, after), after === null ? undefined : lte(clicks.clickedAt, after.clickedAt));
  }

  /**
   * The click rollup's step for this object (db/queries/shard-rollup.ts): its clicks past the click
   * watermark, at most `chunk` of them, and the exits past the exit watermark up to `toExit`,
   * counted by the rollups' keys. Reads only; D1 records how far it got.
   */
  rollUp(ask: ShardRollupAsk): ShardRollupCounts {
    const sqlOf = this.ctx.storage.sql;
    const idAt = (query: string, ...params: number[]) => sqlOf.exec<{ id: number | null }>(query, ...params).toArray()[0]?.id ?? null;
    // A legacy object counts no click past the move's point (db/queries/shard-rollup.ts `moved`).
    const limit = ask.moved?.point ?? Number.MAX_SAFE_INTEGER;
    let toClick =
      idAt("select id from clicks where id > ? and id <= ? order by id limit 1 offset ?", ask.clickWatermark, limit, Math.max(0, ask.chunk - 1)) ??
      idAt("select max(id) as id from clicks where id > ? and id <= ?", ask.clickWatermark, limit) ??
      ask.clickWatermark;
    const more = idAt("select id from clicks where id > ? and id <= ? order by id limit 1", toClick, limit) !== null;
    // Nothing between the last click counted and the point: the watermark may stand at the point,
    // which is what the move checks before its next step (tracking/click-move.ts).
    if (ask.moved && !more) toClick = Math.max(toClick, ask.moved.point);
    const { daily, audience } = shardRollupQueries(ask, toClick);
    return { toClick, more, daily: daily.flatMap((s) => this.all<DailyCount>(s)), audience: audience.flatMap((s) => this.all<AudienceCount>(s)) };
  }

  /**
   * The filter's counts per campaign in this object: all of its matching clicks, or those the
   * rollup has not counted past `since` (db/queries/clicks.ts `campaignCountsQuery`), for the Click
   * Log's totals and campaign list.
   */
  counts(filter: ClickFilter, since: ShardWatermarks | null): CampaignCounts[] {
    return this.all(campaignCountsQuery(filter, since));
  }

  /** The facet values of this object's clicks of [startMs, endMs) past the rollup's click watermark (the Click Log's filters), ids up to `upTo` if given. */
  facetsPast(startMs: number, endMs: number, clickWatermark: number, upTo?: number): ClickFacet[] {
    return this.all(facetsPastQuery(startMs, endMs, clickWatermark, upTo));
  }

  /** The path's visits and exits per lander and offer among this object's clicks (tracking/variant-figures.ts), ids up to `upTo` if given. */
  pathVisits(campaignId: number, pathId: number, from: number, to: number, upTo?: number): VariantPairRow[] {
    return this.all(pairVisitsQuery(campaignId, pathId, from, to, upTo));
  }

  /**
   * The time of this object's first click at or after `fromMs` among `campaignIds` (the campaigns
   * that still exist: a deleted campaign's clicks are archived by no one), or null: where the
   * retention's next day to archive may start (retention/run-retention.ts). A walk of the time index.
   */
  oldestFrom(fromMs: number, campaignIds: number[]): number | null {
    const row = this.ctx.storage.sql
      .exec<{ at: number | null }>(
        // The time index, walked from fromMs to the first click of a kept campaign (the planner
        // would take the campaign index and read every click of the span).
        "select min(clicked_at) as at from clicks indexed by clicks_clicked_at_idx where clicked_at >= ? and campaign_id in (select value from json_each(?))",
        fromMs,
        JSON.stringify(campaignIds),
      )
      .one();
    return row.at;
  }

  /**
   * Stages some of a pull's click report rows for this object (see `applyCakeClicks`): a key
   * staged by an earlier call of the run adds its clicks, as the pull sums a key's rows. Rows
   * another run staged and never applied (a pull that failed part way) are dropped. Returns the
   * rows staged. A call naming a `batch` this run has staged already stages nothing (0): a pull
   * run in steps names each call, and a step run again repeats its calls.
   */
  stageCakeClicks(runId: number, rows: CakeClick[], batch?: string): number {
    return this.ctx.storage.transactionSync(() => {
      this.db.delete(cakeClickStaging).where(ne(cakeClickStaging.runId, runId)).run();
      this.db.delete(cakeStagedBatches).where(ne(cakeStagedBatches.runId, runId)).run();
      if (
        batch !== undefined &&
        !this.ctx.storage.sql.exec("insert into cake_staged_batches (run_id, batch) values (?, ?) on conflict do nothing", runId, batch).rowsWritten
      ) {
        return 0;
      }
      for (const r of rows) {
        this.ctx.storage.sql.exec(
          `insert into cake_click_staging (run_id, date, offer_id, offer_name, subid1, subid2, subid3, clicks) values (?, ?, ?, ?, ?, ?, ?, ?)
            on conflict (run_id, date, offer_id, subid1, subid2, subid3) do update set clicks = cake_click_staging.clicks + excluded.clicks,
              offer_name = case when excluded.offer_name <> '' then excluded.offer_name else cake_click_staging.offer_name end`,
          runId,
          r.date,
          r.offerId,
          r.offerName,
          r.subid1,
          r.subid2,
          r.subid3,
          r.clicks,
        );
      }
      return rows.length;
    });
  }

  /**
   * A CAKE pull's write here (tracking/cake-shards.ts), in one transaction: the rows of the pulled
   * days become the ones `runId` staged, as cake_stats' clicks become what the last pull reported
   * (db/queries/cake.ts). Then this object's part of the rebuilt days: its rows summed over its
   * clicks by the rollups' keys (`shardCakeQueries`). Called again with the same run and days, the
   * write changes nothing (`cake_pulls_applied` has them) and the sums are the same.
   */
  applyCakeClicks(runId: number, pulled: DayRange, rebuild: DayRange, campaigns: KeptCampaign[]): ShardCakeParts & { written: number } {
    const sqlOf = this.ctx.storage.sql;
    const changes = () => sqlOf.exec<{ n: number }>("select changes() as n").one().n;
    const written = this.ctx.storage.transactionSync(() => {
      const marked = sqlOf.exec("insert into cake_pulls_applied (run_id, start) values (?, ?) on conflict do nothing", runId, pulled.start);
      if (!marked.rowsWritten) return 0;
      sqlOf.exec("delete from cake_pulls_applied where run_id <> ?", runId);
      // Rows the pull no longer reports go; the rest become what it reports. Only real changes are
      // counted, as D1's cake_stats counts them (db/queries/cake.ts applyCakePull).
      sqlOf.exec(
        `delete from cake_clicks where date between ?1 and ?2 and not exists (select 1 from cake_click_staging s
          where s.run_id = ?3 and s.date = cake_clicks.date and s.offer_id = cake_clicks.offer_id and s.subid1 = cake_clicks.subid1
            and s.subid2 = cake_clicks.subid2 and s.subid3 = cake_clicks.subid3)`,
        pulled.start,
        pulled.end,
        runId,
      );
      const gone = changes();
      sqlOf.exec(
        `insert into cake_clicks (date, offer_id, offer_name, subid1, subid2, subid3, clicks)
          select date, offer_id, offer_name, subid1, subid2, subid3, clicks from cake_click_staging where run_id = ?3 and date between ?1 and ?2
          on conflict (date, offer_id, subid1, subid2, subid3) do update set offer_name = excluded.offer_name, clicks = excluded.clicks
          where cake_clicks.offer_name <> excluded.offer_name or cake_clicks.clicks <> excluded.clicks`,
        pulled.start,
        pulled.end,
        runId,
      );
      const set = changes();
      // This run's, and any an older run staged and never applied (it failed part way).
      sqlOf.exec("delete from cake_click_staging");
      sqlOf.exec("delete from cake_staged_batches");
      return gone + set;
    });
    const { attributed, audience } = shardCakeQueries(rebuild, campaigns);
    return { written, attributed: this.all<ShardAttributedRow>(attributed), audience: this.all<ShardAudienceRow>(audience) };
  }

  /** Each campaign's clicks here, made since the campaign was, ids up to `upTo` if given: a deletion's impact (db/queries/deletion-impact.ts). */
  campaignSpans(campaigns: KeptCampaign[], upTo?: number): CampaignClickSpan[] {
    return this.all(campaignSpansQuery(campaigns, upTo));
  }

  /** The highest click rowid and exit time here, each from its index: what the rollup must have counted before the object is emptied. */
  extent(): ShardExtent {
    return this.ctx.storage.sql
      .exec<{ maxId: number | null; lastExitAt: number | null }>(
        "select (select max(id) from clicks) as maxId, (select max(exited_at) from clicks) as lastExitAt",
      )
      .one();
  }

  /**
   * Deletes everything this object stores, tables included (`deleteAll`), once the retention has
   * archived its clicks to R2 (retention/shard-days.ts). Its tables are made again at once, empty
   * (a few pages), as every start of the object makes them: a late call finds an empty shard-day,
   * never a missing table. Returns the bytes the object holds after.
   */
  async empty(): Promise<number> {
    await this.ctx.storage.deleteAll();
    ensureTables(this.ctx.storage.sql);
    return this.ctx.storage.sql.databaseSize;
  }

  /** The rows of a statement built with Drizzle's `sql` (the shared query builders), as they come. */
  private all<T>(statement: SQL): T[] {
    const query = dialect.sqlToQuery(statement);
    return this.ctx.storage.sql.exec(query.sql, ...query.params).toArray() as T[];
  }

  /** For benchmarks and checks, not the click path: each count reads every row of its table (rows read are billed). */
  size(): ShardSize {
    const count = (table: SQLiteTable) =>
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(table)
        .get()?.n ?? 0;
    return { bytes: this.ctx.storage.sql.databaseSize, clicks: count(clicks), exits: count(shardExits), pendingExits: count(pendingExits) };
  }

  /** A click inserted unless its id is stored: stored now, the same click again, or another click under its id. */
  private insertOnce(row: NewClick, statement: string, values: (string | number | null)[]): "stored" | "repeated" | "conflict" {
    if (this.ctx.storage.sql.exec(statement, ...values).rowsWritten > 0) return "stored";
    const before = this.db
      .select({ clickedAt: clicks.clickedAt, ipAddress: clicks.ipAddress, campaignId: clicks.campaignId })
      .from(clicks)
      .where(eq(clicks.clickId, row.clickId))
      .get();
    return before && sameClick(before, row) ? "repeated" : "conflict";
  }

  /** An exit recorded on its stored click, or kept as pending while there is none (inside a transaction). */
  private exitOnce(exit: ExitRecord): ShardExit {
    const click = this.db.select(CLICK_FOR_EXIT).from(clicks).where(eq(clicks.clickId, exit.clickId)).get();
    if (!click) {
      this.insertExit("pending_exits", exit);
      return { click: null, pending: true };
    }
    return { click, recorded: this.applyExit(exit) };
  }

  /**
   * Records an exit of a stored click; false when that exit (its click and time) is there already.
   * `countedFrom`: the click's exit time is at least this (see `move`).
   */
  private applyExit(exit: ExitRecord, countedFrom = 0): boolean {
    if (this.insertExit("exits", exit) === 0) return false;
    // The first exit recorded sets the click's exit time, as D1's does (db/queries/clicks.ts
    // recordExit): the click rollup counts an exit once, by that time, past its watermark.
    this.db
      .update(clicks)
      .set({ exitedAt: Math.max(exit.at, countedFrom) })
      .where(and(eq(clicks.clickId, exit.clickId), isNull(clicks.exitedAt)))
      .run();
    return true;
  }

  /** An exit into one of the exit tables, unless it is there (its click and time); the rows written. */
  private insertExit(table: "exits" | "pending_exits", { clickId, at, offerId, ipAddress, userAgent }: ExitRecord): number {
    return this.ctx.storage.sql.exec(
      `insert into ${table} (click_id, at, offer_id, ip_address, user_agent) values (?, ?, ?, ?, ?) on conflict do nothing`,
      clickId,
      at,
      offerId,
      ipAddress ?? null,
      userAgent ?? null,
    ).rowsWritten;
  }

  /** Applies and forgets the exits that waited for this click; how many were new. */
  private applyPending(clickId: string, countedFrom = 0): number {
    const waiting = this.db.select().from(pendingExits).where(eq(pendingExits.clickId, clickId)).all();
    let applied = 0;
    for (const p of waiting) if (this.applyExit(p, countedFrom)) applied++;
    if (waiting.length) this.db.delete(pendingExits).where(eq(pendingExits.clickId, clickId)).run();
    return applied;
  }
}
