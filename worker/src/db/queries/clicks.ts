import { and, count, desc, eq, getTableColumns, gte, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { jsonChunks } from "../../lib/json-chunks";
import { changed, rawBatch } from "../raw-batch";
import { audienceValue, dimsTable, rollupStateHolds } from "./click-rollup";
import { campaigns, clicks, landerClicks } from "../schema";
import { AUDIENCE_GROUPINGS } from "../../schemas/stats";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";

export type NewClick = typeof clicks.$inferInsert;

/** Every column but the rowid, in the order each row's JSON tuple lists its values (a shard-day's insert binds them in it too: tracking/click-shard.ts). */
export const INSERTED = Object.entries(getTableColumns(clicks)).filter(([key]) => key !== "id") as [
  Exclude<keyof NewClick, "id">,
  { name: string; default?: unknown },
][];

/**
 * Rows travel as JSON tuples, one bound parameter per statement (lib/json-chunks.ts): a VALUES
 * insert is cut to 7 rows a statement by D1's 100-parameter limit, and a full batch of clicks would
 * need over a hundred statements. JSON keeps each value's type: text stays text, integers stay
 * integers, null stays null.
 */
const insertFromJson = (table: "clicks" | "attributed_clicks") =>
  sql.raw(
    `insert into "${table}" (${INSERTED.map(([, column]) => `"${column.name}"`).join(", ")}) ` +
      `select ${INSERTED.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ")}`,
  );
const INSERT_FROM_JSON = insertFromJson("clicks");

/** INSERT_FROM_JSON with the ids insertClicksOnce gives once the move has started (null: SQLite's own). */
const INSERT_PAST_MOVED = sql.raw(
  `insert into "clicks" ("id", ${INSERTED.map(([, column]) => `"${column.name}"`).join(", ")}) ` +
    `select case when exists (select 1 from click_moves) then max(coalesce((select max(id) from clicks), 0), ` +
    `coalesce((select click_watermark from click_rollup_state where id = 1), 0), (select point from click_moves where id = 1)) + key + 1 end, ` +
    `${INSERTED.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ")}`,
);

/**
 * A click's values in INSERTED's order: a value left out takes the column's default (the bot
 * flag), as a VALUES insert would, and a flag is 0 or 1, as SQLite stores it. D1's inserts send
 * them as JSON tuples; a shard-day binds them (tracking/click-shard.ts).
 */
export const clickValues = (row: NewClick) =>
  INSERTED.map(([key, column]) => {
    const value = row[key] ?? column.default ?? null;
    return typeof value === "boolean" ? Number(value) : (value as string | number | null);
  });

/** Many clicks in one round trip and one transaction: all stored, or none. */
export async function insertClicks(db: Db, rows: NewClick[]) {
  const chunks = jsonChunks(rows.map(clickValues));
  if (chunks.length)
    await rawBatch(
      db,
      chunks.map((chunk) => sql`${INSERT_FROM_JSON} from json_each(${chunk})`),
    );
}

const CAMPAIGN_AT = INSERTED.findIndex(([key]) => key === "campaignId");

/**
 * Clicks from the clicks queue (tracking/click-queue.ts): a click already stored (its message came
 * twice, or was retried after a failure part way) is left as it is, and a click whose
 * campaign was deleted meanwhile is dropped, so the write neither duplicates nor fails on them.
 * Returns how many were stored now. The same for the copies of the shard-day clicks CAKE reports
 * (`attributed_clicks`: tracking/attributed-clicks.ts).
 *
 * Once the move of D1's clicks has started (tracking/click-move.ts), a click D1 still takes (one
 * still in the queue at the switch, or replayed) gets an id above every id D1 has held: past the
 * newest row, the rollup's watermark and the move's point. SQLite alone would hand out the ids of
 * the newest rows after the move deleted them, and such a click would be counted by no one.
 */
export async function insertClicksOnce(db: Db, rows: NewClick[], table: "clicks" | "attributed_clicks" = "clicks") {
  const chunks = jsonChunks(rows.map(clickValues));
  if (!chunks.length) return 0;
  const insert = table === "clicks" ? INSERT_PAST_MOVED : insertFromJson(table);
  const results = await rawBatch(
    db,
    chunks.map(
      (chunk) => sql`${insert} from json_each(${chunk})
        where exists (select 1 from campaigns where id = json_extract(value, ${`$[${CAMPAIGN_AT}]`}))
        on conflict (click_id) do nothing`,
    ),
  );
  return results.reduce((n, r) => n + changed(r), 0);
}

/** What the ad platform told us about a click (the /r/ macros). */
const adColumns = {
  tiktokCampaignId: clicks.tiktokCampaignId,
  tiktokAdGroupId: clicks.tiktokAdGroupId,
  tiktokCreativeId: clicks.tiktokCreativeId,
  placement: clicks.placement,
  campaignName: clicks.campaignName,
  adGroupName: clicks.adGroupName,
  creativeName: clicks.creativeName,
};

/** What an exit reads of its click: its campaign, offer and the ad-platform values its offer template needs. */
export const CLICK_FOR_EXIT = { clickId: clicks.clickId, campaignId: clicks.campaignId, offerId: clicks.offerId, ...adColumns };

/** The recorded click an exit refers to, with the ad-platform values its offer template needs. */
export const findClick = (db: Db, clickId: string) => db.select(CLICK_FOR_EXIT).from(clicks).where(eq(clicks.clickId, clickId)).get();

export type ClickForExit = NonNullable<Awaited<ReturnType<typeof findClick>>>;

export interface ExitRecord {
  clickId: string;
  offerId: number;
  ipAddress: string | null;
  userAgent: string | null;
  at: number;
}

/** An exit: the click's first exit time (a later exit keeps it) and one lander_clicks row, atomically. */
export const recordExit = (db: Db, exit: ExitRecord) =>
  db.batch([
    db
      .update(clicks)
      .set({ exitedAt: exit.at })
      .where(and(eq(clicks.clickId, exit.clickId), isNull(clicks.exitedAt))),
    db.insert(landerClicks).values({
      clickId: exit.clickId,
      offerId: exit.offerId,
      ipAddress: exit.ipAddress,
      userAgent: exit.userAgent,
      clickedAt: exit.at,
    }),
  ]);

/**
 * An exit from the clicks queue (tracking/click-queue.ts): recorded as recordExit does, unless this
 * very exit (same click, same instant) already is (the message came twice). Returns "no click"
 * while the click is not stored (it may still be on its way through the queue): nothing is written
 * then; "no offer" when its offer was deleted meanwhile: the exit goes with it.
 */
export async function recordExitOnce(db: Db, exit: ExitRecord): Promise<"recorded" | "no click" | "no offer"> {
  const [found] = await db.all<{ n: number }>(sql`select 1 as n from clicks where click_id = ${exit.clickId}`);
  if (!found) return "no click";
  const [, inserted] = await rawBatch(db, [
    sql`update clicks set exited_at = ${exit.at} where click_id = ${exit.clickId} and exited_at is null`,
    sql`
      insert into lander_clicks (click_id, offer_id, ip_address, user_agent, clicked_at)
      select ${exit.clickId}, ${exit.offerId}, ${exit.ipAddress}, ${exit.userAgent}, ${exit.at}
      where exists (select 1 from clicks where click_id = ${exit.clickId}) and exists (select 1 from offers where id = ${exit.offerId})
        and not exists (select 1 from lander_clicks where click_id = ${exit.clickId} and clicked_at = ${exit.at})`,
  ]);
  if (inserted && changed(inserted) > 0) return "recorded";
  // Nothing inserted: recorded before (a repeated delivery), or its offer is gone. Rarely asked.
  const [offer] = await db.all<{ n: number }>(sql`select 1 as n from offers where id = ${exit.offerId}`);
  return offer ? "recorded" : "no offer";
}

/** Which of these click ids are stored. */
export async function storedClickIds(db: Db, clickIds: string[]) {
  const rows = await db.all<{ id: string }>(
    sql`select click_id as id from clicks where click_id in (select value from json_each(${JSON.stringify(clickIds)}))`,
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Clicks with `startMs <= clickedAt < endMs`, optionally of one campaign, only people's or only
 * bots', and of one country, device, OS or browser (null: the ones where it is not known).
 */
export interface ClickFilter {
  startMs: number;
  endMs: number;
  campaignId?: number;
  bot?: boolean;
  country?: string | null;
  deviceType?: string | null;
  os?: string | null;
  browser?: string | null;
  /** Only clicks with ids up to this: a legacy object's moved for good (tracking/click-id.ts `ClickPlace.upTo`). */
  maxId?: number;
}

const valueIs = (column: AnySQLiteColumn, value: string | null | undefined) =>
  value === undefined ? undefined : value === null ? isNull(column) : eq(column, value);

/** The filter's condition on `clicks` (a shard-day's table too: tracking/click-shard.ts). */
export const matching = (f: ClickFilter) =>
  and(
    gte(clicks.clickedAt, f.startMs),
    lt(clicks.clickedAt, f.endMs),
    f.campaignId === undefined ? undefined : eq(clicks.campaignId, f.campaignId),
    f.bot === undefined ? undefined : eq(clicks.bot, f.bot),
    valueIs(clicks.country, f.country),
    valueIs(clicks.deviceType, f.deviceType),
    valueIs(clicks.os, f.os),
    valueIs(clicks.browser, f.browser),
    f.maxId === undefined ? undefined : lte(clicks.id, f.maxId),
  );

/** A Click Log row's columns of the click itself (a shard-day holds these; the campaign's name is D1's). */
export const CLICK_LOG_COLUMNS = {
  id: clicks.id,
  clickId: clicks.clickId,
  campaignId: clicks.campaignId,
  ...adColumns,
  ipAddress: clicks.ipAddress,
  userAgent: clicks.userAgent,
  clickedAt: clicks.clickedAt,
  exitedAt: clicks.exitedAt,
  ttclid: clicks.ttclid,
  country: clicks.country,
  region: clicks.region,
  city: clicks.city,
  asn: clicks.asn,
  asOrganization: clicks.asOrganization,
  deviceType: clicks.deviceType,
  os: clicks.os,
  browser: clicks.browser,
  bot: clicks.bot,
  botReason: clicks.botReason,
};
const logColumns = { ...CLICK_LOG_COLUMNS, campaign: campaigns.name };

export type ClickLogRow = Awaited<ReturnType<typeof clickLogPage>>["rows"][number];

const newestFirst = [desc(clicks.clickedAt), desc(clicks.id)] as const;

/** The filter's whole days in the report time zone (the Click Log's range). */
export interface ClickLogDays {
  startDate: string;
  endDate: string;
  timeZone: string;
}

export interface ClickTotals {
  total: number;
  exits: number;
  bots: number;
}

/** The audience rollup's dimension of each visitor filter. */
const ROLLED_DIM = { country: "country", deviceType: "device", os: "os", browser: "browser" } as const;

/**
 * The rollup state's CTE `st` for rolledClickTotals and rolledClickCountsByCampaign: the watermarks
 * (`w` clicks, `e` exits) and `ok`, whether the rollup can answer for `days` exactly.
 */
const rollupStateCte = (days: ClickLogDays) => sql`
  st as materialized (
    select s.click_watermark as w, s.exit_watermark as e,
      (${rollupStateHolds(days.timeZone)}
        and ${days.startDate} > coalesce(
          (select date(max(day), '+1 day') from click_archives where archived_at is not null), '')) as ok
    from click_rollup_state s where s.id = 1)`;

/**
 * The filter's clicks in three parts, each row (campaign_id, c clicks, x exits, b bot clicks):
 * the rollup's rows of the days, the clicks past the click watermark, and the exits past the exit
 * watermark of clicks rolled up before. Empty unless `st.ok`. Null for a filter no rollup holds.
 */
function rolledParts(filter: ClickFilter, days: ClickLogDays): SQL | null {
  const visitor = (Object.keys(ROLLED_DIM) as (keyof typeof ROLLED_DIM)[]).filter((k) => filter[k] !== undefined);
  if (visitor.length > 1) return null;
  const dim = visitor[0];
  const rolled = dim ? sql`click_audience_daily d where d.dim = ${ROLLED_DIM[dim]} and d.value = ${filter[dim] ?? ""} and` : sql`click_daily_stats d where`;
  const rolledWhere = and(
    filter.campaignId === undefined ? undefined : sql`d.campaign_id = ${filter.campaignId}`,
    filter.bot === undefined ? undefined : sql`d.bot = ${filter.bot ? 1 : 0}`,
  );
  return sql`
    select d.campaign_id, d.clicks as c, d.exits as x, d.bot * d.clicks as b
    from ${rolled} d.date between ${days.startDate} and ${days.endDate}${rolledWhere ? sql` and ${rolledWhere}` : sql``}
      and (select ok from st) = 1
    union all
    select ${clicks.campaignId}, 1, ${clicks.exitedAt} is not null, ${clicks.bot}
    from ${clicks} not indexed
    where ${clicks.id} > (select w from st) and (select ok from st) = 1 and ${matching(filter)}
    union all
    select ${clicks.campaignId}, 0, 1, 0
    from ${clicks} indexed by clicks_exited_at_idx
    where ${clicks.exitedAt} > (select e from st) and ${clicks.id} <= (select w from st) and (select ok from st) = 1
      and ${matching(filter)}`;
}

/**
 * The filter's totals from the click rollups (click_daily_stats, or click_audience_daily when one
 * visitor value is filtered) plus what the cron has not rolled up yet (the clicks past the click
 * watermark and the exits past the exit watermark), the way the Stats report counts our clicks
 * (db/queries/stats.ts): rows read follow the days and the distinct values, not the clicks. One
 * statement, so a cron run moving the watermarks meanwhile cannot count a click twice or not at
 * all. Null when the rollups cannot answer exactly, and the caller counts the clicks: more than
 * one visitor value filtered (the rollup holds one per row), the rollup on another time zone's
 * days or its clicks no longer the table's (readRollupState's anchor), or the range reaching the
 * day after the last archived one (whose rollup rows also hold clicks the archive deleted, and
 * the rows of the day that follows a change of time zone, docs/data.md "Retention and archives").
 */
export async function rolledClickTotals(db: Db, filter: ClickFilter, days: ClickLogDays): Promise<ClickTotals | null> {
  const parts = rolledParts(filter, days);
  if (!parts) return null;
  const [row] = await db.all<{ usable: number; total: number; exits: number; bots: number }>(sql`
    with ${rollupStateCte(days)}
    select coalesce((select ok from st), 0) as usable, coalesce(sum(c), 0) as total, coalesce(sum(x), 0) as exits,
      coalesce(sum(b), 0) as bots from (${parts})`);
  return row?.usable ? { total: row.total, exits: row.exits, bots: row.bots } : null;
}

export interface CampaignClickCounts {
  campaignId: number;
  campaignName: string | null;
  totalClicks: number;
  exitClicks: number;
}

/**
 * Clicks and exits per campaign of the days, from the rollups as rolledClickTotals counts them;
 * null where they cannot answer exactly (the same cases). One more row (`answer`) says whether
 * they could, so an answer with no campaign is told from one the rollups could not give.
 */
export async function rolledClickCountsByCampaign(db: Db, filter: ClickFilter, days: ClickLogDays): Promise<CampaignClickCounts[] | null> {
  const parts = rolledParts(filter, days);
  if (!parts) return null;
  const rows = await db.all<CampaignClickCounts & { usable: number; answer: number }>(sql`
    with ${rollupStateCte(days)}
    select p.campaign_id as campaignId, ${campaigns.name} as campaignName, sum(p.c) as totalClicks, sum(p.x) as exitClicks,
      1 as usable, 0 as answer
    from (${parts}) p left join ${campaigns} on ${campaigns.id} = p.campaign_id
    group by p.campaign_id having sum(p.c) > 0
    union all
    select 0, null, 0, 0, coalesce((select ok from st), 0), 1`);
  if (!rows.some((r) => r.answer === 1 && r.usable === 1)) return null;
  return rows
    .filter((r) => r.answer === 0)
    .map(({ campaignId, campaignName, totalClicks, exitClicks }) => ({ campaignId, campaignName, totalClicks, exitClicks }))
    .sort((a, b) => a.campaignId - b.campaignId);
}

/** The totals counted click by click: exact for any filter, and read per click. */
export async function countedClickTotals(db: Db, filter: ClickFilter): Promise<ClickTotals> {
  const [row] = await db
    .select({ total: count(), exits: count(clicks.exitedAt), bots: sql<number>`coalesce(sum(${clicks.bot}), 0)` })
    .from(clicks)
    .where(matching(filter));
  return { total: row?.total ?? 0, exits: row?.exits ?? 0, bots: row?.bots ?? 0 };
}

/**
 * One page of the click log, newest first, with the totals of the whole filtered set. Given the
 * filter's days, the totals come from the rollups where they can (rolledClickTotals), read beside the
 * page; otherwise, or without days, they are counted click by click.
 */
export async function clickLogPage(db: Db, filter: ClickFilter, page: number, pageSize: number, days?: ClickLogDays) {
  const rowsQuery = db
    .select(logColumns)
    .from(clicks)
    .leftJoin(campaigns, eq(campaigns.id, clicks.campaignId))
    .where(matching(filter))
    .orderBy(...newestFirst)
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [rolled, rows] = await Promise.all([days ? rolledClickTotals(db, filter, days) : null, rowsQuery]);
  const totals = rolled ?? (await countedClickTotals(db, filter));
  return { ...totals, rows };
}

/**
 * Clicks after a page's last row, newest first: older than its time, or as old and past it by
 * `tie` (the row id here; the click id across a shard-day's objects: tracking/click-shard.ts).
 */
export const olderThan = (clickedAt: number, tie: SQL) => or(lt(clicks.clickedAt, clickedAt), and(eq(clicks.clickedAt, clickedAt), tie));

/**
 * The rows after `after` (keyset paging: newest first, ties broken by id), for exports that walk
 * the whole filtered set one bounded page at a time.
 */
export const clickRowsAfter = (db: Db, filter: ClickFilter, after: { clickedAt: number; id: number } | null, limit: number) =>
  db
    .select(logColumns)
    .from(clicks)
    .leftJoin(campaigns, eq(campaigns.id, clicks.campaignId))
    .where(and(matching(filter), after === null ? undefined : olderThan(after.clickedAt, lt(clicks.id, after.id))))
    .orderBy(...newestFirst)
    .limit(limit);

/**
 * The rows after `after` newest first, ties broken by click id: the order every store of raw
 * clicks shares (D1's row ids are its own), so D1's rows merge with the shard-days' into one
 * Click Log (tracking/click-log.ts).
 */
export const clickLogRowsAfter = (db: Db, filter: ClickFilter, after: { clickedAt: number; clickId: string } | null, limit: number) =>
  db
    .select(logColumns)
    .from(clicks)
    .leftJoin(campaigns, eq(campaigns.id, clicks.campaignId))
    .where(matchingAfter(filter, after))
    .orderBy(desc(clicks.clickedAt), desc(clicks.clickId))
    .limit(limit);

/** The filter's clicks after `after` in the order of clickLogRowsAfter (and of every shard-day's rows). */
export const matchingAfter = (filter: ClickFilter, after: { clickedAt: number; clickId: string } | null) =>
  and(matching(filter), after === null ? undefined : olderThan(after.clickedAt, lt(clicks.clickId, after.clickId)));

/** The keys of a Click Log row: where it sits in the order, and its campaign (a shard-day's may be deleted since). */
export const CLICK_LOG_KEY_COLUMNS = { clickedAt: clicks.clickedAt, clickId: clicks.clickId, campaignId: clicks.campaignId };

/** clickLogRowsAfter's rows as their keys only: what a deep page by number skips (tracking/click-log.ts `pageStart`). */
export const clickLogKeysAfter = (db: Db, filter: ClickFilter, after: { clickedAt: number; clickId: string } | null, limit: number) =>
  db.select(CLICK_LOG_KEY_COLUMNS).from(clicks).where(matchingAfter(filter, after)).orderBy(desc(clicks.clickedAt), desc(clicks.clickId)).limit(limit);

/** The names of these campaigns (a shard-day's rows carry only the id), by id; a deleted one has none. */
export async function campaignNames(db: Db, ids: Iterable<number>): Promise<Map<number, string>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  const rows = await db
    .select({ id: campaigns.id, name: campaigns.name })
    .from(campaigns)
    .where(sql`${campaigns.id} in (select value from json_each(${JSON.stringify(wanted)}))`);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** A filter's clicks, exits and bot clicks of one campaign in one store of raw clicks. */
export interface CampaignCounts extends ClickTotals {
  campaignId: number;
}

/**
 * A filter's counts per campaign in one store of raw clicks: every matching click, or (`since` the
 * rollup's watermarks of that store) only what the rollup has not counted yet: the clicks past its
 * click watermark, with their exits, and the exits past its exit watermark of the clicks before it,
 * as rolledClickTotals reads D1's, leaving out the exits D1's rollup counted before their click was
 * moved to a legacy object (its `counted_exits`). Run by a shard-day or legacy object on its own
 * clicks (tracking/click-shard.ts).
 */
export function campaignCountsQuery(filter: ClickFilter, since: { clickWatermark: number; exitWatermark: number } | null): SQL {
  const newClicks = sql`
    select ${clicks.campaignId} as k, 1 as c, ${clicks.exitedAt} is not null as x, ${clicks.bot} as b from ${clicks}
    where ${since ? sql`${clicks.id} > ${since.clickWatermark} and ` : sql``}${matching(filter)}`;
  const parts = since
    ? sql`${newClicks}
      union all
      select ${clicks.campaignId}, 0, 1, 0 from ${clicks} indexed by clicks_exited_at_idx
      where ${clicks.exitedAt} > ${since.exitWatermark} and ${clicks.id} <= ${since.clickWatermark} and ${matching(filter)}
        and ${clicks.clickId} not in (select click_id from counted_exits)`
    : newClicks;
  return sql`select k as campaignId, sum(c) as total, sum(x) as exits, sum(b) as bots from (${parts}) group by k`;
}

/**
 * Clicks and exits per campaign, with the campaign's name (the Click Log's campaign filter lists
 * these): from the rollups where they can answer (rolledClickCountsByCampaign), else counted click
 * by click.
 */
export async function clickCountsByCampaign(db: Db, filter: ClickFilter, days?: ClickLogDays): Promise<CampaignClickCounts[]> {
  return (days && (await rolledClickCountsByCampaign(db, filter, days))) ?? countedClickCountsByCampaign(db, filter);
}

/** Clicks and exits per campaign counted click by click: exact for any filter, and read per click. */
export const countedClickCountsByCampaign = (db: Db, filter: ClickFilter) =>
  db
    .select({ campaignId: clicks.campaignId, campaignName: campaigns.name, totalClicks: count(), exitClicks: count(clicks.exitedAt) })
    .from(clicks)
    .leftJoin(campaigns, eq(campaigns.id, clicks.campaignId))
    .where(matching(filter))
    .groupBy(clicks.campaignId)
    .orderBy(clicks.campaignId);

/** The Click Log filters by who clicked (the audience groupings), not by where traffic distribution sent them. */
const FACET_DIMS = AUDIENCE_GROUPINGS;

export interface ClickFacet {
  dim: (typeof FACET_DIMS)[number];
  value: string;
  clicks: number;
}

/**
 * The countries, devices, systems and browsers of the days' clicks, with how many each ('' not
 * known), for the Click Log's filters: the audience rollup's rows of the days plus the clicks not
 * rolled up yet, so it reads rows per distinct value, not per click. Choices only: right to the
 * day in the report time zone, not to the minute. The clicks not rolled up yet are found by id
 * (`not indexed`): by time, a day of a million clicks was read whole. While nothing is rolled up
 * (before the cron's first run, or while it rebuilds after a change of time zone) that walk goes
 * over every click kept, as the Stats report's does (db/queries/stats.ts).
 */
/**
 * The facet values of the clicks of [startMs, endMs) past a click watermark, in one store of raw
 * clicks: a shard-day's part not rolled up yet (tracking/click-log.ts), as clickFacets reads D1's.
 */
export const facetsPastQuery = (startMs: number, endMs: number, clickWatermark: number, maxId?: number) => sql`
  select a.dim as dim, ${audienceValue("k", FACET_DIMS)} as value, count(*) as clicks
  from clicks k cross join ${dimsTable(FACET_DIMS)}
  where k.id > ${clickWatermark}${maxId === undefined ? sql`` : sql` and k.id <= ${maxId}`} and k.clicked_at >= ${startMs} and k.clicked_at < ${endMs}
  group by 1, 2`;

export const clickFacets = (db: Db, days: { startDate: string; endDate: string; startMs: number; endMs: number }) =>
  db.all<ClickFacet>(sql`
    select dim, value, sum(clicks) as clicks from (
      select dim, value, clicks from click_audience_daily
      where dim in ${sql.raw(`(${FACET_DIMS.map((d) => `'${d}'`).join(", ")})`)} and date between ${days.startDate} and ${days.endDate}
      union all
      select a.dim, ${audienceValue("k", FACET_DIMS)}, 1
      from clicks k not indexed cross join ${dimsTable(FACET_DIMS)}
      where k.id > coalesce((select click_watermark from click_rollup_state where id = 1), 0)
        and k.clicked_at >= ${days.startMs} and k.clicked_at < ${days.endMs})
    group by dim, value
    order by dim, clicks desc, value`);
