/**
 * Calendar days (`YYYY-MM-DD`) as the syncs need them: which day an instant falls on in a time
 * zone, days before and after a day, and long ranges cut into the pieces an API accepts.
 */

const DAY_MS = 86_400_000;
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of an instant in an IANA time zone. */
export function dayIn(ms: number, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    dayFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year").padStart(4, "0")}-${part("month")}-${part("day")}`;
}

/** The day `days` calendar days after `date` (before, when negative). */
export const shiftDay = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Calendar days start..end (inclusive), in consecutive pieces of at most `maxDays` days. */
export function splitDays(start: string, end: string, maxDays: number): { start: string; end: string }[] {
  const pieces: { start: string; end: string }[] = [];
  for (let from = start; from <= end; from = shiftDay(from, maxDays)) {
    const last = shiftDay(from, maxDays - 1);
    pieces.push({ start: from, end: last < end ? last : end });
  }
  return pieces;
}
