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
import { localDaySql, offsetSpans } from "../../lib/zone-days";
import { NO_SPARK, type StatsGrouping } from "../../schemas/stats";
import { canonicalTimeZone } from "../../schemas/settings";
import { rawBatch } from "../raw-batch";
import type { ClickField } from "./click-rollup";
import { readSettings } from "./settings";

/** The report time zone (setting report_timezone), as the report and the click rollup read it. */
export async function reportTimeZone(db: Db): Promise<string> {
  const { report_timezone } = await readSettings(db);
  return canonicalTimeZone(report_timezone) ?? "UTC";
}

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
  /** A member's media buyers: a condition on `r.subid1`; undefined for admins. */
  buyerScope?: SQL;
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
 * Groupings no field of our clicks names: only CAKE's rows know the offer (the network's), the
 * spark (sub3) and the media buyer (sub1). Their spend is linked through the CAKE rows that
 * matched our clicks (the click carries the ad campaign), or, failing that, split evenly.
 */
export const CAKE_ONLY_GROUPINGS: readonly StatsGrouping[] = ["offer", "spark", "mediaBuyer"];

/** How spend reaches the groups for a query (see spendStatement). */
export type SpendLink = "direct" | "our-clicks" | "cake-clicks";

/** Whether anything narrows the report below "everything in the range". */
export const isRestricted = (q: ReportQuery) =>
  q.buyerScope !== undefined || Object.values(q.filters).some((v) => v !== undefined);

export function spendLink(q: ReportQuery): SpendLink {
  // A narrowing only CAKE's rows can apply (spark, media buyer, a member's buyers) needs weights
  // that carry it: the CAKE rows matched to our clicks.
  const cakeNarrowed = q.buyerScope !== undefined || q.filters.sparkId !== undefined || q.filters.mediaBuyer !== undefined;
  if (cakeNarrowed || CAKE_ONLY_GROUPINGS.includes(q.groupBy)) return "cake-clicks";
  // An ad campaign's spend is its own group's, clicks or not, unless a filter has to split it.
  if (q.groupBy === "tiktokCampaignId" && !isRestricted(q)) return "direct";
  return "our-clicks";
}

/** The group key of a cake_attributed_daily row `r` (campaigns `c` joined when `joinsCampaign`). */
function cakeKey(groupBy: StatsGrouping): SQL {
  const field = CLICK_FIELD_OF[groupBy];
  if (field) return sql.raw(`case when r.campaign_id = 0 then 'direct' else r.${field} end`);
  switch (groupBy) {
    case "campaign":
      return sql.raw(`case when r.campaign_id = 0 then 'direct' else cast(r.campaign_id as text) end`);
    case "lander":
      return sql.raw(`case when r.campaign_id = 0 then 'direct' else coalesce(cast(c.lander_id as text), 'unknown') end`);
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

/** The group key of an our-clicks row `o` (campaigns `c` joined for the lander). */
function clickKey(groupBy: StatsGrouping): SQL {
  if (CLICK_FIELD_OF[groupBy]) return sql.raw("o.g");
  if (groupBy === "campaign") return sql.raw("cast(o.campaign_id as text)");
  if (groupBy === "lander") return sql.raw("coalesce(cast(c.lander_id as text), 'unknown')");
  throw new Error(`our clicks do not record ${groupBy}`);
}

const joinsCampaign = (groupBy: StatsGrouping) => groupBy === "lander";

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

const cakeFrom = (groupBy: StatsGrouping) =>
  joinsCampaign(groupBy)
    ? sql`cake_attributed_daily r left join campaigns c on c.id = r.campaign_id`
    : sql`cake_attributed_daily r`;

/**
 * CTEs `st` (how far the click rollup is usable) and `oc` (our clicks of the range: date,
 * campaign_id, t = ad campaign, g = the grouping's click field, clicks, exits).
 *
 * The rollup counts only while its days are this time zone's and its clicks still the table's;
 * otherwise (the setting just changed, the cron has not rebuilt yet) everything is read from
 * clicks: slower, never wrong. All three parts read the state row in the same statement, so a
 * cron run moving the watermarks meanwhile cannot make a click count twice or not at all.
 */
function ourClicksCtes(range: ReportRange, field: ClickField | undefined): SQL {
  const day = localDaySql(sql.raw("k.clicked_at"), offsetSpans(range.startMs, range.endMs, range.timeZone));
  const rolled = field ? sql.raw(`d.${field}`) : sql.raw("''");
  const raw = field ? sql.raw(`coalesce(k.${field}, '')`) : sql.raw("''");
  const inRange = sql`k.clicked_at >= ${range.startMs} and k.clicked_at < ${range.endMs}`;
  return sql`
    st as materialized (
      select coalesce(max(ok * w), 0) as w, coalesce(max(ok * e), 0) as e, coalesce(max(ok), 0) as ok from (
        select s.click_watermark as w, s.exit_watermark as e,
          (s.time_zone = ${range.timeZone} and (s.click_watermark = 0 or exists (
            select 1 from clicks a where a.id = s.click_watermark and a.click_id = s.anchor_click_id))) as ok
        from click_rollup_state s where s.id = 1)),
    oc as materialized (
      select d.date, d.campaign_id, d.tiktok_campaign_id as t, ${rolled} as g, d.clicks, d.exits
      from st cross join click_daily_stats d
      where st.ok = 1 and d.date between ${range.startDate} and ${range.endDate}
      union all
      select ${day}, k.campaign_id, coalesce(k.tiktok_campaign_id, ''), ${raw}, 1, k.exited_at is not null
      from st cross join clicks k not indexed
      where k.id > st.w and ${inRange}
      union all
      select ${day}, k.campaign_id, coalesce(k.tiktok_campaign_id, ''), ${raw}, 0, 1
      from st cross join clicks k indexed by clicks_exited_at_idx
      where st.ok = 1 and k.exited_at > st.e and k.id <= st.w and ${inRange})`;
}

/** Revenue side: `g` rows (key, offer name, visits, conversions, revenue) and `d` rows (date, revenue). */
export function revenueStatement(q: ReportQuery): SQL {
  const { startDate, endDate } = q.range;
  return sql`
    with r as materialized (
      select r.date, ${cakeKey(q.groupBy)} as key, r.offer_name, r.clicks, r.conversions, r.revenue_cents
      from ${cakeFrom(q.groupBy)}
      where r.date between ${startDate} and ${endDate}${andAll(cakeConditions(q))})
    select 'g' as kind, key, max(offer_name) as hint, sum(clicks) as visits, sum(conversions) as conversions,
      sum(revenue_cents) as revenue
    from r group by key
    union all
    select 'd', date, null, 0, 0, sum(revenue_cents) from r group by date`;
}

export interface RevenueRow {
  kind: "g" | "d";
  key: string;
  hint: string | null;
  visits: number;
  conversions: number;
  revenue: number;
}

/**
 * Spend side, one statement. Kinds: `g` spend per group and `d` per day (fractions of cents:
 * rounded by the caller so the rows add up), `u` per day the spend nothing links to a group,
 * `t` the range's whole spend, and for the campaign grouping `c` our clicks and exits per
 * campaign.
 *
 * Linking: each (day, ad campaign) spend is shared out by the weights of the groups its clicks
 * reached that day: our clicks (`our-clicks`) or the CAKE clicks of our clicks (`cake-clicks`).
 * The share is of all its clicks, so a filter keeps only the filtered groups' part. A day on which
 * the ad campaign has no weighted click uses its shares over the whole range (the networks' and
 * our days need not line up); an ad campaign with none in the range is unlinked (`u`).
 */
export function spendStatement(q: ReportQuery): SQL {
  const { startDate, endDate } = q.range;
  const link = spendLink(q);
  const field = CLICK_FIELD_OF[q.groupBy];
  const withClicks = q.groupBy === "campaign" || link === "our-clicks";
  const ctes: SQL[] = [];
  if (withClicks) ctes.push(ourClicksCtes(q.range, field));
  ctes.push(sql`
    s as materialized (
      select date, tiktok_campaign_id as t, spend_cents as cents from tiktok_spend
      where date between ${startDate} and ${endDate} and spend_cents <> 0)`);
  const parts: SQL[] = [];
  if (link === "direct") {
    parts.push(sql`select 'g' as kind, t as key, sum(cents) as amount, 0 as clicks, 0 as exits from s group by t`);
    parts.push(sql`select 'd', date, sum(cents), 0, 0 from s group by date`);
  } else {
    const src =
      link === "our-clicks"
        ? sql`
          select o.date, o.t, ${clickKey(q.groupBy)} as key, o.clicks as w, ${all(clickConditions(q))} as f
          from oc o ${joinsCampaign(q.groupBy) ? sql`left join campaigns c on c.id = o.campaign_id` : sql``}
          where o.t <> ''`
        : sql`
          select r.date, r.tiktok_campaign_id as t, ${cakeKey(q.groupBy)} as key, r.clicks as w, ${all(cakeConditions(q))} as f
          from ${cakeFrom(q.groupBy)}
          where r.date between ${startDate} and ${endDate} and r.campaign_id <> 0 and r.tiktok_campaign_id <> ''`;
    ctes.push(sql`
      src as materialized (${src}),
      dw as materialized (select date, t, key, sum(w) as w from src where f group by date, t, key),
      dt as materialized (select date, t, sum(w) as w from src group by date, t having sum(w) > 0),
      rw as (select t, key, sum(w) as w from dw group by t, key),
      rt as materialized (select t, sum(w) as w from dt group by t),
      att as materialized (
        select s.date, dw.key, s.cents * 1.0 * dw.w / dt.w as amount
        from s join dt on dt.date = s.date and dt.t = s.t join dw on dw.date = s.date and dw.t = s.t
        union all
        select s.date, rw.key, s.cents * 1.0 * rw.w / rt.w
        from s join rt on rt.t = s.t join rw on rw.t = s.t
        where not exists (select 1 from dt where dt.date = s.date and dt.t = s.t))`);
    parts.push(sql`select 'g' as kind, key, sum(amount) as amount, 0 as clicks, 0 as exits from att group by key`);
    parts.push(sql`select 'd', date, sum(amount), 0, 0 from att group by date`);
    parts.push(sql`select 'u', date, sum(cents), 0, 0 from s where not exists (select 1 from rt where rt.t = s.t) group by date`);
  }
  parts.push(sql`select 't', '', coalesce(sum(cents), 0), 0, 0 from s`);
  if (q.groupBy === "campaign") {
    parts.push(sql`
      select 'c', cast(o.campaign_id as text), 0, sum(o.clicks), sum(o.exits) from oc o
      where ${all(clickConditions(q))} group by o.campaign_id`);
  }
  return sql`with ${sql.join(ctes, sql`, `)} ${sql.join(parts, sql` union all `)}`;
}

export interface SpendRow {
  kind: "g" | "d" | "u" | "t" | "c";
  key: string;
  amount: number;
  clicks: number;
  exits: number;
}

/** Display names of the groups whose key is an id of ours. */
function namesStatement(groupBy: StatsGrouping): SQL | null {
  if (groupBy === "campaign") return sql`select cast(id as text) as key, name from campaigns`;
  if (groupBy === "lander") return sql`select cast(id as text) as key, name from landers`;
  if (groupBy === "spark") return sql`select spark_id as key, name from sparks`;
  return null;
}

const lastSyncStatement = sql`
  select source, max(finished_at) as at from sync_runs where status = 'ok' group by source`;

export interface ReportData {
  revenue: RevenueRow[];
  spend: SpendRow[];
  names: Map<string, string>;
  lastSync: { cake: number | null; tiktok: number | null };
}

/** Everything the report needs, in one round trip and one consistent read. */
export async function readReport(db: Db, q: ReportQuery): Promise<ReportData> {
  const names = namesStatement(q.groupBy);
  const results = await rawBatch(db, [revenueStatement(q), spendStatement(q), lastSyncStatement, ...(names ? [names] : [])]);
  const rows = <T>(i: number) => (results[i]?.results ?? []) as T[];
  const synced = rows<{ source: string; at: number | null }>(2);
  const at = (source: string) => synced.find((s) => s.source === source)?.at ?? null;
  return {
    revenue: rows<RevenueRow>(0),
    spend: rows<SpendRow>(1),
    names: new Map(names ? rows<{ key: string; name: string }>(3).map((n) => [n.key, n.name]) : []),
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
