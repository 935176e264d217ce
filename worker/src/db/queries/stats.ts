/**
 * The stats report's reads, all aggregated in SQL over the daily rollups:
 * - revenue, conversions and visits (CAKE clicks) from cake_attributed_daily, whose rows carry
 *   the campaign and ad fields of the click each CAKE row came from (sub2 = clickId);
 * - our own clicks and exits from click_daily_stats, plus the part the cron has not rolled up
 *   yet read from clicks (the clicks past the click watermark and the exits past the exit
 *   watermark: minutes of traffic), so today is live;
 * - spend from tiktok_spend, shared out to the groups by click share (see spendStatement).
 * Rows read follow the days and the distinct ad/offer/buyer combinations, never the clicks.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { CAKE_ONLY_GROUPINGS, NO_CAKE_KEY, NO_SPARK, type StatsGrouping } from "../../schemas/stats";
import { rawBatch } from "../raw-batch";
import type { AudienceDim } from "../schema";
import { AUDIENCE_VALUE, rollupStateHolds, type ClickField } from "./click-rollup";

export interface ReportRange {
  startDate: string;
  endDate: string;
  /** The range's instants in the report time zone: startMs <= t < endMs. */
  startMs: number;
  endMs: number;
  timeZone: string;
}

export interface ReportFilters {
  campaignId?: number;
  offerId?: number;
  sparkId?: string;
  mediaBuyer?: string;
}

export interface ReportQuery {
  range: ReportRange;
  groupBy: StatsGrouping;
  filters: ReportFilters;
  /** Count bot-flagged clicks as link clicks and in the click shares of spend (default: left out). */
  includeBots?: boolean;
  /** A member's media buyers: a condition on `r.subid1`; undefined for admins. */
  buyerScope?: SQL;
  /** The shard-day objects' clicks and exits the rollup has not counted yet (stats/shard-tail.ts). */
  shardTail?: ShardTailRow[];
}

/**
 * The shard-day objects' live part, summed per campaign (`c`), ad campaign (`t`), the grouping's
 * value (`g`) and bot flag (`b`): clicks (`n`) and exits (`x`) over the report's days.
 */
export interface ShardTailRow {
  c: number;
  t: string;
  g: string;
  b: number;
  n: number;
  x: number;
}

/** The groupings that are a field our clicks record (the ad platform's macros), by column. */
export const CLICK_FIELD_OF: Partial<Record<StatsGrouping, ClickField>> = {
  placement: "placement",
  tiktokCampaignId: "tiktok_campaign_id",
  campaignName: "campaign_name",
  tiktokAdGroupId: "tiktok_ad_group_id",
  adGroupName: "ad_group_name",
  tiktokCreativeId: "tiktok_creative_id",
  creativeName: "creative_name",
};

/**
 * The groupings by one value of the click (who clicked; where traffic distribution sent them), by
 * their `dim` in click_audience_daily / cake_audience_daily.
 */
export const AUDIENCE_DIM_OF: Partial<Record<StatsGrouping, AudienceDim>> = {
  country: "country",
  device: "device",
  os: "os",
  browser: "browser",
  path: "path",
  lander: "lander",
  landerOffer: "landerOffer",
};

/** How spend reaches the groups for a query (see spendStatement). */
export type SpendLink = "direct" | "our-clicks" | "cake-clicks";

/** Whether anything narrows the report below "everything in the range". */
export const isRestricted = (q: ReportQuery) => q.buyerScope !== undefined || Object.values(q.filters).some((v) => v !== undefined);

/** A narrowing only CAKE's rows can apply: a spark, a media buyer, a member's buyers. */
export const isCakeNarrowed = (q: ReportQuery) => q.buyerScope !== undefined || q.filters.sparkId !== undefined || q.filters.mediaBuyer !== undefined;

export function spendLink(q: ReportQuery): SpendLink {
  // A narrowing only CAKE's rows can apply needs weights that carry it: the CAKE rows matched to our clicks.
  if (isCakeNarrowed(q) || CAKE_ONLY_GROUPINGS.includes(q.groupBy)) return "cake-clicks";
  // An ad campaign's spend is its own group's, clicks or not, unless a filter has to split it.
  if (q.groupBy === "tiktokCampaignId" && !isRestricted(q)) return "direct";
  return "our-clicks";
}

/** The group key of a CAKE row `r` (cakeFrom). */
function cakeKey(groupBy: StatsGrouping): SQL {
  const field = CLICK_FIELD_OF[groupBy];
  if (field) return sql.raw(`case when r.campaign_id = 0 then 'direct' else r.${field} end`);
  if (AUDIENCE_DIM_OF[groupBy]) return sql.raw(`case when r.campaign_id = 0 then 'direct' else r.value end`);
  switch (groupBy) {
    case "campaign":
      return sql.raw(`case when r.campaign_id = 0 then 'direct' else cast(r.campaign_id as text) end`);
    case "offer":
      return sql.raw(`cast(r.offer_id as text)`);
    case "spark":
      return sql.raw(`case when r.subid3 = '' then '${NO_SPARK}' else r.subid3 end`);
    case "mediaBuyer":
      return sql.raw(`r.subid1`);
    default:
      throw new Error(`no CAKE key for grouping ${groupBy}`);
  }
}

/** The group key of an our-clicks row `o`. */
function clickKey(groupBy: StatsGrouping): SQL {
  if (CLICK_FIELD_OF[groupBy] || AUDIENCE_DIM_OF[groupBy]) return sql.raw("o.g");
  if (groupBy === "campaign") return sql.raw("cast(o.campaign_id as text)");
  throw new Error(`our clicks do not record ${groupBy}`);
}

const campaignsOfOffer = (offerId: number) => sql`(select id from campaigns where offer_id = ${offerId})`;

/** The filters as conditions on CAKE rows `r`. */
function cakeConditions(q: ReportQuery): SQL[] {
  const f = q.filters;
  const conditions: SQL[] = [];
  if (f.campaignId !== undefined) conditions.push(sql`r.campaign_id = ${f.campaignId}`);
  if (f.offerId !== undefined) conditions.push(sql`r.campaign_id in ${campaignsOfOffer(f.offerId)}`);
  if (f.sparkId !== undefined) conditions.push(sql`r.subid3 = ${f.sparkId === NO_SPARK ? "" : f.sparkId}`);
  if (f.mediaBuyer !== undefined) conditions.push(sql`r.subid1 = ${f.mediaBuyer}`);
  if (q.buyerScope) conditions.push(q.buyerScope);
  return conditions;
}

/** The filters our clicks can take (campaign, and offer through the campaign), on rows `o`. */
function clickConditions(q: ReportQuery): SQL[] {
  const f = q.filters;
  const conditions: SQL[] = [];
  if (f.campaignId !== undefined) conditions.push(sql`o.campaign_id = ${f.campaignId}`);
  if (f.offerId !== undefined) conditions.push(sql`o.campaign_id in ${campaignsOfOffer(f.offerId)}`);
  return conditions;
}

const all = (conditions: SQL[]) => (conditions.length ? sql.join(conditions, sql` and `) : sql`1`);
const andAll = (conditions: SQL[]) => (conditions.length ? sql` and ${sql.join(conditions, sql` and `)}` : sql``);

/**
 * CAKE's rows for the grouping: cake_attributed_daily, or for an audience grouping that one
 * dimension's rows of cake_audience_daily (which know no offer, so no offer name either).
 */
function cakeFrom(groupBy: StatsGrouping) {
  const dim = AUDIENCE_DIM_OF[groupBy];
  // The dimension is one of our constants, written into the statement (D1 allows 100 parameters).
  if (dim) return sql.raw(`(select *, null as offer_name from cake_audience_daily where dim = '${dim}') r`);
  return sql`cake_attributed_daily r`;
}

/**
 * Where our clicks of the grouping come from: click_daily_stats with the ad field as `g`, or the
 * audience rollup's rows of one dimension with the value as `g`; and the same value from a raw
 * click `k` for the part not rolled up yet.
 */
function clickSource(groupBy: StatsGrouping): { rolled: SQL; g: SQL; raw: SQL } {
  const dim = AUDIENCE_DIM_OF[groupBy];
  if (dim) {
    return {
      rolled: sql.raw(`(select * from click_audience_daily where dim = '${dim}')`),
      g: sql.raw("d.value"),
      raw: sql.raw(AUDIENCE_VALUE[dim]("k")),
    };
  }
  const field = CLICK_FIELD_OF[groupBy];
  return {
    rolled: sql.raw("click_daily_stats"),
    g: sql.raw(field ? `d.${field}` : "''"),
    raw: sql.raw(field ? `coalesce(k.${field}, '')` : "''"),
  };
}

/**
 * CTEs `st` (how far the click rollup is usable) and `oc` (our clicks and exits of the range per
 * campaign_id, t = ad campaign and g = the grouping's value; `bots` = the bot-flagged clicks,
 * counted in `clicks` and `exits` only with `includeBots`). The range's days are whole
 * report-time-zone days on both sides: the rollup's rows by date, the rest by instant.
 *
 * The rollup counts only while its days are this time zone's and its clicks still the table's;
 * otherwise (the setting just changed, the cron has not rebuilt yet) everything is read from
 * clicks: slower, never wrong. The days archived by retention (up to `fd`, their clicks all
 * before `f`) are read from the rollup either way: it is all that is left of them. The rollup's
 * rows and D1's newest clicks read the state row in the same statement, so a cron run moving the
 * watermarks meanwhile cannot make a click count twice or not at all. The shard-day objects' part
 * (`shardTail`) is read before the statement, so a run between the two can (stats/shard-tail.ts).
 */
function ourClicksCtes(range: ReportRange, groupBy: StatsGrouping, byCampaign: boolean, includeBots: boolean, shardTail: ShardTailRow[] = []): SQL {
  const source = clickSource(groupBy);
  const tailValue = (key: keyof ShardTailRow) => sql.raw(`json_extract(value, '$.${key}')`);
  // The objects' clicks the rollup has not counted, as the cron would count them: only while the
  // rollup is usable (stats/shard-tail.ts reads them only then), like the rollup's rows.
  const tail = shardTail.length
    ? sql`
        union all
        select ${byCampaign ? tailValue("c") : sql.raw("0")}, ${tailValue("t")}, ${tailValue("g")}, ${tailValue("b")}, ${tailValue("n")}, ${tailValue("x")}
        from rollup_state cross join json_each(${JSON.stringify(shardTail)})
        where rollup_state.ok = 1`
    : sql``;
  const inRange = sql`k.clicked_at >= ${range.startMs} and k.clicked_at < ${range.endMs}`;
  // Summed over campaigns unless the grouping or a filter needs them: fewer rows for every pass.
  const campaign = (alias: string) => sql.raw(byCampaign ? `${alias}.campaign_id` : "0");
  const counted = sql.raw(includeBots ? "1" : "bot = 0");
  return sql`
    rollup_state as materialized (
      select coalesce(max(ok * w), 0) as w, coalesce(max(ok * e), 0) as e, coalesce(max(ok), 0) as ok,
        (select coalesce(max(end_ms), 0) from click_archives where archived_at is not null) as f,
        (select coalesce(max(day), '') from click_archives where archived_at is not null) as fd from (
        select s.click_watermark as w, s.exit_watermark as e,
          ${rollupStateHolds(range.timeZone)} as ok
        from click_rollup_state s where s.id = 1)),
    our_clicks as materialized (
      select campaign_id, t, g, sum(case when ${counted} then clicks else 0 end) as clicks,
        sum(case when ${counted} then exits else 0 end) as exits, sum(case when bot = 1 then clicks else 0 end) as bots
      from (
        select ${campaign("d")} as campaign_id, d.tiktok_campaign_id as t, ${source.g} as g, d.bot, d.clicks, d.exits
        from rollup_state cross join ${source.rolled} d
        where (rollup_state.ok = 1 or d.date <= rollup_state.fd) and d.date between ${range.startDate} and ${range.endDate}
        union all
        select ${campaign("k")}, coalesce(k.tiktok_campaign_id, ''), ${source.raw}, k.bot, 1, k.exited_at is not null
        from rollup_state cross join clicks k not indexed
        where k.id > rollup_state.w and k.clicked_at >= rollup_state.f and ${inRange}
        union all
        select ${campaign("k")}, coalesce(k.tiktok_campaign_id, ''), ${source.raw}, k.bot, 0, 1
        from rollup_state cross join clicks k indexed by clicks_exited_at_idx
        where rollup_state.ok = 1 and k.exited_at > rollup_state.e and (k.id <= rollup_state.w or k.clicked_at < rollup_state.f) and ${inRange}${tail})
      group by campaign_id, t, g)`;
}

/**
 * The whole report in one statement, so each rollup is scanned once or twice. Its rows, by kind
 * (`ReportRow`):
 * - `group_revenue` per group with CAKE rows: visits, conversions, revenue (and `hint`, the offer's name);
 * - `group_spend` per group, the spend credited to it (`amount`, fractions of cents: the caller rounds);
 * - `day_revenue` per day the revenue, `day_spend` per day the spend the report shows (what is
 *   credited to the rows when narrowed; all of it otherwise, since unlinked spend then shows too);
 * - `unlinked_spend` the spend nothing links to a group, `range_spend` the range's whole spend;
 * - `group_clicks` per group our clicks, exits and bot clicks (see groupClicksParts): every group
 *   our traffic reached gets a row, revenue and spend or not;
 * - `traffic` one row, our clicks, exits and bot clicks over the whole report, each click once:
 *   the "Our traffic" strip and the totals' own-traffic figures.
 *
 * Its CTEs: `rollup_state` and `our_clicks` (ourClicksCtes), `ad_spend` (each ad campaign's spend
 * over the range), and for linking spend `link_weights` (each group's weight within an ad
 * campaign), `link_totals` (the ad campaign's total weight) and `spend_shares` (the spend each
 * group gets); with CAKE clicks as weights, `cake_groups` reads CAKE's rows once for revenue and
 * weights; `report_campaigns` (reportCampaignsCte) the campaigns CAKE's rows place in each group.
 *
 * Linking spend: each ad campaign's spend over the range is shared out by the weights of the
 * groups its clicks of the range reached: our clicks (`our-clicks`) or the CAKE clicks of our
 * clicks (`cake-clicks`). The share is of all its clicks, so a filter keeps only the filtered
 * groups' part; an ad campaign with no weighted click in the range is unlinked (`unlinked_spend`). Shares are
 * taken over the range rather than day by day: the networks' days and ours need not line up,
 * and a day's spend with no click of ours that day would otherwise go unlinked.
 */
export function reportStatement(q: ReportQuery): SQL {
  const { startDate, endDate } = q.range;
  const link = spendLink(q);
  const restricted = isRestricted(q);
  const clickFilters = clickConditions(q);
  const cakeNarrowed = isCakeNarrowed(q);
  const cakeOnly = CAKE_ONLY_GROUPINGS.includes(q.groupBy);
  // Our clicks are read in every grouping: the report's own-traffic figures come from them.
  const byCampaign = q.groupBy === "campaign" || cakeOnly || clickFilters.length > 0 || cakeNarrowed;
  const conditions = cakeConditions(q);
  const days = sql`date between ${startDate} and ${endDate}`;
  const ctes: SQL[] = [];
  const parts: SQL[] = [];
  ctes.push(ourClicksCtes(q.range, q.groupBy, byCampaign, q.includeBots ?? false, q.shardTail));
  ctes.push(sql`ad_spend as materialized (select tiktok_campaign_id as t, sum(spend_cents) as cents from tiktok_spend where ${days} group by t)`);

  const revenue = sql`from ${cakeFrom(q.groupBy)} where r.${days}${andAll(conditions)}`;
  parts.push(sql`select 'day_revenue' as kind, r.date as key, null as hint, 0 as visits, 0 as conversions, sum(r.revenue_cents) as revenue,
    0 as amount, 0 as clicks, 0 as exits, 0 as bots ${revenue} group by r.date`);
  if (link === "cake-clicks") {
    // The weights need every CAKE row of the range (a share is of all the ad campaign's clicks),
    // so here the filters are conditions on the sums; one pass serves revenue and weights.
    const f = conditions.length ? all(conditions) : sql`1`;
    ctes.push(sql`
      cake_groups as materialized (
        select ${cakeKey(q.groupBy)} as key, r.tiktok_campaign_id as t, r.campaign_id as cid,
          (r.campaign_id <> 0 and r.tiktok_campaign_id <> '') as m, max(${f}) as hasf,
          max(case when ${f} then r.offer_name end) as hint,
          sum(case when ${f} then r.clicks else 0 end) as vis, sum(case when ${f} then r.conversions else 0 end) as conv,
          sum(case when ${f} then r.revenue_cents else 0 end) as rev, sum(r.clicks) as wall
        from ${cakeFrom(q.groupBy)}
        where r.${days}
        group by key, t, cid, m),
      link_weights as (select t, key, vis as w from cake_groups where m and vis > 0),
      link_totals as materialized (select t, sum(wall) as w from cake_groups where m group by t having sum(wall) > 0)`);
    parts.push(sql`select 'group_revenue', key, max(hint), sum(vis), sum(conv), sum(rev), 0, 0, 0, 0 from cake_groups where hasf group by key`);
  } else {
    parts.push(sql`select 'group_revenue', ${cakeKey(q.groupBy)} as key, max(r.offer_name), sum(r.clicks), sum(r.conversions),
      sum(r.revenue_cents), 0, 0, 0, 0 ${revenue} group by key`);
  }
  if (link === "our-clicks") {
    // Rows of oc may share an (ad campaign, key) (the lander of two campaigns): everything after
    // this adds up, so they need not be merged first.
    ctes.push(sql`
      link_weights as (
        select o.t, ${clickKey(q.groupBy)} as key, o.clicks as w
        from our_clicks o
        where o.t <> ''${andAll(clickFilters)}),
      link_totals as materialized (select t, sum(clicks) as w from our_clicks where t <> '' group by t having sum(clicks) > 0)`);
  }
  const allDays = sql`select 'day_spend', date, null, 0, 0, 0, sum(spend_cents), 0, 0, 0 from tiktok_spend where ${days} group by date`;
  if (link === "direct") {
    parts.push(sql`select 'group_spend', t, null, 0, 0, 0, cents, 0, 0, 0 from ad_spend`, allDays);
  } else {
    ctes.push(sql`
      spend_shares as materialized (
        select link_weights.t, link_weights.key, ad_spend.cents * 1.0 * link_weights.w / link_totals.w as amount, link_weights.w * 1.0 / link_totals.w as share
        from link_weights join link_totals on link_totals.t = link_weights.t join ad_spend on ad_spend.t = link_weights.t)`);
    parts.push(
      sql`select 'group_spend', key, null, 0, 0, 0, sum(amount), 0, 0, 0 from spend_shares group by key`,
      sql`select 'unlinked_spend', '', null, 0, 0, 0, coalesce(sum(cents), 0), 0, 0, 0 from ad_spend where t not in (select t from link_totals)`,
      restricted
        ? sql`
          select 'day_spend', s.date, null, 0, 0, 0, sum(s.spend_cents * v.share), 0, 0, 0
          from tiktok_spend s join (select t, sum(share) as share from spend_shares group by t) v on v.t = s.tiktok_campaign_id
          where s.${days} group by s.date`
        : allDays,
    );
  }
  parts.push(sql`select 'range_spend', '', null, 0, 0, 0, coalesce(sum(cents), 0), 0, 0, 0 from ad_spend`);
  // Only CAKE's rows place our campaigns in these groups; they are read with CAKE clicks as weights.
  if (link === "cake-clicks") ctes.push(reportCampaignsCte(cakeOnly));
  // Our clicks in the report: those the filters keep, and with a narrowing only CAKE's rows know,
  // only the campaigns CAKE's rows place in it (our clicks know no spark or media buyer).
  const inReport = [...clickFilters, ...(cakeNarrowed ? [sql`o.campaign_id in (select campaign_id from report_campaigns)`] : [])];
  parts.push(...groupClicksParts(q.groupBy, inReport, cakeOnly && !cakeNarrowed));
  parts.push(sql`
    select 'traffic', '', null, 0, 0, 0, 0, coalesce(sum(o.clicks), 0), coalesce(sum(o.exits), 0), coalesce(sum(o.bots), 0)
    from our_clicks o where ${all(inReport)}`);
  return sql`with ${sql.join(ctes, sql`, `)} ${unionAll(parts)}`;
}

/**
 * CTE `report_campaigns` (key, campaign_id): the campaigns of ours CAKE's rows of the range place
 * in each group under the report's filters (`key` the group for the groupings only CAKE knows, ''
 * otherwise), from `cake_groups`, so CAKE's rows are not read again. How our clicks reach the
 * groups our clicks do not record, and the campaigns a spark, media buyer or member narrows to.
 */
function reportCampaignsCte(keyed: boolean): SQL {
  return sql.raw(`
    report_campaigns as materialized (
      select ${keyed ? "key" : "''"} as key, cid as campaign_id from cake_groups where hasf and cid <> 0 group by 1, 2)`);
}

/**
 * The `group_clicks` rows: our clicks, exits and bot clicks per group, over our clicks `o` that
 * `inReport` keeps.
 * - Groupings our clicks record (campaign, the tracking fields, who clicked, the path, lander and
 *   lander × offer it was sent to): each click in the one group it names.
 * - Offer, spark, media buyer: our clicks do not record them, CAKE's rows do. A campaign's clicks
 *   count in every group CAKE's rows place that campaign in over the range (the campaign's own
 *   figures, as a filter on that group would show them), so a campaign CAKE places in two groups
 *   counts in both. With `unplaced`, the clicks of the campaigns CAKE's rows place nowhere (none
 *   of their visitors reached CAKE in the range) go to one row of their own, NO_CAKE_KEY.
 */
function groupClicksParts(groupBy: StatsGrouping, inReport: SQL[], unplaced: boolean): SQL[] {
  const sums = sql`sum(o.clicks), sum(o.exits), sum(o.bots)`;
  if (!CAKE_ONLY_GROUPINGS.includes(groupBy)) {
    return [
      sql`
        select 'group_clicks', ${clickKey(groupBy)} as key, null, 0, 0, 0, 0, ${sums}
        from our_clicks o
        where ${all(inReport)} group by key`,
    ];
  }
  const perCampaign = sql`(
    select o.campaign_id, sum(o.clicks) as clicks, sum(o.exits) as exits, sum(o.bots) as bots
    from our_clicks o where ${all(inReport)} group by o.campaign_id)`;
  const parts = [
    sql`
      select 'group_clicks', p.key, null, 0, 0, 0, 0, ${sums}
      from report_campaigns p join ${perCampaign} o on o.campaign_id = p.campaign_id group by p.key`,
  ];
  if (unplaced) {
    parts.push(sql`
      select 'group_clicks', ${NO_CAKE_KEY}, null, 0, 0, 0, 0, ${sums}
      from ${perCampaign} o where o.campaign_id not in (select campaign_id from report_campaigns) having count(*) > 0`);
  }
  return parts;
}

/** D1 allows at most this many SELECTs in one compound SELECT. */
const MAX_COMPOUND = 5;

/** `a union all b union all ...`, nested in sub-selects so no compound exceeds D1's limit. */
function unionAll(parts: SQL[]): SQL {
  if (parts.length <= MAX_COMPOUND) return sql.join(parts, sql` union all `);
  const groups: SQL[] = [];
  for (let i = 0; i < parts.length; i += MAX_COMPOUND) {
    groups.push(sql`select * from (${sql.join(parts.slice(i, i + MAX_COMPOUND), sql` union all `)})`);
  }
  return unionAll(groups);
}

/** One output row of reportStatement, by kind: each kind carries the columns it fills. */
export type ReportRow =
  | { kind: "group_revenue"; key: string; hint: string | null; visits: number; conversions: number; revenue: number }
  | { kind: "group_spend"; key: string; amount: number }
  | { kind: "day_revenue"; key: string; revenue: number }
  | { kind: "day_spend"; key: string; amount: number }
  | { kind: "unlinked_spend"; amount: number }
  | { kind: "range_spend"; amount: number }
  | { kind: "group_clicks"; key: string; clicks: number; exits: number; bots: number }
  | { kind: "traffic"; clicks: number; exits: number; bots: number };
export type ReportRowKind = ReportRow["kind"];

/**
 * Display names of the groups whose key is an id of ours. A path is named with its campaign (two
 * campaigns may both have a "US mobile" path); `c<id>` is a campaign's implicit default path. A
 * lander × offer key `<lander>|<offer>` is named from `l<id>` and `o<id>`.
 */
function namesStatement(groupBy: StatsGrouping): SQL | null {
  if (groupBy === "campaign") return sql`select cast(id as text) as key, name from campaigns`;
  if (groupBy === "lander") return sql`select cast(id as text) as key, name from landers`;
  if (groupBy === "path") {
    return sql`
      select cast(p.id as text) as key, c.name || ' › ' || p.name as name from campaign_paths p join campaigns c on c.id = p.campaign_id
      union all select 'c' || id, name || ' › Default path' from campaigns`;
  }
  if (groupBy === "landerOffer") return sql`select 'l' || id as key, name from landers union all select 'o' || id, name from offers`;
  if (groupBy === "spark") return sql`select spark_id as key, name from sparks`;
  return null;
}

const lastSyncStatement = sql`
  select source, max(finished_at) as at from sync_runs where status = 'ok' group by source`;

export interface ReportData {
  rows: ReportRow[];
  names: Map<string, string>;
  lastSync: { cake: number | null; tiktok: number | null };
}

/** Everything the report needs, in one round trip and one consistent read. */
export async function readReport(db: Db, q: ReportQuery): Promise<ReportData> {
  const names = namesStatement(q.groupBy);
  const results = await rawBatch(db, [reportStatement(q), lastSyncStatement, ...(names ? [names] : [])]);
  const rows = <T>(i: number) => (results[i]?.results ?? []) as T[];
  const synced = rows<{ source: string; at: number | null }>(1);
  const at = (source: string) => synced.find((s) => s.source === source)?.at ?? null;
  return {
    rows: rows<ReportRow>(0),
    names: new Map(names ? rows<{ key: string; name: string }>(2).map((n) => [n.key, n.name]) : []),
    lastSync: { cake: at("cake"), tiktok: at("tiktok") },
  };
}

/** The media buyers (CAKE sub1) with stats in the days, or a member's own, sorted. */
export async function mediaBuyerChoices(db: Db, days: { startDate: string; endDate: string }, memberId?: string): Promise<string[]> {
  const rows = memberId
    ? await db.all<{ subid1: string }>(sql`
        select subid1 from user_subid1_assignments where user_id = ${memberId} and subid1 <> '' order by subid1`)
    : await db.all<{ subid1: string }>(sql`
        select distinct subid1 from cake_attributed_daily
        where date between ${days.startDate} and ${days.endDate} and subid1 <> '' order by subid1`);
  return rows.map((r) => r.subid1);
}
