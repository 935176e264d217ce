import { format, formatDistanceToNowStrict, parseISO } from "date-fns";

const money = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "$1,234.50" from a decimal string or number; a dash for nothing. */
export function formatMoney(value: string | number | null | undefined, decimals = 2): string {
  if (value === null || value === undefined || value === "") return "—";
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n)) return "—";
  const f = decimals === 2 ? money : new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return `${n < 0 ? "-" : ""}$${f.format(Math.abs(n))}`;
}

export const formatNumber = (n: number) => n.toLocaleString("en-US");

export const formatPercent = (n: number, decimals = 2) => `${n.toFixed(decimals)}%`;

/**
 * "Nov 22, 2026" from a calendar day (YYYY-MM-DD: a transaction's, an invoice's). An instant's
 * day depends on the zone: lib/report-time.ts shows instants in the report time zone.
 */
export const formatDate = (day: string) => format(parseISO(day), "MMM dd, yyyy");

export const formatRelative = (value: string) => formatDistanceToNowStrict(new Date(value), { addSuffix: true });
