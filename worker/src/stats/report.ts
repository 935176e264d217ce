/**
 * Turns the report's aggregated reads (db/queries/stats.ts) into the answer: one row per group
 * with the docs/screens.md §9 maths, the totals, the days, and a note on how spend was found.
 *
 * Spend arrives in fractions of cents (an ad campaign's day shared out by click share); it is
 * rounded once, by largest remainder, so the rows' cents add up exactly to the total shown, and
 * the days' cents to the same total.
 */
import { formatCents, formatScaled } from "../lib/money";
import { CAKE_ONLY_GROUPINGS, isCakeNarrowed, isRestricted, type ReportData, type ReportQuery } from "../db/queries/stats";
import { shiftDay } from "../lib/calendar-days";
import { countryLabel } from "../lib/country";
import { isoOrNull } from "../lib/time";
import {
  DIRECT_KEY,
  NO_SPARK,
  UNATTRIBUTED_KEY,
  type SpendMethod,
  type StatsDay,
  type StatsGrouping,
  type StatsMetrics,
  type StatsReport,
  type StatsRow,
  type StatsTraffic,
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
  /** Bot-flagged clicks, and all our clicks, bots included (campaign grouping). */
  botClicks: number | null;
  allClicks: number | null;
}

/**
 * Rounds amounts to whole cents so they sum to `target`: each is floored, then the cents left go
 * to the largest remainders (ties to the earlier one).
 */
export function roundToTotal(amounts: number[], target: number): number[] {
  const floors = amounts.map((a) => Math.floor(a));
  let left = target - floors.reduce((s, f) => s + f, 0);
  const order = amounts.map((a, i) => ({ i, rest: a - floors[i]! })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; left > 0 && order.length; k = (k + 1) % order.length, left--) floors[order[k]!.i]! += 1;
  for (let k = order.length - 1; left < 0 && order.length; k = (k - 1 + order.length) % order.length, left++) floors[order[k]!.i]! -= 1;
  return floors;
}

/** n / d rounded half away from zero, in integers (no floating point on money). */
function divRound(n: number, d: number): number {
  const q = Math.trunc(n / d);
  const r = n - q * d;
  return 2 * Math.abs(r) >= Math.abs(d) ? q + Math.sign(n) * Math.sign(d) : q;
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
  /** Campaign grouping: bot-flagged clicks and all our clicks (bots included); else left out. */
  botClicks?: number | null;
  allClicks?: number | null;
}

/** docs/screens.md §9: profit = revenue - spend; ROI and ROAS 0 without spend; CR, EPV, CPV per visit. */
export function metrics(f: Figures): StatsMetrics {
  const profitCents = f.revenueCents - f.spendCents;
  const perVisit = (cents: number) => formatThousandths(f.visits === 0 ? 0 : divRound(cents * 10, f.visits));
  return {
    visits: f.visits,
    conversions: f.conversions,
    revenue: formatCents(f.revenueCents),
    spend: formatCents(f.spendCents),
    profit: formatCents(profitCents),
    roi: f.spendCents === 0 ? 0 : (profitCents / f.spendCents) * 100,
    roas: f.spendCents === 0 ? 0 : f.revenueCents / f.spendCents,
    cr: f.visits === 0 ? 0 : (f.conversions / f.visits) * 100,
    epv: perVisit(f.revenueCents),
    cpv: perVisit(f.spendCents),
    linkClicks: f.linkClicks,
    exitClicks: f.exitClicks,
    landerCtr: f.linkClicks === null ? null : f.linkClicks === 0 ? 0 : ((f.exitClicks ?? 0) / f.linkClicks) * 100,
    botShare: f.botClicks == null || f.allClicks == null ? null : f.allClicks === 0 ? 0 : (f.botClicks / f.allClicks) * 100,
  };
}

/** The report's own-traffic figures from its campaigns' clicks and exits. */
function ownTraffic(campaigns: { clicks: number; exits: number }[]): StatsTraffic {
  const linkClicks = campaigns.reduce((s, c) => s + c.clicks, 0);
  const exitClicks = campaigns.reduce((s, c) => s + c.exits, 0);
  return { linkClicks, exitClicks, landerCtr: linkClicks === 0 ? 0 : (exitClicks / linkClicks) * 100 };
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
};

function displayName(groupBy: StatsGrouping, g: Group, names: Map<string, string>): string {
  if (g.key === UNATTRIBUTED_KEY) return "Unattributed spend";
  switch (groupBy) {
    case "campaign":
      return g.key === DIRECT_KEY ? "Direct" : (names.get(g.key) ?? `Campaign ${g.key} (deleted)`);
    case "lander":
      if (g.key === DIRECT_KEY) return "Direct";
      if (g.key === "unknown") return "Unknown lander";
      return names.get(g.key) ?? `Lander ${g.key} (deleted)`;
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
      if (g.key === DIRECT_KEY) return "Direct";
      if (g.key === "") return "Unknown";
      return groupBy === "country" ? countryLabel(g.key) : g.key;
    default:
      return g.key === DIRECT_KEY ? "Direct" : g.key === "" ? "(not set)" : g.key;
  }
}

const money = (cents: number) => `$${formatCents(cents)}`;

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
  const ourClicks = new Map<string, { clicks: number; exits: number; bots: number }>();
  const cakeCampaigns = new Set<string>();
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
      case "cake_campaign":
        cakeCampaigns.add(r.key);
        break;
      case "campaign_clicks":
        ourClicks.set(r.key, { clicks: r.clicks, exits: r.exits, bots: r.bots });
        break;
      default: {
        const unknown: never = r;
        throw new Error(`unknown report row ${JSON.stringify(unknown)}`);
      }
    }
  }

  // Our clicks do not know the spark or media buyer: with those narrowing the report, a campaign
  // counts only when CAKE's rows place it in the report, with all its own clicks.
  const cakeNarrowed = ctx.member || isCakeNarrowed(q);
  if (groupBy === "campaign") {
    for (const [key, c] of ourClicks) {
      const g = cakeNarrowed ? groups.get(key) : group(key);
      if (!g) continue;
      g.linkClicks = c.clicks;
      g.exitClicks = c.exits;
      g.botClicks = c.bots;
      // With bots left out, link clicks are people's; the share is of everyone's clicks.
      g.allClicks = q.includeBots ? c.clicks : c.clicks + c.bots;
    }
    for (const g of groups.values()) {
      if (g.key !== DIRECT_KEY && g.linkClicks === null) {
        g.linkClicks = 0;
        g.exitClicks = 0;
        g.botClicks = 0;
        g.allClicks = 0;
      }
    }
  }

  // Spend nothing links to a group: split evenly (docs/screens.md §9) where the grouping has no link of its
  // own, its own row otherwise, and left out when the report is narrowed (it is nobody's there).
  const restricted = isRestricted(q);
  let evenGroups = 0;
  let unattributed = 0;
  if (!restricted && unlinked > 0) {
    const real = [...groups.values()];
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
  const spendCents = roundToTotal(
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
      a.name.localeCompare(b.name),
  );

  const sum = (pick: (g: Group, i: number) => number) => list.reduce((s, g, i) => s + pick(g, i), 0);
  const campaignGrouping = groupBy === "campaign";
  const totals = metrics({
    visits: sum((g) => g.visits),
    conversions: sum((g) => g.conversions),
    revenueCents: sum((g) => g.revenueCents),
    spendCents: shownSpend,
    linkClicks: campaignGrouping ? sum((g) => g.linkClicks ?? 0) : null,
    exitClicks: campaignGrouping ? sum((g) => g.exitClicks ?? 0) : null,
    botClicks: campaignGrouping ? sum((g) => g.botClicks ?? 0) : null,
    allClicks: campaignGrouping ? sum((g) => g.allClicks ?? 0) : null,
  });

  // The campaign grouping's rows already are those campaigns; elsewhere they are picked the same way.
  const traffic = ownTraffic(
    campaignGrouping
      ? [{ clicks: totals.linkClicks ?? 0, exits: totals.exitClicks ?? 0 }]
      : [...ourClicks].filter(([key]) => !cakeNarrowed || cakeCampaigns.has(key)).map(([, c]) => c),
  );

  const days: string[] = [];
  for (let d = q.range.startDate; d <= q.range.endDate; d = shiftDay(d, 1)) days.push(d);
  const dailySpend = roundToTotal(
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
        : `${money(unlinkedCents)} of the spend is split evenly across the ${evenGroups} groups: none of its TikTok campaigns' clicks reached CAKE, so nothing links it to a ${singular}.`,
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
    traffic,
    spendNote: notes.length ? notes.join(" ") : null,
    daily,
    lastSync: {
      cake: isoOrNull(data.lastSync.cake),
      tiktok: isoOrNull(data.lastSync.tiktok),
    },
  };
}
