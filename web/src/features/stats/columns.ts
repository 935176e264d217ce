import type { ReportRow, ReportTotals } from "./api";
import { MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, STATS_COLUMNS, type StatsColumn } from "../../../../worker/src/schemas/stats";
import { count, money, money3, percent, roas, roi } from "./format";

/** The stats table's column keys, as GET/PUT /api/user/preferences stores them. */
export const COLUMN_KEYS = STATS_COLUMNS;
export type ColumnKey = StatsColumn;
export type MetricKey = Exclude<ColumnKey, "name">;

/**
 * How a column's figure is written: on screen (with $, %, x and thousands separators) and in the
 * CSV (a plain number with the same decimals, so a spreadsheet can add it up). One list, so the
 * file and the table cannot drift apart.
 */
type Format = "count" | "money" | "money3" | "roi" | "percent" | "roas";
type Value = number | string | null;

const SHOWN: Record<Format, (v: never) => string> = {
  count: (v: number) => count(v),
  money: (v: string) => money(v),
  money3: (v: string) => money3(v),
  roi: (v: number) => roi(v),
  percent: (v: number) => percent(v),
  roas: (v: number) => roas(v),
};

const PLAIN: Record<Format, (v: never) => string | number> = {
  count: (v: number) => v,
  money: (v: string) => v,
  money3: (v: string) => v,
  roi: (v: number) => v.toFixed(1),
  percent: (v: number) => v.toFixed(2),
  roas: (v: number) => v.toFixed(2),
};

export interface Column {
  key: ColumnKey;
  /** The header, worded as the product's table (docs/screens.md §2); the CSV's header too. */
  label: string;
  /** The header's full name: read aloud for the column, shown on hover and in the column chooser. */
  description: string;
  /** Link Clicks, Exit Clicks, Lander CTR and Bot Share are not sortable (the product's table). */
  sortable: boolean;
  /** Pixels before anyone resizes it. */
  defaultWidth: number;
  /** The figure as the table shows it ("—" where it does not apply). */
  cell(row: ReportRow | ReportTotals): string;
  /** The same figure in the CSV: a plain number with the table's decimals, empty where it does not apply. */
  csv(row: ReportRow | ReportTotals): string | number;
}

const metric = <K extends MetricKey>(
  key: K,
  format: Format,
  label: string,
  description: string,
  extra: Partial<Pick<Column, "sortable" | "defaultWidth">> = {},
): Column => {
  const value = (row: ReportRow | ReportTotals): Value => row[key];
  const write = (table: Record<Format, (v: never) => string | number>, empty: string) => (row: ReportRow | ReportTotals) => {
    const v = value(row);
    return v === null ? empty : table[format](v as never);
  };
  return {
    key,
    label,
    description,
    sortable: true,
    defaultWidth: 104,
    cell: write(SHOWN, "—") as Column["cell"],
    csv: write(PLAIN, ""),
    ...extra,
  };
};

// Wide enough for their uppercase headers ("LINK CLICKS", "LANDER CTR") without an ellipsis.
const ownTraffic = { sortable: false, defaultWidth: 124 };

export const COLUMNS: Column[] = [
  {
    key: "name",
    label: "Name",
    description: "Name",
    sortable: true,
    defaultWidth: 220,
    cell: (r) => ("name" in r ? r.name : "TOTALS"),
    csv: (r) => ("name" in r ? r.name : "TOTALS"),
  },
  metric("visits", "count", "Visits", "Visits", { defaultWidth: 92 }),
  metric("conversions", "count", "Conv", "Conversions", { defaultWidth: 92 }),
  metric("revenue", "money", "Revenue", "Revenue", { defaultWidth: 112 }),
  metric("spend", "money", "Cost", "Cost (ad spend)"),
  metric("profit", "money", "Profit", "Profit (revenue minus cost)", { defaultWidth: 112 }),
  metric("roi", "roi", "ROI", "ROI (return on investment)", { defaultWidth: 92 }),
  metric("roas", "roas", "ROAS", "ROAS (return on ad spend)", { defaultWidth: 92 }),
  metric("cr", "percent", "vCR", "vCR (conversion rate per visit)", { defaultWidth: 92 }),
  metric("epv", "money3", "EPV", "EPV (earnings per visit)", { defaultWidth: 92 }),
  metric("cpv", "money3", "CPV", "CPV (cost per visit)", { defaultWidth: 92 }),
  metric("linkClicks", "count", "Link Clicks", "Link Clicks (clicks on our tracking link)", ownTraffic),
  metric("exitClicks", "count", "Exit Clicks", "Exit Clicks (visitors sent on to the offer)", ownTraffic),
  metric("landerCtr", "percent", "Lander CTR", "Lander CTR (exit clicks / link clicks)", ownTraffic),
  metric("botShare", "percent", "Bot Share", "Bot Share (bot-flagged clicks / all our clicks)", ownTraffic),
];

export const MIN_WIDTH = MIN_COLUMN_WIDTH;
export const MAX_WIDTH = MAX_COLUMN_WIDTH;
export const clampWidth = (px: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, px)));

/** The value a column sorts by (money as its decimal text: the sort compares it as a number). */
export const sortValue = (row: ReportRow, key: ColumnKey): unknown => row[key];

/** A column's header in the table and the CSV: its label; the Name column's is the grouping's name ("Campaign", "Country", ...). */
export const headerOf = (column: Column, nameLabel: string) => (column.key === "name" ? nameLabel : column.label);

/** The columns on screen: the user's choice (empty = all, as stored), Name always. */
export function visibleColumns(chosen: readonly string[]): Column[] {
  const all = chosen.length === 0;
  return COLUMNS.filter((c) => c.key === "name" || all || chosen.includes(c.key));
}
