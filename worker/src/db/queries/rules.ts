/**
 * Rules and their firings (docs/rules.md), and the one read an evaluation needs: per campaign,
 * ad campaign and ad group the window's clicks, CAKE figures and spend, from the daily rollups
 * the stats report reads (rows follow the days and the distinct ad groups, never the clicks).
 */
import { desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import type { AlertTarget, ChannelDelivery } from "../../schemas/alerts";
import type { AdGroupOutcome, RuleFigures, RuleInput } from "../../schemas/rules";
import { rawBatch } from "../raw-batch";
import { ruleFirings, rules } from "../schema";

export type RuleRow = typeof rules.$inferSelect;
export type FiringRow = typeof ruleFirings.$inferSelect;

export const ruleValues = (input: RuleInput) => ({
  name: input.name,
  enabled: input.enabled,
  scope: input.scope,
  windowAmount: input.window.amount,
  windowUnit: input.window.unit,
  conditions: input.conditions,
  guard: input.guard,
  cooldownMinutes: input.cooldownMinutes,
  action: input.action,
  act: input.action === "actAndAlert" ? input.act : null,
  target: input.target satisfies AlertTarget,
});

export const listRules = (db: Db) => db.select().from(rules).orderBy(rules.name, rules.id);
export const listEnabledRules = (db: Db) => db.select().from(rules).where(eq(rules.enabled, true));
export const getRule = async (db: Db, id: number) => (await db.select().from(rules).where(eq(rules.id, id)))[0] ?? null;

/** Each rule's latest firing (not a skip): the list's "last fired". */
export async function lastFirings(db: Db): Promise<Map<number, number>> {
  const rows = await db
    .select({ ruleId: ruleFirings.ruleId, at: sql<number>`max(${ruleFirings.firedAt})` })
    .from(ruleFirings)
    .where(sql`${ruleFirings.status} <> 'skipped'`)
    .groupBy(ruleFirings.ruleId);
  return new Map(rows.map((r) => [r.ruleId, r.at]));
}

export const FIRINGS_SHOWN = 100;

export const listFirings = (db: Db, ruleId: number) =>
  db.select().from(ruleFirings).where(eq(ruleFirings.ruleId, ruleId)).orderBy(desc(ruleFirings.firedAt), desc(ruleFirings.id)).limit(FIRINGS_SHOWN);

/** The ids of `ids` that exist in `table` (campaigns, offers, sparks): what a scope may name. */
export async function existingIds(db: Db, table: "campaigns" | "offers" | "sparks", ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.all<{ id: number }>(sql`select id from ${sql.identifier(table)} where id in ${ids}`);
  return new Set(rows.map((r) => r.id));
}

export interface NewFiring {
  ruleId: number;
  itemKey: string;
  itemLabel: string;
  firedAt: number;
  cooldownMinutes: number;
  status: "acting" | "skipped";
  figures: RuleFigures;
  action: string;
  note?: string;
}

/**
 * The claims: each firing is inserted only when the rule has no firing for the item within its
 * cooldown, by one conditional statement (D1 runs one statement at a time), so of two runs at
 * once exactly one gets the row back and acts. Sent as batches, one round trip per CLAIM_BATCH.
 * Each answer is the firing's id, or null when another run (or an earlier one) already has it.
 */
export async function claimFirings(db: Db, list: NewFiring[]): Promise<(number | null)[]> {
  const ids: (number | null)[] = [];
  for (let i = 0; i < list.length; i += CLAIM_BATCH) {
    const results = await rawBatch(db, list.slice(i, i + CLAIM_BATCH).map(claimStatement));
    ids.push(...results.map((r) => (r.results as { id: number }[])[0]?.id ?? null));
  }
  return ids;
}

const CLAIM_BATCH = 200;

function claimStatement(f: NewFiring): SQL {
  const since = f.firedAt - f.cooldownMinutes * 60_000;
  return sql`
    insert into rule_firings (rule_id, item_key, item_label, fired_at, status, figures, action, tiktok, deliveries, note)
    select ${f.ruleId}, ${f.itemKey}, ${f.itemLabel}, ${f.firedAt}, ${f.status}, ${JSON.stringify(f.figures)}, ${f.action}, '[]', '[]', ${f.note ?? ""}
    where exists (select 1 from rules where id = ${f.ruleId})
      and not exists (select 1 from rule_firings where rule_id = ${f.ruleId} and item_key = ${f.itemKey} and fired_at > ${since})
    returning id`;
}

export const finishFiring = (db: Db, id: number, done: { status: "done" | "problem"; tiktok: AdGroupOutcome[]; deliveries: ChannelDelivery[]; note: string }) =>
  db.update(ruleFirings).set(done).where(eq(ruleFirings.id, id));

// ---- the evaluation's read ---------------------------------------------------------------------

export interface DayRange {
  startDate: string;
  endDate: string;
}

/** One (campaign, ad campaign, ad group) of a window: our clicks and CAKE's figures. */
export interface AdGroupFigures {
  campaignId: number;
  t: string;
  g: string;
  clicks: number;
  exits: number;
  bots: number;
  visits: number;
  conversions: number;
  revenue: number;
}

export interface WindowData {
  rows: AdGroupFigures[];
  /** Spend in cents per ad campaign over the window. */
  spend: Map<string, number>;
}

export interface Catalog {
  campaigns: Map<number, { name: string; sparkId: number | null; offerIds: number[] }>;
  sparks: Map<number, string>;
  offers: Map<number, string>;
}

/** The window's rows: clicks and CAKE's per (campaign, ad campaign, ad group), joined in SQL. */
function windowStatements({ startDate, endDate }: DayRange): SQL[] {
  return [
    sql`
      select campaign_id as campaignId, t, g, sum(clicks) as clicks, sum(exits) as exits, sum(bots) as bots,
        sum(visits) as visits, sum(conversions) as conversions, sum(revenue) as revenue from (
        select campaign_id, tiktok_campaign_id as t, tiktok_ad_group_id as g,
          case when bot = 0 then clicks else 0 end as clicks, case when bot = 0 then exits else 0 end as exits,
          case when bot = 1 then clicks else 0 end as bots, 0 as visits, 0 as conversions, 0 as revenue
        from click_daily_stats where date between ${startDate} and ${endDate}
        union all
        select campaign_id, tiktok_campaign_id, tiktok_ad_group_id, 0, 0, 0, clicks, conversions, revenue_cents
        from cake_attributed_daily where date between ${startDate} and ${endDate} and campaign_id <> 0)
      group by campaign_id, t, g`,
    sql`select tiktok_campaign_id as t, sum(spend_cents) as cents from tiktok_spend where date between ${startDate} and ${endDate} group by t`,
  ];
}

const catalogStatements: SQL[] = [
  sql`select id, name, spark_id as sparkId, offer_id as offerId from campaigns`,
  sql`select distinct p.campaign_id as campaignId, o.offer_id as offerId from campaign_paths p join path_offers o on o.path_id = p.id`,
  sql`select id, name from sparks`,
  sql`select id, name from offers`,
];

/** Everything an evaluation of `ranges` needs, in one batch (one consistent read). */
export async function readEvaluationData(db: Db, ranges: DayRange[]): Promise<{ windows: WindowData[]; catalog: Catalog; rowsRead: number }> {
  const results = await rawBatch(db, [...catalogStatements, ...ranges.flatMap(windowStatements)]);
  const rows = <T>(i: number) => (results[i]?.results ?? []) as T[];
  const campaigns: Catalog["campaigns"] = new Map();
  for (const c of rows<{ id: number; name: string; sparkId: number | null; offerId: number | null }>(0)) {
    campaigns.set(c.id, { name: c.name, sparkId: c.sparkId, offerIds: c.offerId === null ? [] : [c.offerId] });
  }
  for (const p of rows<{ campaignId: number; offerId: number }>(1)) {
    const c = campaigns.get(p.campaignId);
    if (c && !c.offerIds.includes(p.offerId)) c.offerIds.push(p.offerId);
  }
  const named = (i: number) => new Map(rows<{ id: number; name: string }>(i).map((r) => [r.id, r.name]));
  const windows = ranges.map((_, w) => ({
    rows: rows<AdGroupFigures>(4 + w * 2),
    spend: new Map(rows<{ t: string; cents: number }>(5 + w * 2).map((s) => [s.t, s.cents])),
  }));
  const rowsRead = results.reduce((sum, r) => sum + (r.meta?.rows_read ?? 0), 0);
  return { windows, catalog: { campaigns, sparks: named(2), offers: named(3) }, rowsRead };
}
