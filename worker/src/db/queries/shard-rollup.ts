/**
 * The click rollup's part for the shard-days (docs/click-storage.md "The rollups and the reports"):
 * each shard-day object counts its own clicks and exits past its watermarks, grouped by the keys
 * of click_daily_stats and click_audience_daily, with the same expressions D1's step uses
 * (db/queries/click-rollup.ts); D1 adds the counts and moves that object's watermarks
 * (click_shard_rollups) in one atomic batch, applied only while the watermarks and the rollup's
 * time zone are still the ones counted from. A step repeated, overlapping or cut off therefore
 * never counts a click or an exit twice, nor skips one, as in D1's own rollup.
 *
 * What differs from D1's step: a shard-day holds no campaigns, so a click's lander and offer are
 * the ones it stored (every click since traffic distribution stores them; `unknown` and `none`
 * otherwise), and counts of a campaign deleted since are dropped by D1 (its rows went with it).
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { localDaySql, shiftDay, type OffsetSpan } from "../../lib/calendar-days";
import { LEGACY_DAY, type ClickPlace } from "../../tracking/click-id";
import { changed, rawBatch } from "../raw-batch";
import { AUDIENCE_DIMS, type AudienceDim } from "../schema";
import { AUDIENCE_KEY, AUDIENCE_VALUE, AUDIENCE_DIMS_TABLE, audienceValue, CLICK_FIELDS, GROUP_ALL, KEY_COLUMNS } from "./click-rollup";

/** Where a shard-day's counting stands: its last click rowid and exit time counted. */
export interface ShardWatermarks {
  clickWatermark: number;
  exitWatermark: number;
}

/** One step asked of an object: from its watermarks, exits up to `toExit`, at most `chunk` new clicks. */
export interface ShardRollupAsk extends ShardWatermarks {
  toExit: number;
  chunk: number;
  /** The report time zone's offsets over the object's UTC day (lib/calendar-days.ts `offsetSpans`). */
  spans: OffsetSpan[];
  /**
   * Where the archived days end (db/queries/click-archives.ts `archivedFrontier`), once any day
   * is archived: clicks before then are counted for good (a rebuild keeps the rows of archived
   * days), so a count takes only the clicks after, dated after the last archived day, and the
   * exits of those before, dated no later than it, as D1's step does
   * (db/queries/click-rollup.ts `rollUpStep`).
   */
  archived?: { day: string; endMs: number } | null;
  /**
   * A legacy object's step (tracking/click-move.ts): `point` is the move's, the highest D1 click id
   * moved for good. A click past it is a step's copy still in D1 too (D1 counts it), so it is not
   * counted here; and an exit D1 counted before its click was moved (the object's `counted_exits`)
   * is not counted again.
   */
  moved?: { point: number };
}

export type DailyCount = { date: string; campaign_id: number; bot: number; clicks: number; exits: number } & Record<(typeof CLICK_FIELDS)[number], string>;
export type AudienceCount = {
  dim: AudienceDim;
  date: string;
  campaign_id: number;
  tiktok_campaign_id: string;
  value: string;
  bot: number;
  clicks: number;
  exits: number;
};

/** An object's answer: the click rowid counted to, whether more clicks wait past it, and the counts. */
export interface ShardRollupCounts {
  toClick: number;
  more: boolean;
  daily: DailyCount[];
  audience: AudienceCount[];
}

/** click_daily_stats' ad values, named as the columns (null → ''). */
const NAMED_FIELDS = sql.raw(CLICK_FIELDS.map((f) => `coalesce(${f}, '') as ${f}`).join(", "));

/** A click's lander and offer as a shard-day has them: only what the click stored. */
const storedLander = (k: string) => `coalesce(cast(${k}.lander_id as text), case when ${k}.path_id is null then 'unknown' else 'none' end)`;
export const SHARD_AUDIENCE_VALUE: Record<AudienceDim, (k: string) => string> = {
  ...AUDIENCE_VALUE,
  lander: storedLander,
  landerOffer: (k) => `${storedLander(k)} || '|' || coalesce(cast(${k}.offer_id as text), 'none')`,
};

/**
 * The statements an object runs for a step up to click rowid `toClick`, on its own `clicks` (the
 * table and indexes are D1's: tracking/click-shard.ts): new clicks with their exits up to
 * `toExit`, and the exits past its exit watermark of clicks counted before. Each gives rows named
 * as DailyCount and AudienceCount.
 */
export function shardRollupQueries(ask: ShardRollupAsk, toClick: number): { daily: SQL[]; audience: SQL[] } {
  const zoneDay = localDaySql(sql.raw("clicked_at"), ask.spans);
  const { archived } = ask;
  // As D1's step dates them (db/queries/click-rollup.ts `rollUpStep`): an archived click's exit
  // no later than the last archived day, any other click no earlier than the day after it.
  const day = archived
    ? sql`case when clicked_at < ${archived.endMs} then min(${zoneDay}, ${archived.day}) else max(${zoneDay}, ${shiftDay(archived.day, 1)}) end`
    : zoneDay;
  const newClicks = sql`id > ${ask.clickWatermark} and id <= ${toClick}${archived ? sql` and clicked_at >= ${archived.endMs}` : sql``}`;
  // Exits of clicks counted before: rolled up past the watermark, or archived.
  const rolled = archived ? sql`(id <= ${ask.clickWatermark} or clicked_at < ${archived.endMs})` : sql`id <= ${ask.clickWatermark}`;
  const notCounted = ask.moved ? sql` and click_id not in (select click_id from counted_exits)` : sql``;
  const oldExits =
    (ask.clickWatermark > 0 || archived) && ask.toExit > ask.exitWatermark
      ? sql`exited_at > ${ask.exitWatermark} and exited_at <= ${ask.toExit} and ${rolled}${notCounted}`
      : null;
  const dailyOf = (where: SQL, counts: SQL, from: SQL) =>
    sql`select ${day} as date, campaign_id, ${NAMED_FIELDS}, bot, ${counts} from ${from} where ${where} ${GROUP_ALL}`;
  const audienceOf = (where: SQL, counts: SQL, from: SQL) => sql`
    select a.dim as dim, ${day} as date, k.campaign_id as campaign_id, coalesce(k.tiktok_campaign_id, '') as tiktok_campaign_id,
      ${audienceValue("k", AUDIENCE_DIMS, SHARD_AUDIENCE_VALUE)} as value, k.bot as bot, ${counts}
    from ${from} cross join ${AUDIENCE_DIMS_TABLE} where ${where} group by 1, 2, 3, 4, 5, 6`;
  const newCounts = sql`count(*) as clicks, count(case when exited_at <= ${ask.toExit} then 1 end) as exits`;
  const exitCounts = sql`0 as clicks, count(*) as exits`;
  // The audience's dimension table has one column, dim: the click's columns need no alias.
  const daily = [dailyOf(newClicks, newCounts, sql`clicks`)];
  const audience = [audienceOf(newClicks, newCounts, sql`clicks k`)];
  if (oldExits) {
    daily.push(dailyOf(oldExits, exitCounts, sql`clicks indexed by clicks_exited_at_idx`));
    audience.push(audienceOf(oldExits, exitCounts, sql`clicks k indexed by clicks_exited_at_idx`));
  }
  return { daily, audience };
}

/** Rows per JSON parameter: a few hundred bytes each, well inside D1's 2 MB for a value. */
const ROWS_PER_STATEMENT = 1000;

const chunks = <T>(rows: T[]) =>
  Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) => rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));

const field = (name: string) => sql.raw(`json_extract(value, '$.${name}')`);

/**
 * Adds an object's counts to D1's rollups and moves its watermarks from `from` to
 * `(counts.toClick, toExit)`, atomically, only while its watermarks are still `from` and the
 * rollup still counts `timeZone`'s days. Returns whether this batch moved them.
 */
export async function applyShardRollup(
  db: Db,
  place: { day: number; shard: number },
  from: ShardWatermarks,
  to: ShardWatermarks,
  counts: Pick<ShardRollupCounts, "daily" | "audience">,
  timeZone: string,
  now: number,
): Promise<boolean> {
  const { day, shard } = place;
  const unchanged = sql`exists (select 1 from click_rollup_state where id = 1 and time_zone = ${timeZone})
    and coalesce((select click_watermark from click_shard_rollups where day = ${day} and shard = ${shard}), 0) = ${from.clickWatermark}
    and coalesce((select exit_watermark from click_shard_rollups where day = ${day} and shard = ${shard}), 0) = ${from.exitWatermark}`;
  const liveCampaign = sql`${field("campaign_id")} in (select id from campaigns)`;
  const statements: SQL[] = [];
  for (const rows of chunks(counts.daily)) {
    statements.push(sql`
      insert into click_daily_stats (${KEY_COLUMNS}, clicks, exits)
      select ${field("date")}, ${field("campaign_id")}, ${sql.join(
        CLICK_FIELDS.map((f) => field(f)),
        sql`, `,
      )}, ${field("bot")}, ${field("clicks")}, ${field("exits")}
      from json_each(${JSON.stringify(rows)}) where ${liveCampaign} and ${unchanged}
      on conflict (${KEY_COLUMNS}) do update set
        clicks = click_daily_stats.clicks + excluded.clicks, exits = click_daily_stats.exits + excluded.exits`);
  }
  for (const rows of chunks(counts.audience)) {
    statements.push(sql`
      insert into click_audience_daily (${AUDIENCE_KEY}, clicks, exits)
      select ${field("dim")}, ${field("date")}, ${field("campaign_id")}, ${field("tiktok_campaign_id")}, ${field("value")}, ${field("bot")},
        ${field("clicks")}, ${field("exits")}
      from json_each(${JSON.stringify(rows)}) where ${liveCampaign} and ${unchanged}
      on conflict (${AUDIENCE_KEY}) do update set
        clicks = click_audience_daily.clicks + excluded.clicks, exits = click_audience_daily.exits + excluded.exits`);
  }
  statements.push(sql`
    insert into click_shard_rollups (day, shard, click_watermark, exit_watermark, rolled_at)
    select ${day}, ${shard}, ${to.clickWatermark}, ${to.exitWatermark}, ${now} where ${unchanged}
    on conflict (day, shard) do update set click_watermark = excluded.click_watermark, exit_watermark = excluded.exit_watermark,
      rolled_at = excluded.rolled_at`);
  const results = await rawBatch(db, statements);
  return changed(results[results.length - 1]!) === 1;
}

/** The shard-days' watermarks and when each was last counted, from the oldest day of `places` (or `fromDay`) on, and the legacy objects', keyed `day/shard`. */
export async function shardRollupMarks(db: Db, places: ClickPlace[] | { fromDay: number }) {
  // From the oldest day asked, and the legacy objects' (tracking/click-move.ts), which are no day's.
  const days = "fromDay" in places ? [places.fromDay] : places.map((p) => p.day).filter((day) => day !== LEGACY_DAY);
  const fromDay = days.length ? Math.min(...days) : Number.MAX_SAFE_INTEGER;
  const rows = await db.all<{ day: number; shard: number; clickWatermark: number; exitWatermark: number; rolledAt: number }>(sql`
    select day, shard, click_watermark as clickWatermark, exit_watermark as exitWatermark, rolled_at as rolledAt
    from click_shard_rollups where day >= ${fromDay} or day = ${LEGACY_DAY}`);
  return new Map(rows.map((r) => [`${r.day}/${r.shard}`, r]));
}
