/**
 * A rule's scope items and their figures over its window, from the rows readEvaluationData read
 * (docs/rules.md "Figures"). Pure: the cron's evaluation and the dry run share it.
 */
import type { AdGroupFigures, Catalog, DayRange, RuleRow, WindowData } from "../db/queries/rules";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { compare, type RuleCondition, type RuleFigures } from "../schemas/rules";

const HOUR_MS = 3_600_000;

/**
 * The report days a window covers at `now`. The rollups are daily (CAKE's and TikTok's days are
 * whole days, clicks are rolled up per day), so "last N hours" reads every report day the last N
 * hours touch: at 10:00, "last 6 hours" is today; at 03:00 it is yesterday and today.
 */
export function windowDays(window: { amount: number; unit: "hours" | "days" }, now: number, timeZone: string): DayRange {
  const endDate = dayIn(now, timeZone);
  const startDate = window.unit === "days" ? shiftDay(endDate, -(window.amount - 1)) : dayIn(now - window.amount * HOUR_MS, timeZone);
  return { startDate, endDate };
}

export interface ScopeItem {
  key: string;
  label: string;
  /** The campaigns whose figures the item sums; null for an ad group item. */
  campaignIds: number[] | null;
  adGroup: string | null;
}

export interface MissingItem {
  key: string;
  label: string;
  note: string;
}

/** The items a rule watches now, and those of its scope that no longer exist. */
export function scopeItems(rule: Pick<RuleRow, "scope">, catalog: Catalog): { items: ScopeItem[]; missing: MissingItem[] } {
  const items: ScopeItem[] = [];
  const missing: MissingItem[] = [];
  const { kind, values } = rule.scope;
  const campaignItem = (id: number, name: string): ScopeItem => ({ key: `campaign:${id}`, label: name, campaignIds: [id], adGroup: null });
  if (kind === "all") {
    for (const [id, c] of catalog.campaigns) items.push(campaignItem(id, c.name));
  } else if (kind === "adGroups") {
    for (const v of values) items.push({ key: `adGroup:${v}`, label: `Ad group ${v}`, campaignIds: null, adGroup: v });
  } else {
    for (const v of values) {
      const id = Number(v);
      if (kind === "campaigns") {
        const c = catalog.campaigns.get(id);
        if (c) items.push(campaignItem(id, c.name));
        else
          missing.push({
            key: `campaign:${id}`,
            label: `Campaign #${id}`,
            note: `Campaign #${id} was deleted: the rule skips it (edit the rule to remove it)`,
          });
      } else {
        const names = kind === "sparks" ? catalog.sparks : catalog.offers;
        const what = kind === "sparks" ? "Spark" : "Offer";
        const name = names.get(id);
        if (name === undefined) {
          missing.push({ key: `${kind}:${id}`, label: `${what} #${id}`, note: `${what} #${id} was deleted: the rule skips it (edit the rule to remove it)` });
          continue;
        }
        const ids = [...catalog.campaigns].filter(([, c]) => (kind === "sparks" ? c.sparkId === id : c.offerIds.includes(id))).map(([cid]) => cid);
        items.push({ key: `${kind === "sparks" ? "spark" : "offer"}:${id}`, label: `${what} ${name}`, campaignIds: ids, adGroup: null });
      }
    }
  }
  return { items, missing };
}

/** A window's rows indexed once, so each item reads only its own. */
export interface IndexedWindow {
  byCampaign: Map<number, AdGroupFigures[]>;
  byAdGroup: Map<string, AdGroupFigures[]>;
  /** Our (non-bot) clicks per ad campaign over everything: the denominators of the spend shares. */
  clicksOfAdCampaign: Map<string, number>;
  spend: Map<string, number>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function indexWindow(data: WindowData): IndexedWindow {
  const byCampaign = new Map<number, AdGroupFigures[]>();
  const byAdGroup = new Map<string, AdGroupFigures[]>();
  const clicksOfAdCampaign = new Map<string, number>();
  for (const r of data.rows) {
    push(byCampaign, r.campaignId, r);
    if (r.g) push(byAdGroup, r.g, r);
    if (r.t) clicksOfAdCampaign.set(r.t, (clicksOfAdCampaign.get(r.t) ?? 0) + r.clicks);
  }
  return { byCampaign, byAdGroup, clicksOfAdCampaign, spend: data.spend };
}

export interface ItemResult {
  figures: RuleFigures;
  /** The ad groups the item's clicks and conversions came through: what "act" pauses or resumes. */
  adGroups: string[];
}

const ratio = (a: number, b: number, scale = 1) => (b === 0 ? null : (a / b) * scale);
const round = (v: number | null, places: number) => (v === null ? null : Math.round(v * 10 ** places) / 10 ** places);

/**
 * An item's figures. Spend is TikTok's per ad campaign and day; an item gets the share of its ad
 * campaigns' spend that its (non-bot) clicks are of the ad campaign's clicks over the window, as
 * the stats report shares spend out to ad groups (docs/data.md).
 */
export function itemFigures(item: ScopeItem, w: IndexedWindow): ItemResult {
  const rows = item.adGroup !== null ? (w.byAdGroup.get(item.adGroup) ?? []) : (item.campaignIds ?? []).flatMap((id) => w.byCampaign.get(id) ?? []);
  let clicks = 0;
  let exits = 0;
  let bots = 0;
  let visits = 0;
  let conversions = 0;
  let revenue = 0;
  const clicksByT = new Map<string, number>();
  const adGroups = new Set<string>();
  for (const r of rows) {
    clicks += r.clicks;
    exits += r.exits;
    bots += r.bots;
    visits += r.visits;
    conversions += r.conversions;
    revenue += r.revenue;
    if (r.t) clicksByT.set(r.t, (clicksByT.get(r.t) ?? 0) + r.clicks);
    if (r.g) adGroups.add(r.g);
  }
  let spend = 0;
  for (const [t, mine] of clicksByT) {
    const all = w.clicksOfAdCampaign.get(t) ?? 0;
    if (all > 0) spend += ((w.spend.get(t) ?? 0) * mine) / all;
  }
  const profit = revenue - spend;
  const figures: RuleFigures = {
    spend: round(spend / 100, 2),
    revenue: round(revenue / 100, 2),
    profit: round(profit / 100, 2),
    roi: round(ratio(profit, spend, 100), 2),
    cpa: round(ratio(spend / 100, conversions), 2),
    conversions,
    visits,
    linkClicks: clicks,
    ctr: round(ratio(exits, clicks, 100), 2),
    cr: round(ratio(conversions, visits, 100), 2),
    epv: round(ratio(revenue / 100, visits), 3),
    botShare: round(ratio(bots, clicks + bots, 100), 2),
  };
  return { figures, adGroups: item.adGroup !== null ? [item.adGroup] : [...adGroups].sort() };
}

const holds = (c: RuleCondition, f: RuleFigures) => compare(f[c.metric], c.op, c.value);

/** Whether the figures meet the guard (when there is one) and every condition. */
export const matches = (rule: Pick<RuleRow, "conditions" | "guard">, f: RuleFigures) =>
  (!rule.guard || holds(rule.guard, f)) && rule.conditions.every((c) => holds(c, f));
