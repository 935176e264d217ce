import { TZDate } from "@date-fns/tz";
import { format } from "date-fns";
import { useReportDays } from "./report-days";

/**
 * Instants (a click, an audit entry, a code's arrival) as the clock reads them in the report time
 * zone, the zone the days of every range are counted in
 * (docs/product-rules.md "Data conventions"): a click listed under "Nov 19 – Nov 25" reads as a
 * time of those days, wherever the browser is. Screens name the zone beside the times (a column
 * header, a tooltip).
 */

/** "Nov 26, 2026 00:23:05": the instant `iso` on the clock of `timeZone`. */
export const formatInstant = (iso: string, timeZone: string) => format(new TZDate(Date.parse(iso), timeZone), "MMM dd, yyyy HH:mm:ss");

/** "Nov 26, 2026": the day the instant `iso` falls on in `timeZone`. */
export const formatInstantDay = (iso: string, timeZone: string) => format(new TZDate(Date.parse(iso), timeZone), "MMM dd, yyyy");

/** "Nov 26, 2026 00:23:05 (Asia/Manila)": an instant with its zone named, for tooltips and sentences. */
export const formatInstantNamed = (iso: string, timeZone: string) => `${formatInstant(iso, timeZone)} (${timeZone})`;

/** The report time zone and its formatters (the browser's zone stands in until the API answers). */
export function useReportTime() {
  const { timeZone } = useReportDays();
  return {
    timeZone,
    dateTime: (iso: string) => formatInstant(iso, timeZone),
    day: (iso: string) => formatInstantDay(iso, timeZone),
    named: (iso: string) => formatInstantNamed(iso, timeZone),
  };
}
