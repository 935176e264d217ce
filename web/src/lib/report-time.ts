import { useMemo } from "react";
import { useReportTimeZone } from "./report-days";

/**
 * Instants (a click, an audit entry, a code's arrival) as the clock reads them in the report time
 * zone, the zone the days of every range are counted in
 * (docs/product-rules.md "Data conventions"): a click listed under "Nov 19 – Nov 25" reads as a
 * time of those days, wherever the browser is. Screens name the zone beside the times (a column
 * header, a tooltip).
 */

/**
 * The clock of `timeZone` at `iso`, in parts. One formatter per zone, kept: a list shows an
 * instant per row, and making a zoned date and formatting it for each took about a third of the
 * Click Log's first render in a profiling build of React
 * (docs/screens.md "The web app: state in the URL, days and speed").
 */
const clocks = new Map<string, Intl.DateTimeFormat>();
function clockParts(iso: string, timeZone: string) {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat("en-US", {
      timeZone,
      month: "short",
      day: "2-digit",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    clocks.set(timeZone, clock);
  }
  const parts = { month: "", day: "", year: "", hour: "", minute: "", second: "" };
  for (const { type, value } of clock.formatToParts(Date.parse(iso))) if (type in parts) parts[type as keyof typeof parts] = value;
  return parts;
}

/** "Nov 26, 2026 00:23:05": the instant `iso` on the clock of `timeZone`. */
export const formatInstant = (iso: string, timeZone: string) => {
  const p = clockParts(iso, timeZone);
  return `${p.month} ${p.day}, ${p.year} ${p.hour}:${p.minute}:${p.second}`;
};

/** "Nov 26, 2026": the day the instant `iso` falls on in `timeZone`. */
export const formatInstantDay = (iso: string, timeZone: string) => {
  const p = clockParts(iso, timeZone);
  return `${p.month} ${p.day}, ${p.year}`;
};

/** "Nov 26, 2026 00:23:05 (Asia/Manila)": an instant with its zone named, for tooltips and sentences. */
export const formatInstantNamed = (iso: string, timeZone: string) => `${formatInstant(iso, timeZone)} (${timeZone})`;

/** The report time zone and its formatters (the browser's zone stands in until the API answers). */
export function useReportTime() {
  const timeZone = useReportTimeZone();
  return useMemo(
    () => ({
      timeZone,
      dateTime: (iso: string) => formatInstant(iso, timeZone),
      day: (iso: string) => formatInstantDay(iso, timeZone),
      named: (iso: string) => formatInstantNamed(iso, timeZone),
    }),
    [timeZone],
  );
}
