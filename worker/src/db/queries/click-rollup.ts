/**
 * click_daily_stats, kept by the cron from clicks so the stats report never scans raw clicks and
 * the visitor's request writes nothing more than its click. Incremental and idempotent: a run
 * rolls up the clicks with ids past the click watermark and the exits stamped past the exit
 * watermark, and moves both watermarks in the same atomic batch, conditioned on nobody having
 * moved them meanwhile. A run repeated, overlapping or cut off therefore never counts a click or
 * an exit twice, nor skips one.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { shiftDay } from "../../lib/calendar-days";
import { localDaySql, offsetSpans } from "../../lib/calendar-days";
import { changed, rawBatch } from "../raw-batch";
import { AUDIENCE_DIMS, type AudienceDim } from "../schema";
import type { ArchivedFrontier } from "./click-archives";

export interface RollupState {
  timeZone: string;
  clickWatermark: number;
  /** clicks.click_id of row `clickWatermark` (null while nothing is rolled up). */
  anchorClickId: string | null;
  exitWatermark: number;
}

export type RollupTarget = Omit<RollupState, "timeZone">;

/** The one state row. */
const STATE_ID = 1;

/** The click dimensions click_daily_stats is keyed by, as clicks stores them (null → ''). */
export const CLICK_FIELDS = [
  "tiktok_campaign_id",
  "tiktok_ad_group_id",
  "tiktok_creative_id",
  "placement",
  "campaign_name",
  "ad_group_name",
  "creative_name",
] as const;
export type ClickField = (typeof CLICK_FIELDS)[number];

export const KEY_COLUMNS = sql.raw(`date, campaign_id, ${CLICK_FIELDS.join(", ")}, bot`);
const fieldValues = sql.raw(CLICK_FIELDS.map((f) => `coalesce(${f}, '')`).join(", "));
export const GROUP_ALL = sql.raw("group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10");

/**
 * A click's lander and offer as the stats name them. Clicks since traffic distribution store the
 * ones they were sent to (`lander_id` null with a path: straight to the offer, 'none'); older clicks
 * stored neither, and had exactly their campaign's, so they are read from the campaign
 * (docs/traffic-distribution.md "Reports"). 'unknown': the campaign has none any more.
 */
const clickLander = (k: string) =>
  `coalesce(cast(${k}.lander_id as text), case when ${k}.path_id is null ` +
  `then (select cast(c.lander_id as text) from campaigns c where c.id = ${k}.campaign_id) else 'none' end, 'unknown')`;
const clickOffer = (k: string) =>
  `coalesce(cast(${k}.offer_id as text), case when ${k}.path_id is null and ${k}.lander_id is null ` +
  `then (select cast(c.offer_id as text) from campaigns c where c.id = ${k}.campaign_id) end, 'none')`;

/**
 * The value of each dimension of click_audience_daily, read from a click `k` ('' unknown). A click
 * of a campaign without paths of its own went through its implicit default path: `c<campaign id>`.
 */
export const AUDIENCE_VALUE: Record<AudienceDim, (k: string) => string> = {
  country: (k) => `coalesce(${k}.country, '')`,
  device: (k) => `coalesce(${k}.device_type, '')`,
  os: (k) => `coalesce(${k}.os, '')`,
  browser: (k) => `coalesce(${k}.browser, '')`,
  path: (k) => `coalesce(cast(${k}.path_id as text), 'c' || ${k}.campaign_id, '')`,
  lander: (k) => `coalesce(${clickLander(k)}, '')`,
  landerOffer: (k) => `coalesce(${clickLander(k)} || '|' || ${clickOffer(k)}, '')`,
};
export const AUDIENCE_KEY = sql.raw("dim, date, campaign_id, tiktok_campaign_id, value, bot");
/**
 * Every click once per dimension of `dims`: `a.dim` names it, `audienceValue` reads its value ('' unknown).
 * A JSON array rather than a compound SELECT: D1 allows at most 5 terms in one.
 */
export const dimsTable = (dims: readonly AudienceDim[]) => sql.raw(`(select value as dim from json_each('${JSON.stringify(dims)}')) a`);
export const AUDIENCE_DIMS_TABLE = dimsTable(AUDIENCE_DIMS);
export const audienceValue = (clicksAlias: string, dims: readonly AudienceDim[] = AUDIENCE_DIMS, values = AUDIENCE_VALUE) =>
  sql.raw(`case a.dim ${dims.map((d) => `when '${d}' then ${values[d](clicksAlias)}`).join(" ")} end`);

export async function readRollupState(db: Db): Promise<RollupState | null> {
  const [row] = await db.all<RollupState>(sql`
    select time_zone as timeZone, click_watermark as clickWatermark, anchor_click_id as anchorClickId,
      exit_watermark as exitWatermark
    from click_rollup_state where id = ${STATE_ID}`);
  return row ?? null;
}

/**
 * Whether the clicks the state says are rolled up are still the ones in the table. clicks has no
 * AUTOINCREMENT: when the newest rows are deleted (their campaign deleted) SQLite hands their ids
 * out again, and a click with a reused id at or below the watermark would never be counted. The
 * row at the watermark changing or vanishing is the sign of it; vanishing only until the move of
 * D1's clicks has started (tracking/click-move.ts): D1 hands out no id twice from then on
 * (db/queries/clicks.ts `insertClicksOnce`), and the anchor leaves with the move or the retention.
 */
export async function anchorHolds(db: Db, state: RollupState): Promise<boolean> {
  if (state.clickWatermark === 0) return true;
  const [row] = await db.all<{ clickId: string | null; moving: number }>(sql`
    select (select click_id from clicks where id = ${state.clickWatermark}) as clickId, exists (select 1 from click_moves) as moving`);
  if (row?.clickId === state.anchorClickId) return true;
  // Moved away (or archived) once the move has started, when D1 hands out no id twice (clicks.ts insertClicksOnce).
  return row?.clickId === null && row.moving === 1;
}

/**
 * anchorHolds inside a statement, with the time zone: whether the rollup state row `s`
 * (click_rollup_state) can be read for `timeZone`'s days, its days being that zone's and its
 * clicks still the table's. For reads that take the state in the same statement as the rollup's
 * rows (db/queries/stats.ts, db/queries/clicks.ts).
 */
export const rollupStateHolds = (timeZone: string) => sql`(s.time_zone = ${timeZone} and (s.click_watermark = 0 or exists (
  select 1 from clicks a where a.id = s.click_watermark and a.click_id = s.anchor_click_id) or (
  not exists (select 1 from clicks a where a.id = s.click_watermark) and exists (select 1 from click_moves))))`;

/**
 * Empties the rollup and starts it over for a time zone, atomically, except for the days whose
 * raw clicks are archived (retention): nothing could rebuild those, so their rows stay as they
 * were counted, and the rebuild takes only the clicks after them (see rollUpStep's `frontier`).
 * The exit watermark is kept: those rows count their clicks' exits up to it (the clicks rolled
 * up again count all of theirs when they are).
 */
/** The last archived day ('' when none): rows up to it are kept by a rebuild. */
const ARCHIVED_UNTIL = sql`coalesce((select max(day) from click_archives where archived_at is not null), '')`;

export async function resetRollup(db: Db, timeZone: string, now: number, exitWatermark = 0) {
  await rawBatch(db, [
    sql`delete from click_daily_stats where date > ${ARCHIVED_UNTIL}`,
    sql`delete from click_audience_daily where date > ${ARCHIVED_UNTIL}`,
    // The shard-days' clicks are counted again from the start too (db/queries/shard-rollup.ts).
    sql`delete from click_shard_rollups`,
    sql`
      insert into click_rollup_state (id, time_zone, click_watermark, anchor_click_id, exit_watermark, updated_at)
      values (${STATE_ID}, ${timeZone}, 0, null, ${exitWatermark}, ${now})
      on conflict (id) do update set time_zone = excluded.time_zone, click_watermark = 0, anchor_click_id = null,
        exit_watermark = excluded.exit_watermark, updated_at = excluded.updated_at`,
  ]);
}

/**
 * The click `limit` rows past `after` (by id), or the newest click when fewer are left; null
 * when there is no click past `after`.
 */
export async function chunkEnd(db: Db, after: number, limit: number): Promise<{ id: number; clickId: string } | null> {
  const [row] = await db.all<{ id: number; clickId: string }>(sql`
    select id, click_id as clickId from clicks
    where id = coalesce(
      (select id from clicks where id > ${after} order by id limit 1 offset ${limit - 1}),
      (select max(id) from clicks where id > ${after}))`);
  return row ?? null;
}

/**
 * Moves the rollup from `from` to `to` in one atomic batch: adds the clicks with ids in
 * (from.clickWatermark, to.clickWatermark] (with those of their exits stamped up to
 * to.exitWatermark), and the exits stamped in (from.exitWatermark, to.exitWatermark] of the
 * clicks already rolled up. Every statement applies only while the state still reads `from`, so
 * a second run racing this one adds nothing. Returns whether this batch moved it.
 *
 * `frontier`: the archived days (retention). Their clicks are counted already (a rebuild keeps
 * their rows and skips them) and only their exits can still come. Their rows stay theirs alone:
 * an archived click's exit is dated no later than the last archived day, any other click no
 * earlier than the day after it (after a change of time zone a day can straddle the frontier).
 */
export async function rollUpStep(db: Db, from: RollupState, to: RollupTarget, now: number, frontier: ArchivedFrontier | null = null): Promise<boolean> {
  const newClicks = sql`id > ${from.clickWatermark} and id <= ${to.clickWatermark}${frontier ? sql` and clicked_at >= ${frontier.endMs}` : sql``}`;
  // Exits of clicks counted before (rolled up, or archived): when there are such clicks and the
  // exit watermark moves.
  const rolled = frontier ? sql`(id <= ${from.clickWatermark} or clicked_at < ${frontier.endMs})` : sql`id <= ${from.clickWatermark}`;
  const oldExits =
    (from.clickWatermark > 0 || frontier) && to.exitWatermark > from.exitWatermark
      ? sql`exited_at > ${from.exitWatermark} and exited_at <= ${to.exitWatermark} and ${rolled}`
      : null;
  const [bounds] = await db.all<{ lo: number | null; hi: number | null }>(sql`
    select min(lo) as lo, max(hi) as hi from (
      select min(clicked_at) as lo, max(clicked_at) as hi from clicks where ${newClicks}
      ${oldExits ? sql`union all select min(clicked_at), max(clicked_at) from clicks indexed by clicks_exited_at_idx where ${oldExits}` : sql``})`);
  const zoneDay = localDaySql(sql.raw("clicked_at"), offsetSpans(bounds?.lo ?? now, bounds?.hi ?? now, from.timeZone));
  const day = frontier
    ? sql`case when clicked_at < ${frontier.endMs} then min(${zoneDay}, ${frontier.day}) else max(${zoneDay}, ${shiftDay(frontier.day, 1)}) end`
    : zoneDay;
  const unchanged: SQL = sql`exists (
    select 1 from click_rollup_state where id = ${STATE_ID} and time_zone = ${from.timeZone}
      and click_watermark = ${from.clickWatermark} and exit_watermark = ${from.exitWatermark})`;
  const statements: SQL[] = [
    sql`
      insert into click_daily_stats (${KEY_COLUMNS}, clicks, exits)
      select ${day}, campaign_id, ${fieldValues}, bot, count(*), count(case when exited_at <= ${to.exitWatermark} then 1 end)
      from clicks
      where ${newClicks} and ${unchanged}
      ${GROUP_ALL}
      on conflict (${KEY_COLUMNS}) do update set
        clicks = click_daily_stats.clicks + excluded.clicks, exits = click_daily_stats.exits + excluded.exits`,
    sql`
      insert into click_audience_daily (${AUDIENCE_KEY}, clicks, exits)
      select a.dim, ${day}, k.campaign_id, coalesce(k.tiktok_campaign_id, ''), ${audienceValue("k")}, k.bot, count(*),
        count(case when k.exited_at <= ${to.exitWatermark} then 1 end)
      from clicks k cross join ${AUDIENCE_DIMS_TABLE}
      where ${newClicks} and ${unchanged}
      group by 1, 2, 3, 4, 5, 6
      on conflict (${AUDIENCE_KEY}) do update set
        clicks = click_audience_daily.clicks + excluded.clicks, exits = click_audience_daily.exits + excluded.exits`,
  ];
  if (oldExits) {
    statements.push(
      sql`
        insert into click_daily_stats (${KEY_COLUMNS}, clicks, exits)
        select ${day}, campaign_id, ${fieldValues}, bot, 0, count(*)
        from clicks indexed by clicks_exited_at_idx
        where ${oldExits} and ${unchanged}
        ${GROUP_ALL}
        on conflict (${KEY_COLUMNS}) do update set exits = click_daily_stats.exits + excluded.exits`,
      sql`
        insert into click_audience_daily (${AUDIENCE_KEY}, clicks, exits)
        select a.dim, ${day}, k.campaign_id, coalesce(k.tiktok_campaign_id, ''), ${audienceValue("k")}, k.bot, 0, count(*)
        from clicks k indexed by clicks_exited_at_idx cross join ${AUDIENCE_DIMS_TABLE}
        where ${oldExits} and ${unchanged}
        group by 1, 2, 3, 4, 5, 6
        on conflict (${AUDIENCE_KEY}) do update set exits = click_audience_daily.exits + excluded.exits`,
    );
  }
  statements.push(sql`
    update click_rollup_state set click_watermark = ${to.clickWatermark}, anchor_click_id = ${to.anchorClickId},
      exit_watermark = ${to.exitWatermark}, updated_at = ${now}
    where id = ${STATE_ID} and time_zone = ${from.timeZone} and click_watermark = ${from.clickWatermark}
      and exit_watermark = ${from.exitWatermark}`);
  const results = await rawBatch(db, statements);
  return changed(results[results.length - 1]!) === 1;
}
