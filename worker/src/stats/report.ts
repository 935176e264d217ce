/**
 * Turns the report's aggregated reads (db/queries/stats.ts) into the answer: one row per group
 * with the docs/screens.md §9 maths, the totals, the days, and a note on how spend was found.
 *
 * Spend arrives in fractions of cents (an ad campaign's day shared out by click share); it is
 * rounded once, by largest remainder, so the rows' cents add up exactly to the total shown, and
 * the days' cents to the same total.
 */
import { formatCents, formatScaled, perVisit } from "../lib/money";
import { isRestricted, type ReportData, type ReportQuery } from "../db/queries/stats";
import { shiftDay } from "../lib/calendar-days";
import { countryLabel } from "../lib/country";
import { isoOrNull } from "../lib/time";
import { largestRemainder } from "../lib/largest-remainder";
import {
  CAKE_ONLY_GROUPINGS,
  DIRECT_KEY,
  NO_CAKE_KEY,
  NO_SPARK,
  UNATTRIBUTED_KEY,
  type SpendMethod,
  type StatsDay,
  type StatsGrouping,
  type StatsMetrics,
  type StatsReport,
  type StatsRow,
} from "../schemas/stats";

interface Group {
  key: string;
  hint: string | null;
  visits: number;
  conversions: number;
  revenueCents: number;
  /** Spend in (fractional) cents before rounding. */
  spend: number;
  attributed: boolean;
  even: boolean;
  linkClicks: number | null;
  exitClicks: number | null;
  /** Bot-flagged clicks, and all our clicks, bots included. */
  botClicks: number | null;
  allClicks: number | null;
}

/** Thousandths of the currency as "0.123" (EPV and CPV, docs/screens.md §9). */
export const formatThousandths = (thousandths: number) => formatScaled(thousandths, 3);

interface Figures {
  visits: number;
  conversions: number;
  revenueCents: number;
  spendCents: number;
  linkClicks: number | null;
  exitClicks: number | null;
  /** Bot-flagged clicks and all our clicks (bots included); left out where there are none to count. */
  botClicks?: number | null;
  allClicks?: number | null;
}

/** docs/screens.md §9: profit = revenue - spend; ROI and ROAS 0 without spend; CR, EPV, CPV per visit. */
export function metrics(f: Figures): StatsMetrics {
  const profitCents = f.revenueCents - f.spendCents;
  return {
    visits: f.visits,
    conversions: f.conversions,
    revenue: formatCents(f.revenueCents),
    spend: formatCents(f.spendCents),
    profit: formatCents(profitCents),
    roi: f.spendCents === 0 ? 0 : (profitCents / f.spendCents) * 100,
    roas: f.spendCents === 0 ? 0 : f.revenueCents / f.spendCents,
    cr: f.visits === 0 ? 0 : (f.conversions / f.visits) * 100,
    epv: perVisit(f.revenueCents, f.visits),
    cpv: perVisit(f.spendCents, f.visits),
    linkClicks: f.linkClicks,
    exitClicks: f.exitClicks,
    landerCtr: f.linkClicks === null ? null : f.linkClicks === 0 ? 0 : ((f.exitClicks ?? 0) / f.linkClicks) * 100,
    botShare: f.botClicks == null || f.allClicks == null ? null : f.allClicks === 0 ? 0 : (f.botClicks / f.allClicks) * 100,
  };
}

/** Our clicks as a row's figures: with bots left out, link clicks are people's; the share is of everyone's clicks. */
const ownFigures = (c: OurClicks, includeBots: boolean) => ({
  linkClicks: c.clicks,
  exitClicks: c.exits,
  botClicks: c.bots,
  allClicks: includeBots ? c.clicks : c.clicks + c.bots,
});

interface OurClicks {
  clicks: number;
  exits: number;
  bots: number;
}

const GROUP_NOUNS: Record<StatsGrouping, [singular: string, plural: string]> = {
  campaign: ["campaign", "campaigns"],
  spark: ["spark", "sparks"],
  offer: ["offer", "offers"],
  lander: ["lander", "landers"],
  mediaBuyer: ["media buyer", "media buyers"],
  placement: ["placement", "placements"],
  tiktokCampaignId: ["TikTok campaign", "TikTok campaigns"],
  campaignName: ["TikTok campaign name", "TikTok campaign names"],
  tiktokAdGroupId: ["ad group", "ad groups"],
  adGroupName: ["ad group name", "ad group names"],
  tiktokCreativeId: ["ad", "ads"],
  creativeName: ["ad name", "ad names"],
  country: ["country", "countries"],
  device: ["device type", "device types"],
  os: ["operating system", "operating systems"],
  browser: ["browser", "browsers"],
  path: ["path", "paths"],
  landerOffer: ["lander and offer pair", "lander and offer pairs"],
};

/** What an audience value the click did not carry is called, per grouping. */
const UNKNOWN_AUDIENCE: Partial<Record<StatsGrouping, string>> = {
  country: "Unknown country",
  device: "Unknown device",
  os: "Unknown OS",
  browser: "Unknown browser",
};

/**
 * "Direct" is the campaign grouping's word for CAKE's rows no click of ours came from: no
 * campaign. The groupings that read a click's lander, field or audience value cannot place those
 * rows either, and say so rather than calling them a group.
 */
const NOT_ATTRIBUTED_NAME = "Not attributed to a click";
const NO_CAKE_NAME = "No visit reached CAKE";

/** A lander's name from its key in the lander groupings ('none': the path sends visitors straight to the offer). */
function landerName(key: string, names: Map<string, string>, prefix = ""): string {
  if (key === "none") return "No lander (straight to offer)";
  if (key === "unknown") return "Unknown lander";
  return names.get(`${prefix}${key}`) ?? `Lander ${key} (deleted)`;
}

function displayName(groupBy: StatsGrouping, g: Group, names: Map<string, string>): string {
  if (g.key === UNATTRIBUTED_KEY) return "Unattributed spend";
  if (g.key === NO_CAKE_KEY && CAKE_ONLY_GROUPINGS.includes(groupBy)) return NO_CAKE_NAME;
  switch (groupBy) {
    case "campaign":
      return g.key === DIRECT_KEY ? "Direct" : (names.get(g.key) ?? `Campaign ${g.key} (deleted)`);
    case "lander":
      return g.key === DIRECT_KEY ? NOT_ATTRIBUTED_NAME : landerName(g.key, names);
    case "path":
      if (g.key === DIRECT_KEY) return NOT_ATTRIBUTED_NAME;
      return names.get(g.key) ?? (g.key.startsWith("c") ? `Campaign ${g.key.slice(1)} (deleted) › Default path` : `Path ${g.key} (deleted)`);
    case "landerOffer": {
      if (g.key === DIRECT_KEY) return NOT_ATTRIBUTED_NAME;
      const [lander = "unknown", offer = "none"] = g.key.split("|");
      return `${landerName(lander, names, "l")} × ${offer === "none" ? "No offer" : (names.get(`o${offer}`) ?? `Offer ${offer} (deleted)`)}`;
    }
    case "offer":
      return g.hint || `Offer ${g.key}`;
    case "spark":
      return g.key === NO_SPARK ? "No Spark" : (names.get(g.key) ?? g.key);
    case "mediaBuyer":
      return g.key === "" ? "No media buyer" : g.key;
    case "country":
    case "device":
    case "os":
    case "browser":
      if (g.key === DIRECT_KEY) return NOT_ATTRIBUTED_NAME;
      if (g.key === "") return UNKNOWN_AUDIENCE[groupBy]!;
      return groupBy === "country" ? countryLabel(g.key) : g.key;
    default:
      return g.key === DIRECT_KEY ? NOT_ATTRIBUTED_NAME : g.key === "" ? "(not set)" : g.key;
  }
}

const money = (cents: number) => `$${formatCents(cents)}`;
const article = (noun: string) => (/^[aeiou]/i.test(noun) ? "an" : "a");

interface BuildContext {
  /** The caller is a member (scoped to their media buyers). */
  member: boolean;
}

export function buildReport(q: ReportQuery, data: ReportData, ctx: BuildContext): StatsReport {
  const { groupBy } = q;
  const groups = new Map<string, Group>();
  const group = (key: string) => {
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        hint: null,
        visits: 0,
        conversions: 0,
        revenueCents: 0,
        spend: 0,
        attributed: false,
        even: false,
        linkClicks: null,
        exitClicks: null,
        botClicks: null,
        allClicks: null,
      };
      groups.set(key, g);
    }
    return g;
  };

  const revenueByDay = new Map<string, number>();
  const spendByDay = new Map<string, number>();
  let unlinked = 0;
  let rangeSpend = 0;
  let traffic: OurClicks = { clicks: 0, exits: 0, bots: 0 };
  const includeBots = q.includeBots ?? false;
  const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);
  for (const r of data.rows) {
    switch (r.kind) {
      case "group_revenue": {
        const g = group(r.key);
        g.hint = r.hint;
        g.visits = r.visits;
        g.conversions = r.conversions;
        g.revenueCents = r.revenue;
        break;
      }
      case "group_spend": {
        if (r.amount <= 0) break;
        const g = group(r.key);
        g.spend += r.amount;
        g.attributed = true;
        break;
      }
      case "day_revenue":
        add(revenueByDay, r.key, r.revenue);
        break;
      case "day_spend":
        add(spendByDay, r.key, r.amount);
        break;
      case "unlinked_spend":
        unlinked = r.amount;
        break;
      case "range_spend":
        rangeSpend = r.amount;
        break;
      case "group_clicks":
        Object.assign(group(r.key), ownFigures(r, includeBots));
        break;
      case "traffic":
        traffic = r;
        break;
      default: {
        const unknown: never = r;
        throw new Error(`unknown report row ${JSON.stringify(unknown)}`);
      }
    }
  }

  // A group our traffic did not reach has none of it; Direct (no click of ours) has none to count.
  for (const g of groups.values()) {
    if (g.key !== DIRECT_KEY && g.linkClicks === null) Object.assign(g, ownFigures({ clicks: 0, exits: 0, bots: 0 }, includeBots));
  }

  // Spend nothing links to a group: split evenly (docs/screens.md §9) where the grouping has no link of its
  // own, its own row otherwise, and left out when the report is narrowed (it is nobody's there).
  const restricted = isRestricted(q);
  let evenGroups = 0;
  let unattributed = 0;
  if (!restricted && unlinked > 0) {
    // The campaigns no CAKE row places are no group of the grouping: the even split passes them by.
    const real = [...groups.values()].filter((g) => g.key !== NO_CAKE_KEY);
    if (CAKE_ONLY_GROUPINGS.includes(groupBy) && real.length > 0) {
      evenGroups = real.length;
      for (const g of real) {
        g.spend += unlinked / real.length;
        g.even = true;
      }
    } else {
      unattributed = unlinked;
      group(UNATTRIBUTED_KEY).spend = unlinked;
    }
  }

  const list = [...groups.values()];
  const shownSpend = Math.round(list.reduce((s, g) => s + g.spend, 0));
  const spendCents = largestRemainder(
    list.map((g) => g.spend),
    shownSpend,
  );

  const rows: StatsRow[] = list.map((g, i) => {
    const spendMethod: SpendMethod = g.even ? "even" : g.attributed ? "attributed" : "none";
    return {
      key: g.key,
      name: displayName(groupBy, g, data.names),
      campaignId: groupBy === "campaign" && g.key !== DIRECT_KEY && g.key !== UNATTRIBUTED_KEY ? Number(g.key) : null,
      spendMethod,
      ...metrics({ ...g, spendCents: spendCents[i]! }),
    };
  });
  const revenueOf = (r: StatsRow) => Number(r.revenue);
  rows.sort(
    (a, b) =>
      Number(a.key === UNATTRIBUTED_KEY) - Number(b.key === UNATTRIBUTED_KEY) ||
      revenueOf(b) - revenueOf(a) ||
      Number(b.spend) - Number(a.spend) ||
      (b.linkClicks ?? 0) - (a.linkClicks ?? 0) ||
      a.name.localeCompare(b.name),
  );

  const sum = (pick: (g: Group, i: number) => number) => list.reduce((s, g, i) => s + pick(g, i), 0);
  // Our traffic counts each click once: the rows' sum, except where a campaign CAKE places in two
  // offers, sparks or media buyers counts in both rows.
  const totals = metrics({
    visits: sum((g) => g.visits),
    conversions: sum((g) => g.conversions),
    revenueCents: sum((g) => g.revenueCents),
    spendCents: shownSpend,
    ...ownFigures(traffic, includeBots),
  });

  const days: string[] = [];
  for (let d = q.range.startDate; d <= q.range.endDate; d = shiftDay(d, 1)) days.push(d);
  const dailySpend = largestRemainder(
    days.map((d) => spendByDay.get(d) ?? 0),
    shownSpend,
  );
  const daily: StatsDay[] = days.map((date, i) => {
    const revenue = revenueByDay.get(date) ?? 0;
    return { date, revenue: formatCents(revenue), spend: formatCents(dailySpend[i]!), profit: formatCents(revenue - dailySpend[i]!) };
  });

  const [singular, plural] = GROUP_NOUNS[groupBy];
  const notes: string[] = [];
  if (evenGroups > 0) {
    const unlinkedCents = Math.round(unlinked);
    notes.push(
      unlinkedCents >= shownSpend
        ? `Spend for ${plural} is split evenly across the ${evenGroups} groups: nothing links ad spend to ${plural}.`
        : `${money(unlinkedCents)} of the spend is split evenly across the ${evenGroups} groups: none of its TikTok campaigns' clicks reached CAKE, so nothing links it to ${article(singular)} ${singular}.`,
    );
  }
  if (unattributed > 0) {
    notes.push(
      `${money(Math.round(unattributed))} of spend came from TikTok campaigns none of our clicks came from in these days, so no ${singular} can be credited with it: it shows as "Unattributed spend".`,
    );
  }
  if (restricted && Math.round(rangeSpend) > shownSpend) {
    notes.push(
      ctx.member
        ? "Only the spend linked by clicks to your media buyers' traffic is counted."
        : `Only the spend linked by clicks to these rows is counted: ${money(Math.round(rangeSpend) - shownSpend)} of the ${money(Math.round(rangeSpend))} spent in these days is left out.`,
    );
  }

  return {
    startDate: q.range.startDate,
    endDate: q.range.endDate,
    timeZone: q.range.timeZone,
    groupBy,
    rows,
    totals,
    traffic: { linkClicks: totals.linkClicks!, exitClicks: totals.exitClicks!, landerCtr: totals.landerCtr! },
    spendNote: notes.length ? notes.join(" ") : null,
    daily,
    lastSync: {
      cake: isoOrNull(data.lastSync.cake),
      tiktok: isoOrNull(data.lastSync.tiktok),
    },
  };
}
