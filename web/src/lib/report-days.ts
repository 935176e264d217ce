import { TZDate } from "@date-fns/tz";
import { useQuery } from "@tanstack/react-query";
import { format } from "date-fns";
import { fromDay } from "./date-ranges";
import { reportTimeZoneQuery } from "./report-zone-query";

/**
 * The report time zone (Settings → Report Time Zone) as every screen needs it: the server counts
 * a day's clicks, revenue and spend in that zone, so "Today", "Yesterday", "Last 7 days" and the
 * months of the date pickers are days of that zone too, wherever the browser is. A buyer in Manila
 * and an admin in New York pick the same days for the same words.
 */
export { reportTimeZoneQuery };

/** The calendar day (YYYY-MM-DD) an instant falls on in an IANA time zone. */
export const dayInZone = (at: Date | number, timeZone: string) => format(new TZDate(+at, timeZone), "yyyy-MM-dd");

export interface ReportDays {
  /** The IANA zone, once known (the browser's own until the API answers). */
  timeZone: string;
  /** Whether `timeZone` is the report's (the API answered) rather than the browser's stand-in. */
  known: boolean;
  /** Today in that zone, as a local-midnight Date for calendar arithmetic (date-fns). */
  today: Date;
  /** Today in that zone, YYYY-MM-DD. */
  todayDay: string;
}

let browserZoneName: string | undefined;
const browserZone = () => (browserZoneName ??= Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");

/** The report time zone's days, computed at `now`. */
export function reportDaysAt(timeZone: string, known: boolean, now: Date | number = Date.now()): ReportDays {
  const todayDay = dayInZone(now, timeZone);
  return { timeZone, known, today: fromDay(todayDay), todayDay };
}

export function useReportDays(): ReportDays {
  const zone = useQuery(reportTimeZoneQuery);
  return reportDaysAt(zone.data?.timeZone ?? browserZone(), zone.data !== undefined);
}

const zoneOf = (data: { timeZone: string }) => data.timeZone;

/**
 * The report time zone alone (the browser's until the API answers), for what shows instants rather
 * than days: no today to work out, so a list can call it once per row.
 */
export function useReportTimeZone(): string {
  const zone = useQuery({ ...reportTimeZoneQuery, select: zoneOf });
  return zone.data ?? browserZone();
}
