import type { ReportRow, ReportTotals } from "./api";
import { MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, STATS_COLUMNS, type StatsColumn } from "../../../../worker/src/schemas/stats";
import { count, money, money3, orDash, percent, roas, roi } from "./format";

/** The stats table's column keys, as GET/PUT /api/user/preferences stores them. */
export const COLUMN_KEYS = STATS_COLUMNS;
export type ColumnKey = StatsColumn;
export type MetricKey = Exclude<ColumnKey, "name">;

export interface Column {
  key: ColumnKey;
  /** The header, worded as the product's table (docs/screens.md §2). */
  label: string;
  /** The header's full name: read aloud for the column, shown on hover and in the column chooser. */
  description: string;
  /** docs/screens.md §2: Link Clicks, Exit Clicks and Lander CTR are not sortable. */
  sortable: boolean;
  /** Only in campaign grouping (our own clicks and exits). */
  campaignOnly: boolean;
  /** Pixels before anyone resizes it. */
  defaultWidth: number;
  cell(row: ReportRow | ReportTotals): string;
}

const metric = (key: MetricKey, label: string, description: string, cell: Column["cell"], extra: Partial<Column> = {}): Column => ({
  key,
  label,
  description,
  sortable: true,
  campaignOnly: false,
  defaultWidth: 104,
  cell,
  ...extra,
});

export const COLUMNS: Column[] = [
  { key: "name", label: "Name", description: "Name", sortable: true, campaignOnly: false, defaultWidth: 220, cell: (r) => ("name" in r ? r.name : "TOTALS") },
  metric("visits", "Visits", "Visits", (r) => count(r.visits), { defaultWidth: 92 }),
  metric("conversions", "Conv", "Conversions", (r) => count(r.conversions), { defaultWidth: 92 }),
  metric("revenue", "Revenue", "Revenue", (r) => money(r.revenue), { defaultWidth: 112 }),
  metric("spend", "Cost", "Cost (ad spend)", (r) => money(r.spend), { defaultWidth: 104 }),
  metric("profit", "Profit", "Profit (revenue minus cost)", (r) => money(r.profit), { defaultWidth: 112 }),
  metric("roi", "ROI", "ROI (return on investment)", (r) => roi(r.roi), { defaultWidth: 92 }),
  metric("roas", "ROAS", "ROAS (return on ad spend)", (r) => roas(r.roas), { defaultWidth: 92 }),
  metric("cr", "vCR", "vCR (conversion rate per visit)", (r) => percent(r.cr), { defaultWidth: 92 }),
  metric("epv", "EPV", "EPV (earnings per visit)", (r) => money3(r.epv), { defaultWidth: 92 }),
  metric("cpv", "CPV", "CPV (cost per visit)", (r) => money3(r.cpv), { defaultWidth: 92 }),
  metric("linkClicks", "Link Clicks", "Link Clicks (clicks on our tracking link)", (r) => orDash(r.linkClicks, count), {
    sortable: false,
    campaignOnly: true,
  }),
  metric("exitClicks", "Exit Clicks", "Exit Clicks (visitors sent on to the offer)", (r) => orDash(r.exitClicks, count), {
    sortable: false,
    campaignOnly: true,
  }),
  metric("landerCtr", "Lander CTR", "Lander CTR (exit clicks / link clicks)", (r) => orDash(r.landerCtr, percent), {
    sortable: false,
    campaignOnly: true,
  }),
  metric("botShare", "Bot Share", "Bot Share (bot-flagged clicks / all our clicks)", (r) => orDash(r.botShare, percent), {
    sortable: false,
    campaignOnly: true,
  }),
];

export const MIN_WIDTH = MIN_COLUMN_WIDTH;
export const MAX_WIDTH = MAX_COLUMN_WIDTH;
export const clampWidth = (px: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, px)));

/** The value a column sorts by (money as its decimal text: the sort compares it as a number). */
export const sortValue = (row: ReportRow, key: ColumnKey): unknown => row[key];

/**
 * The columns on screen: the user's choice (empty = all, as stored), Name always, and the
 * campaign-only ones only in campaign grouping.
 */
export function visibleColumns(chosen: readonly string[], campaignGrouping: boolean): Column[] {
  const all = chosen.length === 0;
  return COLUMNS.filter((c) => (c.key === "name" || all || chosen.includes(c.key)) && (campaignGrouping || !c.campaignOnly));
}
