/**
 * CAKE data in D1: the conversion ledger (cake_conversions), cake_stats, and the per-click-
 * dimension rollup the reports read (cake_attributed_daily).
 *
 * One rule keeps them consistent whatever order things arrive in: a cake_stats row's
 * conversions and revenue are the sum of the `counted` ledger rows with its key; its clicks are
 * what the last pull's click report said. A pull rebuilds each of its days from that rule inside
 * one atomic batch; a postback adds its one conversion to the same rows in another.
 */
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { AUDIENCE_DIMS, clicks } from "../schema";
import type { Db } from "../../env";
import { isCountedDisposition, type CakeClick, type CakeConversion } from "../../integrations/cake";
import { splitDays } from "../../lib/calendar-days";
import { jsonAt, jsonChunks } from "../../lib/json-chunks";
import { changed, rawBatch } from "../raw-batch";
import { AUDIENCE_DIMS_TABLE, audienceValue } from "./click-rollup";
import { archivedLastPostback } from "./conversion-archives";
import type { KeptCampaign } from "./campaigns";
import { SHARD_AUDIENCE_VALUE } from "./shard-rollup";

export interface DayRange {
  start: string;
  end: string;
}

/** Every counted conversion's key is also a cake_stats key; these are the columns of both. */
const KEY = sql.raw("date, offer_id, subid1, subid2, subid3");
const sameKey = (other: string, table: string) =>
  sql.raw(["date", "offer_id", "subid1", "subid2", "subid3"].map((c) => `${other}.${c} = ${table}.${c}`).join(" and "));

/** What cake_attributed_daily holds per row, in its insert order. */
const ATTRIBUTED_COLUMNS = sql.raw(
  "date, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement, campaign_name, " +
    "ad_group_name, creative_name, offer_id, offer_name, subid1, subid3, clicks, conversions, revenue_cents",
);
/** What cake_audience_daily holds per row, in its insert order (its key, then the figures). */
const AUDIENCE_KEY = sql.raw("dim, date, campaign_id, tiktok_campaign_id, value, subid1, subid3");
const AUDIENCE_COLUMNS = sql.raw("dim, date, campaign_id, tiktok_campaign_id, value, subid1, subid3, clicks, conversions, revenue_cents");
/** The click's campaign and ad values (joined as `k`); no matching click is campaign 0 ("Direct"), blanks. */
const CLICK_DIMENSIONS = sql.raw(
  "coalesce(k.campaign_id, 0), coalesce(k.tiktok_campaign_id, ''), coalesce(k.tiktok_ad_group_id, ''), " +
    "coalesce(k.tiktok_creative_id, ''), coalesce(k.placement, ''), coalesce(k.campaign_name, ''), " +
    "coalesce(k.ad_group_name, ''), coalesce(k.creative_name, '')",
);

/** Every column of a raw click, by name: D1's `clicks` and `attributed_clicks` hold the same ones, in different orders. */
const CLICK_COLUMN_LIST = sql.raw(
  Object.values(getTableColumns(clicks))
    .map((c) => `"${c.name}"`)
    .join(", "),
);

/**
 * The click with this id as a table of one row or none, whichever store holds it: D1's `clicks`,
 * or a shard-day click's copy in `attributed_clicks` (tracking/attributed-clicks.ts). Both arms are
 * one lookup of a unique index.
 */
const clickById = (clickId: string) =>
  sql`(select ${CLICK_COLUMN_LIST} from clicks where click_id = ${clickId}
    union all select ${CLICK_COLUMN_LIST} from attributed_clicks where click_id = ${clickId})`;

/**
 * The cake_stats rows of the days joined (as `k`) to their clicks in one store: D1's `clicks`
 * (and the rows of no click: campaign 0, "Direct"), or the copies of the shard-day clicks CAKE reports.
 * The two never hold the same id, so the two joins together give each row once.
 */
function statsWithClicks(days: DayRange, store: "clicks" | "attributed_clicks"): { from: SQL; where: SQL } {
  const inDays = sql`s.date between ${days.start} and ${days.end}`;
  return store === "clicks"
    ? {
        from: sql`cake_stats s left join clicks k on s.subid2 <> '' and k.click_id = s.subid2`,
        where: sql`${inDays} and not exists (select 1 from attributed_clicks c where s.subid2 <> '' and c.click_id = s.subid2)`,
      }
    : { from: sql`cake_stats s join attributed_clicks k on s.subid2 <> '' and k.click_id = s.subid2`, where: inDays };
}

/**
 * CAKE's click report rows of shard-day clicks, summed by a shard-day object over its own clicks
 * (tracking/click-shard.ts `applyCakeClicks`, its `cake_clicks` table): what the rebuild adds to
 * D1's part. Clicks only; conversions stay in D1's ledger and cake_stats.
 */
export interface ShardAttributedRow {
  date: string;
  campaignId: number;
  tiktokCampaignId: string;
  tiktokAdGroupId: string;
  tiktokCreativeId: string;
  placement: string;
  campaignName: string;
  adGroupName: string;
  creativeName: string;
  offerId: number;
  offerName: string;
  subid1: string;
  subid3: string;
  clicks: number;
}
export interface ShardAudienceRow {
  dim: string;
  date: string;
  campaignId: number;
  tiktokCampaignId: string;
  value: string;
  subid1: string;
  subid3: string;
  clicks: number;
}
export interface ShardCakeParts {
  attributed: ShardAttributedRow[];
  audience: ShardAudienceRow[];
}

/**
 * The statements a shard-day object runs over its `cake_clicks` for the days: its rows joined to
 * its clicks by sub2, summed by the two rollups' keys with the expressions D1's rebuild uses. A
 * row of no click, or of a click whose campaign is not among `campaigns` (db/queries/campaigns.ts
 * `KeptCampaign`), is campaign 0, "Direct", as in D1, whose clicks go with their campaign. The
 * audience values are the ones a shard-day click stored (db/queries/shard-rollup.ts
 * `SHARD_AUDIENCE_VALUE`).
 */
export function shardCakeQueries(days: DayRange, campaigns: KeptCampaign[]): { attributed: SQL; audience: SQL } {
  const from = sql`cake_clicks s left join clicks k on k.click_id = s.subid2 and exists (
    select 1 from json_each(${JSON.stringify(campaigns)}) c
    where json_extract(c.value, '$[0]') = k.campaign_id and k.clicked_at >= json_extract(c.value, '$[1]'))`;
  const inDays = sql`s.date between ${days.start} and ${days.end}`;
  return {
    attributed: sql`
      select s.date as date, coalesce(k.campaign_id, 0) as campaignId, coalesce(k.tiktok_campaign_id, '') as tiktokCampaignId,
        coalesce(k.tiktok_ad_group_id, '') as tiktokAdGroupId, coalesce(k.tiktok_creative_id, '') as tiktokCreativeId,
        coalesce(k.placement, '') as placement, coalesce(k.campaign_name, '') as campaignName,
        coalesce(k.ad_group_name, '') as adGroupName, coalesce(k.creative_name, '') as creativeName,
        s.offer_id as offerId, max(s.offer_name) as offerName, s.subid1 as subid1, s.subid3 as subid3, sum(s.clicks) as clicks
      from ${from}
      where ${inDays}
      group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13`,
    audience: sql`
      select a.dim as dim, s.date as date, coalesce(k.campaign_id, 0) as campaignId, coalesce(k.tiktok_campaign_id, '') as tiktokCampaignId,
        ${audienceValue("k", AUDIENCE_DIMS, SHARD_AUDIENCE_VALUE)} as value, s.subid1 as subid1, s.subid3 as subid3, sum(s.clicks) as clicks
      from ${from} cross join ${AUDIENCE_DIMS_TABLE}
      where ${inDays}
      group by 1, 2, 3, 4, 5, 6, 7`,
  };
}

/** The objects' parts added to the rollups D1's part was just written to, row for row (a shared key sums). */
function shardPartStatements({ attributed, audience }: ShardCakeParts): SQL[] {
  const cols = (n: number) =>
    sql.join(
      Array.from({ length: n }, (_, i) => jsonAt(i)),
      sql`, `,
    );
  const attributedRows = attributed.map((r) => [
    r.date,
    r.campaignId,
    r.tiktokCampaignId,
    r.tiktokAdGroupId,
    r.tiktokCreativeId,
    r.placement,
    r.campaignName,
    r.adGroupName,
    r.creativeName,
    r.offerId,
    r.offerName,
    r.subid1,
    r.subid3,
    r.clicks,
  ]);
  const audienceRows = audience.map((r) => [r.dim, r.date, r.campaignId, r.tiktokCampaignId, r.value, r.subid1, r.subid3, r.clicks]);
  return [
    ...jsonChunks(attributedRows).map(
      (chunk) => sql`
      insert into cake_attributed_daily (${ATTRIBUTED_COLUMNS})
      select ${cols(14)}, 0, 0 from json_each(${chunk}) where true
      on conflict (${ATTRIBUTED_KEY}) do update set clicks = cake_attributed_daily.clicks + excluded.clicks,
        offer_name = case when cake_attributed_daily.offer_name = '' then excluded.offer_name else cake_attributed_daily.offer_name end`,
    ),
    ...jsonChunks(audienceRows).map(
      (chunk) => sql`
      insert into cake_audience_daily (${AUDIENCE_COLUMNS})
      select ${cols(8)}, 0, 0 from json_each(${chunk}) where true
      on conflict (${AUDIENCE_KEY}) do update set clicks = cake_audience_daily.clicks + excluded.clicks`,
    ),
  ];
}

const ATTRIBUTED_KEY = sql.raw(
  "date, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement, campaign_name, ad_group_name, " +
    "creative_name, offer_id, subid1, subid3",
);

/**
 * cake_attributed_daily for the days, rebuilt from cake_stats joined to our clicks through
 * sub2 = clickId (no match: campaign 0, the report's "Direct"), in D1 or copied from a shard-day,
 * plus the shard-day objects' sums of their click report rows (`shardParts`, when the clicks are
 * in objects: tracking/cake-shards.ts). Exported for whoever seeds cake_stats another way
 * (benchmarks, backfills).
 */
export function rebuildAttributedStatements(days: DayRange, shardParts?: ShardCakeParts): SQL[] {
  // Each store's rows, once for the audience rollup and once for the attributed one.
  const joined = (["clicks", "attributed_clicks"] as const).map((store) => statsWithClicks(days, store));
  return [
    // The same rows over one audience value of the click at a time (country, device, OS, browser).
    sql`delete from cake_audience_daily where date between ${days.start} and ${days.end}`,
    ...joined.map(
      ({ from, where }) => sql`
      insert into cake_audience_daily (${AUDIENCE_COLUMNS})
      select a.dim, s.date, coalesce(k.campaign_id, 0), coalesce(k.tiktok_campaign_id, ''), ${audienceValue("k")}, s.subid1, s.subid3,
        sum(s.clicks), sum(s.conversions), sum(s.revenue_cents)
      from ${from} cross join ${AUDIENCE_DIMS_TABLE}
      where ${where}
      group by 1, 2, 3, 4, 5, 6, 7
      on conflict (${AUDIENCE_KEY}) do update set clicks = cake_audience_daily.clicks + excluded.clicks,
        conversions = cake_audience_daily.conversions + excluded.conversions,
        revenue_cents = cake_audience_daily.revenue_cents + excluded.revenue_cents`,
    ),
    sql`delete from cake_attributed_daily where date between ${days.start} and ${days.end}`,
    ...joined.map(
      ({ from, where }) => sql`
      insert into cake_attributed_daily (${ATTRIBUTED_COLUMNS})
      select s.date, ${CLICK_DIMENSIONS}, s.offer_id, max(s.offer_name), s.subid1, s.subid3,
        sum(s.clicks), sum(s.conversions), sum(s.revenue_cents)
      from ${from}
      where ${where}
      group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13
      on conflict (${ATTRIBUTED_KEY}) do update set clicks = cake_attributed_daily.clicks + excluded.clicks,
        conversions = cake_attributed_daily.conversions + excluded.conversions,
        revenue_cents = cake_attributed_daily.revenue_cents + excluded.revenue_cents`,
    ),
    ...(shardParts ? shardPartStatements(shardParts) : []),
  ];
}

export async function rebuildAttributed(db: Db, days: DayRange) {
  await rawBatch(db, rebuildAttributedStatements(days));
}

export interface CakePull {
  runId: number;
  now: number;
  /** The days the pull asked CAKE for: their clicks are replaced by the pulled ones. */
  pulled: DayRange;
  /**
   * The days whose conversions and revenue are recomputed from the ledger: the pulled days and a
   * margin before them, where postbacks the pull now reports may have been counted.
   */
  rebuild: DayRange;
  /** Postbacks that arrived before this and that a pull covering their day has not reported are retired. */
  graceCutoff: number;
  /** One row per key (date, offer, sub1, sub2, sub3), all inside `pulled`: the rows D1 keeps (not a shard-day click's). */
  clicks: CakeClick[];
  /** The shard-day objects' sums of their click report rows over `rebuild` (tracking/cake-shards.ts), written by them already. */
  shardParts?: ShardCakeParts;
}

/** CAKE click report rows as JSON arrays for `json_each`, in chunks (cake_sync_staging, cake_pull_rows). */
const cakeClickChunks = (rows: CakeClick[]) => jsonChunks(rows.map((c) => [c.date, c.offerId, c.offerName, c.subid1, c.subid2, c.subid3, c.clicks]));

/** A chunk's row read back: date, offer_id, offer_name, subid1, subid2, subid3, clicks. */
const CAKE_CLICK_VALUES = sql.join([0, 1, 2, 3, 4, 5, 6].map(jsonAt), sql`, `);

/** Staged conversions a statement writes into the ledger: a few seconds each at the target's days (docs/click-storage.md "The CAKE pull in steps"). */
const LEDGER_ROWS_PER_STATEMENT = 50_000;

/**
 * The pull's conversions, staged for its run and first day (`stagePulledConversions`), into the
 * ledger, LEDGER_ROWS_PER_STATEMENT at a time, each statement its own transaction. A conversion the
 * pull reports is a pull row from now on, whoever saw it first: a postback with the same id turns
 * into it, so it is counted once. A row the pull reports as it stands is not written again (every
 * pull of the day reports most of them again); `pulled_at` and `pull_run_id` say which pull last
 * changed it.
 */
async function writePulledConversions(db: Db, pull: { runId: number; now: number; start: string }) {
  const { runId, now, start } = pull;
  const [span] = await db.all<{ lo: number | null; hi: number | null }>(
    sql`select min(rowid) as lo, max(rowid) as hi from cake_pull_conversions where run_id = ${runId} and start = ${start}`,
  );
  if (span?.lo == null || span.hi == null) return;
  for (let lo = span.lo; lo <= span.hi; lo += LEDGER_ROWS_PER_STATEMENT) {
    await db.run(sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, offer_name, subid1, subid2, subid3,
        revenue_cents, disposition, counted, pulled_at, pull_run_id)
      select conversion_id, 'pull', date, offer_id, offer_name, subid1, subid2, subid3, revenue_cents, disposition, counted, ${now}, ${runId}
      from cake_pull_conversions
      where rowid between ${lo} and ${lo + LEDGER_ROWS_PER_STATEMENT - 1} and run_id = ${runId} and start = ${start}
      on conflict (conversion_id) do update set
        source = 'pull', date = excluded.date, offer_id = excluded.offer_id, offer_name = ${nameOrKept("cake_conversions")},
        subid1 = excluded.subid1, subid2 = excluded.subid2, subid3 = excluded.subid3,
        revenue_cents = excluded.revenue_cents, disposition = excluded.disposition, counted = excluded.counted,
        pulled_at = excluded.pulled_at, pull_run_id = excluded.pull_run_id, retired_at = null, retired_reason = null
      where cake_conversions.source <> 'pull' or cake_conversions.date <> excluded.date or cake_conversions.offer_id <> excluded.offer_id
        or cake_conversions.offer_name <> ${nameOrKept("cake_conversions")} or cake_conversions.subid1 <> excluded.subid1
        or cake_conversions.subid2 <> excluded.subid2 or cake_conversions.subid3 <> excluded.subid3
        or cake_conversions.revenue_cents <> excluded.revenue_cents or cake_conversions.disposition <> excluded.disposition
        or cake_conversions.counted <> excluded.counted or cake_conversions.retired_at is not null`);
  }
}

const nameOrKept = (table: string) => sql.raw(`case when excluded.offer_name <> '' then excluded.offer_name else ${table}.offer_name end`);

/**
 * Writes one pull: its conversions into the ledger first (`writePulledConversions`), then a day at
 * a time, each day of the rebuild in a single atomic batch (D1 runs a batch as one transaction):
 * the day's cake_stats and rollups, all of it or none, from the ledger. A day is the
 * unit: every row of cake_stats and of the rollups has one, the rule above holds within it, and
 * at the target's 650,000 conversions a day one batch of the rebuild's three days held D1 about
 * 25 s, a day's at most about 15 s (docs/click-storage.md "The CAKE pull in steps"). A pull cut
 * off part way leaves each day either as this pull writes it or as the last one did, and
 * conversions in the ledger that cake_stats does not count yet: a postback of one counts nothing
 * (the pull reported it), and the next pull of the day counts them. Re-running the same pull
 * changes nothing. Returns how many cake_stats rows changed.
 */
export async function applyCakePull(db: Db, pull: CakePull): Promise<number> {
  await writePulledConversions(db, { runId: pull.runId, now: pull.now, start: pull.pulled.start });
  let changedRows = 0;
  for (const { start: day } of splitDays(pull.rebuild.start, pull.rebuild.end, 1).reverse()) {
    const statements = cakeDayStatements(pull, day);
    const results = await rawBatch(db, [...statements.before, ...statements.stats, ...statements.after]);
    changedRows += results.slice(statements.before.length, statements.before.length + statements.stats.length).reduce((sum, res) => sum + changed(res), 0);
  }
  return changedRows;
}

/** One day of a pull's write (`applyCakePull`): `stats` are the statements whose changes it counts. */
function cakeDayStatements(pull: CakePull, day: string): { before: SQL[]; stats: SQL[]; after: SQL[] } {
  const { runId, now } = pull;
  const pulled = day >= pull.pulled.start && day <= pull.pulled.end;
  // Whether the pull asked CAKE for the day (its clicks are replaced), as an SQL truth value.
  const pulledDay = pulled ? sql`1` : sql`0`;
  const noCountedConversion = sql`not exists (
    select 1 from cake_conversions c where c.counted = 1 and ${sameKey("c", "cake_stats")})`;
  const notPulledClick = sql`not exists (
    select 1 from cake_sync_staging s where s.run_id = ${runId} and ${sameKey("s", "cake_stats")})`;
  // The network reported a conversion of the same offer and click under an id of its own.
  const sameClickPulled = sql`(cake_conversions.subid2 <> '' and exists (
    select 1 from cake_conversions p
    where p.offer_id = cake_conversions.offer_id and p.subid2 = cake_conversions.subid2
      and p.source = 'pull' and p.postback_at is null))`;
  const clicksOrKept = sql`case when ${pulledDay} then excluded.clicks else cake_stats.clicks end`;
  const staging = pulled ? cakeClickChunks(pull.clicks.filter((c) => c.date === day)) : [];

  const before: SQL[] = [
    ...staging.map(
      (chunk) => sql`
        insert into cake_sync_staging (run_id, date, offer_id, offer_name, subid1, subid2, subid3, clicks)
        select ${runId}, ${CAKE_CLICK_VALUES} from json_each(${chunk})`,
    ),
    // Conversions a previous pull reported on the day but this one no longer does.
    ...(pulled
      ? [
          sql`update cake_conversions set counted = 0
            where source = 'pull' and counted = 1 and date = ${day} and not exists (select 1 from cake_pull_conversions s
              where s.run_id = ${runId} and s.start = ${pull.pulled.start} and s.conversion_id = cake_conversions.conversion_id)`,
        ]
      : []),
    // ⚠ Whether CAKE's #leadid# equals the report's conversion_id is unconfirmed. When it does,
    // the ledger's write already matched them; when it does not, a postback is retired once the
    // pull shows a conversion for its click, or once a pull covering its day ran well after it.
    sql`update cake_conversions set counted = 0, retired_at = ${now},
          retired_reason = case when ${sameClickPulled} then 'same-click' else 'grace' end
        where source = 'postback' and counted = 1 and date = ${day}
          and (${sameClickPulled} or (postback_at < ${pull.graceCutoff} and ${pulledDay}))`,
  ];
  const stats: SQL[] = [
    sql`
      insert into cake_stats (date, offer_id, offer_name, subid1, subid2, subid3, clicks, conversions, revenue_cents, updated_at)
      select date, offer_id, max(offer_name), subid1, subid2, subid3, sum(clicks), sum(conversions), sum(revenue_cents), ${now}
      from (
        select date, offer_id, offer_name, subid1, subid2, subid3, clicks, 0 as conversions, 0 as revenue_cents
        from cake_sync_staging where run_id = ${runId}
        union all
        select date, offer_id, offer_name, subid1, subid2, subid3, 0, 1, revenue_cents
        from cake_conversions where counted = 1 and date = ${day}
      )
      where true
      group by ${KEY}
      on conflict (${KEY}) do update set
        offer_name = ${nameOrKept("cake_stats")}, clicks = ${clicksOrKept},
        conversions = excluded.conversions, revenue_cents = excluded.revenue_cents, updated_at = excluded.updated_at
      where cake_stats.offer_name <> ${nameOrKept("cake_stats")} or cake_stats.clicks <> ${clicksOrKept}
        or cake_stats.conversions <> excluded.conversions or cake_stats.revenue_cents <> excluded.revenue_cents`,
    // Keys the pull and the ledger no longer have: their part drops to zero ...
    sql`
      update cake_stats set
        clicks = case when ${pulledDay} and ${notPulledClick} then 0 else clicks end,
        conversions = case when ${noCountedConversion} then 0 else conversions end,
        revenue_cents = case when ${noCountedConversion} then 0 else revenue_cents end,
        updated_at = ${now}
      where date = ${day} and (
        (clicks <> 0 and ${pulledDay} and ${notPulledClick})
        or ((conversions <> 0 or revenue_cents <> 0) and ${noCountedConversion}))`,
    // ... and a row with nothing left goes.
    sql`delete from cake_stats where date = ${day} and clicks = 0 and conversions = 0 and revenue_cents = 0`,
  ];
  const parts = pull.shardParts && {
    attributed: pull.shardParts.attributed.filter((r) => r.date === day),
    audience: pull.shardParts.audience.filter((r) => r.date === day),
  };
  const after = [sql`delete from cake_sync_staging where run_id = ${runId}`, ...rebuildAttributedStatements({ start: day, end: day }, parts)];
  return { before, stats, after };
}

/** cake_stats rows per delete statement, and statements per call: a short transaction each. */
const PURGE_ROWS = 5_000;
const PURGE_STATEMENTS = 10;

/**
 * Deletes CAKE's per-click rows (cake_stats) of the days up to `lastDay`, the last day retention
 * has archived: their attribution is never rebuilt again (sync/cake-sync.ts pulls no day whose
 * clicks are archived, and rebuilds none before it), and what the reports read of them stays in
 * cake_attributed_daily and cake_audience_daily. A postback dated on such a day adds to those
 * rollups, not to a rebuild. Up to 50,000 rows a call, oldest first; returns the rows deleted. The
 * record of which shard-day objects hold click report rows of those days goes too
 * (tracking/cake-shards.ts).
 */
export async function purgeArchivedCakeStats(db: Db, lastDay: string): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < PURGE_STATEMENTS; i++) {
    const n = changed(
      await db.run(sql`
        delete from cake_stats where rowid in (
          select rowid from cake_stats indexed by cake_stats_date_idx where date <= ${lastDay} order by date limit ${PURGE_ROWS})`),
    );
    deleted += n;
    if (n < PURGE_ROWS) break;
  }
  // Which objects hold click report rows of those days: a pull never asks for them again.
  await db.run(sql`delete from cake_click_shards where date <= ${lastDay}`);
  return deleted;
}

export interface PostbackConversion {
  conversionId: string;
  date: string;
  offerId: number;
  subid1: string;
  subid2: string;
  subid3: string;
  revenueCents: number;
  receivedAt: number;
}

/** What a postback did: counted it now, or found the conversion already known. */
export type PostbackResult = "counted" | "duplicate" | "already-reported";

/**
 * Counts a postback's conversion live, once. The increments are conditioned on the conversion id
 * being unknown, and the ledger row is written in the same batch, so a repeated postback (or one
 * for a conversion the pull already reported) adds nothing.
 */
export async function recordPostback(db: Db, pb: PostbackConversion): Promise<PostbackResult> {
  const [named] = await db.all<{ name: string }>(
    sql`select offer_name as name from cake_conversions where offer_id = ${pb.offerId} and offer_name <> '' limit 1`,
  );
  const offerName = named?.name ?? "";
  const unknown = sql`not exists (select 1 from cake_conversions where conversion_id = ${pb.conversionId})`;
  const [before] = await rawBatch(db, [
    sql`select source from cake_conversions where conversion_id = ${pb.conversionId}`,
    sql`
      insert into cake_stats (date, offer_id, offer_name, subid1, subid2, subid3, clicks, conversions, revenue_cents, updated_at)
      select ${pb.date}, ${pb.offerId}, ${offerName}, ${pb.subid1}, ${pb.subid2}, ${pb.subid3}, 0, 1, ${pb.revenueCents}, ${pb.receivedAt}
      where ${unknown}
      on conflict (${KEY}) do update set
        conversions = cake_stats.conversions + 1, revenue_cents = cake_stats.revenue_cents + excluded.revenue_cents,
        offer_name = ${sql.raw("case when cake_stats.offer_name = '' then excluded.offer_name else cake_stats.offer_name end")},
        updated_at = excluded.updated_at`,
    sql`
      insert into cake_attributed_daily (${ATTRIBUTED_COLUMNS})
      select ${pb.date}, ${CLICK_DIMENSIONS}, ${pb.offerId}, ${offerName}, ${pb.subid1}, ${pb.subid3},
        0, 1, ${pb.revenueCents}
      from (select 1) left join ${clickById(pb.subid2)} k on ${pb.subid2} <> ''
      where ${unknown}
      on conflict (${ATTRIBUTED_KEY}) do update set
        conversions = cake_attributed_daily.conversions + 1,
        revenue_cents = cake_attributed_daily.revenue_cents + excluded.revenue_cents`,
    sql`
      insert into cake_audience_daily (${AUDIENCE_COLUMNS})
      select a.dim, ${pb.date}, coalesce(k.campaign_id, 0), coalesce(k.tiktok_campaign_id, ''), ${audienceValue("k")}, ${pb.subid1},
        ${pb.subid3}, 0, 1, ${pb.revenueCents}
      from (select 1) left join ${clickById(pb.subid2)} k on ${pb.subid2} <> '' cross join ${AUDIENCE_DIMS_TABLE}
      where ${unknown}
      on conflict (${AUDIENCE_KEY}) do update set
        conversions = cake_audience_daily.conversions + 1, revenue_cents = cake_audience_daily.revenue_cents + excluded.revenue_cents`,
    // A postback for a conversion the pull already has only notes that it arrived: the match is
    // the evidence that this network's lead ids are its conversion ids.
    sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, offer_name, subid1, subid2, subid3,
        revenue_cents, counted, postback_at)
      values (${pb.conversionId}, 'postback', ${pb.date}, ${pb.offerId}, ${offerName}, ${pb.subid1}, ${pb.subid2}, ${pb.subid3},
        ${pb.revenueCents}, 1, ${pb.receivedAt})
      on conflict (conversion_id) do update set postback_at = coalesce(cake_conversions.postback_at, excluded.postback_at)`,
  ]);
  const source = (before?.results[0] as { source?: string } | undefined)?.source;
  return source === undefined ? "counted" : source === "pull" ? "already-reported" : "duplicate";
}

/** When the last postback arrived (for the admin's sync status), among the conversions in D1 and those archived. */
export async function lastPostbackAt(db: Db): Promise<number | null> {
  const [row] = await db.all<{ at: number | null }>(
    sql`select max(at) as at from (select max(postback_at) as at from cake_conversions union all select ${archivedLastPostback})`,
  );
  return row?.at ?? null;
}

export interface OfferPerformance {
  offerId: number;
  offerName: string;
  clicks: number;
  conversions: number;
  revenueCents: number;
}

/**
 * Offer performance over CAKE days (inclusive), from the daily rollup so a 30-day range reads a
 * few rows per offer and day. `scope`: a SQL condition on subid1 (a member's media buyers).
 */
export async function offerPerformance(db: Db, days: DayRange, scope?: SQL): Promise<OfferPerformance[]> {
  return db.all<OfferPerformance>(sql`
    select offer_id as offerId, max(offer_name) as offerName, sum(clicks) as clicks, sum(conversions) as conversions,
      sum(revenue_cents) as revenueCents
    from cake_attributed_daily
    where date between ${days.start} and ${days.end} ${scope ? sql`and ${scope}` : sql``}
    group by offer_id
    order by revenueCents desc, offer_id`);
}

export interface CakeStatsRow {
  date: string;
  offerId: number;
  offerName: string;
  subid1: string;
  subid3: string;
  clicks: number;
  conversions: number;
  revenueCents: number;
}

/**
 * The product's `GET /api/cake/stats`: CAKE's figures per (day, offer, media buyer sub1, spark sub3)
 * over the days (inclusive), from the daily rollup. Never per click: sub2 (our click id) is
 * summed away, so the answer grows with days and combinations, not with clicks.
 */
export async function cakeStatsByDay(db: Db, days: DayRange, scope?: SQL): Promise<CakeStatsRow[]> {
  return db.all<CakeStatsRow>(sql`
    select date, offer_id as offerId, max(offer_name) as offerName, subid1, subid3, sum(clicks) as clicks,
      sum(conversions) as conversions, sum(revenue_cents) as revenueCents
    from cake_attributed_daily
    where date between ${days.start} and ${days.end} ${scope ? sql`and ${scope}` : sql``}
    group by date, offer_id, subid1, subid3
    order by date, offer_id, subid1, subid3`);
}

/** A read step of a pull run in steps (db/schema.ts `cakePullRows`). */
export interface PullStep {
  runId: number;
  start: string;
  fromRow: number;
}

/**
 * Keeps a read step's D1 rows in place of what the step kept before (a step run again), and drops
 * what the run kept for days already written (a write step is never run again once a later step
 * began) and what older runs left (one stopped part way): one CAKE run goes at a time.
 */
export async function keepPulledD1Rows(db: Db, step: PullStep, rows: CakeClick[]) {
  await rawBatch(db, [
    sql`delete from cake_pull_rows where run_id <> ${step.runId} or start <> ${step.start} or from_row = ${step.fromRow}`,
    ...cakeClickChunks(rows).map(
      (chunk) => sql`insert into cake_pull_rows (run_id, start, from_row, date, offer_id, offer_name, subid1, subid2, subid3, clicks)
        select ${step.runId}, ${step.start}, ${step.fromRow}, ${CAKE_CLICK_VALUES}
        from json_each(${chunk}) where true
        on conflict do update set clicks = cake_pull_rows.clicks + excluded.clicks`,
    ),
  ]);
}

/** The week's D1 rows its read steps kept, a key's summed across them. */
export async function pulledD1Rows(db: Db, runId: number, start: string): Promise<CakeClick[]> {
  return db.all<CakeClick>(sql`select date, offer_id as offerId, max(offer_name) as offerName, subid1, subid2, subid3, sum(clicks) as clicks
    from cake_pull_rows where run_id = ${runId} and start = ${start}
    group by date, offer_id, subid1, subid2, subid3`);
}

/**
 * Drops what a run kept of its days (`cake_pull_rows`, `cake_pull_conversions`) once it wrote the
 * last of them: a write step run again (its result lost) finds them and writes the same.
 */
export async function dropPulledRows(db: Db, runId: number) {
  await rawBatch(db, [sql`delete from cake_pull_rows where run_id = ${runId}`, sql`delete from cake_pull_conversions where run_id = ${runId}`]);
}

/**
 * Clears what a step of a pull stages of its conversions before it reads them: what it staged
 * before (a step run again), what the run staged for days already written, and what older runs
 * left (one stopped part way).
 */
export async function clearPulledConversions(db: Db, step: PullStep) {
  await db.run(sql`delete from cake_pull_conversions where run_id <> ${step.runId} or start <> ${step.start} or from_row = ${step.fromRow}`);
}

/**
 * Stages a page of the pull's conversions (db/schema.ts `cakePullConversions`) for the write of its
 * days: a conversion staged before, on an earlier page or step, is replaced by this one.
 */
export async function stagePulledConversions(db: Db, step: PullStep, conversions: readonly CakeConversion[]) {
  const rows = conversions.map((c) => [
    c.conversionId,
    c.date,
    c.offerId,
    c.offerName,
    c.subid1,
    c.subid2,
    c.subid3,
    c.revenueCents,
    c.disposition,
    isCountedDisposition(c.disposition) ? 1 : 0,
    c.convertedAt,
  ]);
  if (!rows.length) return;
  await rawBatch(
    db,
    jsonChunks(rows).map(
      (chunk) => sql`
        insert into cake_pull_conversions (run_id, start, from_row, conversion_id, date, offer_id, offer_name, subid1, subid2, subid3,
          revenue_cents, disposition, counted, converted_at)
        select ${step.runId}, ${step.start}, ${step.fromRow}, ${jsonAt(0)}, ${jsonAt(1)}, ${jsonAt(2)}, ${jsonAt(3)}, ${jsonAt(4)}, ${jsonAt(5)}, ${jsonAt(6)},
          ${jsonAt(7)}, ${jsonAt(8)}, ${jsonAt(9)}, ${jsonAt(10)}
        from json_each(${chunk}) where true
        on conflict do update set from_row = excluded.from_row, date = excluded.date, offer_id = excluded.offer_id,
          offer_name = excluded.offer_name, subid1 = excluded.subid1, subid2 = excluded.subid2, subid3 = excluded.subid3,
          revenue_cents = excluded.revenue_cents, disposition = excluded.disposition, counted = excluded.counted,
          converted_at = excluded.converted_at`,
    ),
  );
}

/** The staged conversions of a run's days after the id `after`, by id, `limit` of them: the write hands them on a page at a time. */
export async function pulledConversionsPage(db: Db, pull: { runId: number; start: string }, after: string, limit: number): Promise<CakeConversion[]> {
  return db.all<CakeConversion>(sql`
    select conversion_id as conversionId, date, offer_id as offerId, offer_name as offerName, subid1, subid2, subid3,
      revenue_cents as revenueCents, disposition, converted_at as convertedAt
    from cake_pull_conversions where run_id = ${pull.runId} and start = ${pull.start} and conversion_id > ${after}
    order by conversion_id limit ${limit}`);
}
