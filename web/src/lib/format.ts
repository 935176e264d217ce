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

/** "Nov 22, 2026" from an ISO instant or a YYYY-MM-DD date. */
export const formatDate = (value: string) => format(value.length === 10 ? parseISO(value) : new Date(value), "MMM dd, yyyy");

export const formatDateTime = (value: string) => format(new Date(value), "MMM dd, yyyy HH:mm:ss");

export const formatRelative = (value: string) => formatDistanceToNowStrict(new Date(value), { addSuffix: true });
