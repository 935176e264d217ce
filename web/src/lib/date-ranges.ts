import { endOfMonth, format, startOfMonth, subDays, subMonths } from "date-fns";

/** A calendar-day range as the API speaks it: YYYY-MM-DD, both ends inclusive. */
export interface DayRange {
  startDate: string;
  endDate: string;
}

export const toDay = (d: Date) => format(d, "yyyy-MM-dd");
export const fromDay = (s: string) => {
  const [y, m, d] = s.split("-").map(Number);
  return new Date(y!, m! - 1, d!);
};

export interface QuickRange {
  label: string;
  range(today: Date): DayRange;
}

const span = (from: Date, to: Date): DayRange => ({ startDate: toDay(from), endDate: toDay(to) });
const lastDays = (n: number) => (today: Date) => span(subDays(today, n - 1), today);

/** The picker's quick ranges (docs/screens.md §2), in order. "Last N days" ends today and includes it. */
export const QUICK_RANGES: QuickRange[] = [
  { label: "Today", range: (t) => span(t, t) },
  { label: "Yesterday", range: (t) => span(subDays(t, 1), subDays(t, 1)) },
  { label: "Last 3 days", range: lastDays(3) },
  { label: "Last 7 days", range: lastDays(7) },
  { label: "Last 14 days", range: lastDays(14) },
  { label: "Last 30 days", range: lastDays(30) },
  { label: "This month", range: (t) => span(startOfMonth(t), t) },
  { label: "Last month", range: (t) => span(startOfMonth(subMonths(t, 1)), endOfMonth(subMonths(t, 1))) },
  { label: "Last 90 days", range: lastDays(90) },
  { label: "Last 6 months", range: (t) => span(subMonths(t, 6), t) },
];

export const rangeLabel = ({ startDate, endDate }: DayRange) => {
  const f = (s: string) => format(fromDay(s), "MMM d, yyyy");
  return startDate === endDate ? f(startDate) : `${f(startDate)} – ${f(endDate)}`;
};
