/**
 * The stats report (docs/screens.md §2, docs/data.md "Performance stats"): its query, its answer's types and the
 * per-user column preferences. Shared with the web app, so zod only.
 *
 * Money is a decimal string with two places ("12.34"), EPV and CPV with three ("0.123"); ratios
 * are plain numbers, unrounded (the UI shows ROI with 1 decimal, CR and Lander CTR with 2). Dates
 * are `YYYY-MM-DD` days of the report time zone (setting `report_timezone`), endDate included.
 */
import { z } from "zod";
import { blankIsNone } from "./common";
import { dateRangeQuery } from "./performance";

/**
 * What the report groups by. The product's Variables select maps to the tracking-field groupings:
 * Campaign ID → tiktokCampaignId, Ad Group ID → tiktokAdGroupId, Ad ID → tiktokCreativeId,
 * Placement → placement, Campaign Name → campaignName, Ad Group Name → adGroupName,
 * Ad Name → creativeName (not "Adset": TikTok's word, and ours, is ad group).
 */
export const STATS_GROUPINGS = [
  "campaign",
  "spark",
  "offer",
  "lander",
  "mediaBuyer",
  "placement",
  "tiktokCampaignId",
  "campaignName",
  "tiktokAdGroupId",
  "adGroupName",
  "tiktokCreativeId",
  "creativeName",
  // Who clicked (Cloudflare's country, the parsed user agent): the product's placeholders made real.
  "country",
  "device",
  "os",
  "browser",
  // Where traffic distribution sent the click (docs/traffic-distribution.md "Reports").
  "path",
  "landerOffer",
] as const;

/**
 * The Stats screen's tabs and its tracking-field variables, the groupings a link's `tab` and
 * `variable` may name (web/src/features/stats/groupings.ts labels them; its test keeps the two
 * alike). The Worker reads a Stats link with them too (lib/screen-calls.ts).
 */
export const STATS_TABS = ["campaign", "spark", "offer", "lander", "path", "landerOffer", "mediaBuyer", "country", "device", "os", "browser"] as const;
export const STATS_VARIABLES = [
  "none",
  "tiktokCampaignId",
  "tiktokAdGroupId",
  "tiktokCreativeId",
  "placement",
  "campaignName",
  "adGroupName",
  "creativeName",
] as const;
export type StatsGrouping = (typeof STATS_GROUPINGS)[number];

/** The groupings by an audience value of the click (keys: country code, device, OS, browser; '' unknown). */
export const AUDIENCE_GROUPINGS = ["country", "device", "os", "browser"] as const satisfies readonly StatsGrouping[];

/**
 * Groupings no field of our clicks names: only CAKE's rows know the offer (the network's), the
 * spark (sub3) and the media buyer (sub1). Their spend is linked through the CAKE rows that
 * matched our clicks (the click carries the ad campaign), or, failing that, split evenly; our
 * clicks reach their rows through the campaigns CAKE's rows place there.
 */
export const CAKE_ONLY_GROUPINGS: readonly StatsGrouping[] = ["offer", "spark", "mediaBuyer"];

/** The sparkId filter value meaning "No Spark" (CAKE rows without a sub3). */
export const NO_SPARK = "none";

const positiveId = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be a whole number`);

/** GET /api/stats/report: the performance reads' day range (at most a year), the grouping and the filters. */
export const statsReportQuery = dateRangeQuery.and(
  z.object({
    groupBy: z.enum(STATS_GROUPINGS, { error: `groupBy must be one of ${STATS_GROUPINGS.join(", ")}` }).default("campaign"),
    /** One of our configured offers (GET /api/offers): the rows of the campaigns sending to it. */
    offerId: blankIsNone(positiveId("offerId")),
    /** A spark id (CAKE sub3), or "none" for the rows without one. */
    sparkId: blankIsNone(z.string().trim().min(1, "sparkId must not be empty").max(100, "sparkId must be at most 100 characters")),
    /** A media buyer (CAKE sub1). */
    mediaBuyer: blankIsNone(z.string().trim().min(1, "mediaBuyer must not be empty").max(50, "mediaBuyer must be at most 50 characters")),
    /** One of our campaigns. */
    campaignId: blankIsNone(positiveId("campaignId")),
    /**
     * Count bot-flagged clicks in Link Clicks, Lander CTR and the click shares that split spend
     * (left out by default).
     */
    includeBots: blankIsNone(
      z.enum(["true", "false", "1", "0"], { error: "includeBots must be true or false" }).transform((v) => v === "true" || v === "1"),
    ).transform((v) => v ?? false),
  }),
);
export type StatsReportQuery = z.input<typeof statsReportQuery>;
export type StatsReportFilters = z.output<typeof statsReportQuery>;

/** GET /api/stats/filters: startDate and endDate. */
export const statsFiltersQuery = dateRangeQuery;

/** How a row's spend was found. "none": no spend reached the row. */
export type SpendMethod = "attributed" | "even" | "none";

/** The figures of a row, and of the totals. */
export interface StatsMetrics {
  /** CAKE's clicks (visits to the offer). */
  visits: number;
  conversions: number;
  revenue: string;
  spend: string;
  profit: string;
  /** profit / spend x 100; 0 when spend is 0. */
  roi: number;
  /** revenue / spend; 0 when spend is 0. */
  roas: number;
  /** conversions / visits x 100; 0 when there are no visits. */
  cr: number;
  /** revenue / visits, three decimals. */
  epv: string;
  /** spend / visits, three decimals. */
  cpv: string;
  /**
   * Our own traffic in the row's group, in every grouping (docs/data.md "Performance stats"): our
   * redirect clicks, exits, exits / clicks x 100. null where no click of ours can be (the
   * "Direct" / "Not attributed to a click" row, the unattributed-spend row).
   */
  linkClicks: number | null;
  exitClicks: number | null;
  landerCtr: number | null;
  /** Bot-flagged clicks / all our clicks x 100; null where linkClicks is. */
  botShare: number | null;
}

/** Reserved row keys. */
export const DIRECT_KEY = "direct";
export const UNATTRIBUTED_KEY = "unattributed-spend";
/** Offer, spark and media buyer groupings: our clicks of the campaigns CAKE's rows place in no group. */
export const NO_CAKE_KEY = "no-cake-visits";

export interface StatsRow extends StatsMetrics {
  /** Stable id of the group: campaign id as text, sub1, spark id, ...; "direct", "none" (No Spark), "unattributed-spend", "no-cake-visits". */
  key: string;
  name: string;
  /** Campaign grouping: the campaign's id (null for Direct and the unattributed row). */
  campaignId: number | null;
  spendMethod: SpendMethod;
}

export interface StatsDay {
  date: string;
  revenue: string;
  spend: string;
  profit: string;
}

/**
 * Our own traffic over the report, in every grouping, each click once: the Link Clicks and Exit
 * Clicks of the campaign grouping's rows under the same days and filters, added up, and exits /
 * clicks x 100. The totals row's own-traffic figures are these.
 */
export interface StatsTraffic {
  linkClicks: number;
  exitClicks: number;
  landerCtr: number;
}

export interface StatsReport {
  startDate: string;
  endDate: string;
  timeZone: string;
  groupBy: StatsGrouping;
  rows: StatsRow[];
  totals: StatsMetrics;
  traffic: StatsTraffic;
  /** A sentence for the UI when spend was split evenly, left unattributed or left out; else null. */
  spendNote: string | null;
  /** Every day of the range, zero-filled. */
  daily: StatsDay[];
  /** ISO instants of the last successful sync per source (null: never). */
  lastSync: { cake: string | null; tiktok: string | null };
}

export interface StatsFilters {
  mediaBuyers: string[];
}

// ---------------------------------------------------------------------------------------------
// Per-user column preferences of the stats table (user_dashboard_preferences).
// ---------------------------------------------------------------------------------------------

export const STATS_COLUMNS = [
  "name",
  "visits",
  "conversions",
  "revenue",
  "spend",
  "profit",
  "roi",
  "roas",
  "cr",
  "epv",
  "cpv",
  "linkClicks",
  "exitClicks",
  "landerCtr",
  "botShare",
] as const;
export type StatsColumn = (typeof STATS_COLUMNS)[number];

/**
 * The Stats screen's link: the report call's own query plus what only the screen knows (the tab,
 * the tracking-field variable, the sort and the filtered campaign's name for its chip), read by the
 * screen (web/src/features/stats/url-state.ts) and by the Worker for the screen's document
 * (lib/screen-calls.ts). `groupBy` is not a parameter of it: the tab and the variable make it.
 */
export const statsScreenSearch = statsReportQuery.and(
  z.object({
    tab: z.enum(STATS_TABS),
    variable: z.enum(STATS_VARIABLES),
    sort: z.enum(STATS_COLUMNS),
    dir: z.enum(["asc", "desc"]),
    campaignName: z.string().max(200).optional(),
  }),
);

/** The Stats screen's link read over these: `today`, the report time zone's, by campaign, by revenue. */
export const statsScreenDefaults = (today: string): Record<string, string> => ({
  startDate: today,
  endDate: today,
  tab: "campaign",
  variable: "none",
  sort: "revenue",
  dir: "desc",
  includeBots: "false",
});

export const MIN_COLUMN_WIDTH = 40;
export const MAX_COLUMN_WIDTH = 800;
export const MAX_PREFERENCE_ENTRIES = 50;

const columnKey = z.enum(STATS_COLUMNS, { error: `Unknown column; known columns: ${STATS_COLUMNS.join(", ")}` });
const columnWidth = z
  .number({ error: `Column widths must be numbers of pixels from ${MIN_COLUMN_WIDTH} to ${MAX_COLUMN_WIDTH}` })
  .finite(`Column widths must be numbers of pixels from ${MIN_COLUMN_WIDTH} to ${MAX_COLUMN_WIDTH}`)
  .min(MIN_COLUMN_WIDTH, `Column widths must be at least ${MIN_COLUMN_WIDTH} px`)
  .max(MAX_COLUMN_WIDTH, `Column widths must be at most ${MAX_COLUMN_WIDTH} px`);

const isColumn = (key: string): key is StatsColumn => (STATS_COLUMNS as readonly string[]).includes(key);

/** PUT /api/user/preferences: the whole preference, replaced. An empty visibleColumns shows every column. */
export const statsPreferencesSchema = z.strictObject(
  {
    visibleColumns: z
      .array(columnKey, { error: "visibleColumns must be a list of column keys" })
      .max(MAX_PREFERENCE_ENTRIES, `visibleColumns can list at most ${MAX_PREFERENCE_ENTRIES} columns`)
      .refine((cols) => new Set(cols).size === cols.length, "visibleColumns lists a column twice"),
    columnWidths: z
      .record(z.string(), columnWidth, { error: "columnWidths must be an object of column key to width" })
      .superRefine((widths, ctx) => {
        const keys = Object.keys(widths);
        if (keys.length > MAX_PREFERENCE_ENTRIES) {
          ctx.addIssue({ code: "custom", message: `columnWidths can hold at most ${MAX_PREFERENCE_ENTRIES} columns` });
        }
        for (const key of keys.filter((k) => !isColumn(k))) {
          ctx.addIssue({ code: "custom", path: [key], message: `Unknown column "${key}"; known columns: ${STATS_COLUMNS.join(", ")}` });
        }
      })
      .transform((widths) => widths as Partial<Record<StatsColumn, number>>),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `Unknown field: ${issue.keys.join(", ")} (send visibleColumns and columnWidths)`
        : "The preferences must be an object with visibleColumns and columnWidths",
  },
);
export type StatsPreferencesInput = z.input<typeof statsPreferencesSchema>;

export interface StatsPreferences {
  visibleColumns: StatsColumn[];
  columnWidths: Partial<Record<StatsColumn, number>>;
}
