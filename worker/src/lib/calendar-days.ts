/**
 * Calendar days, the Worker's one set of helpers for them. A day is `YYYY-MM-DD` text; which day an
 * instant falls on depends on an IANA time zone (the report time zone for our clicks, CAKE's zone
 * for its rows), with daylight saving, read through @date-fns/tz, the same library the web's date
 * pickers count days with.
 *
 * - days as text: `dayIn`, `shiftDay`, `splitDays` (long ranges cut into what an API accepts),
 *   `dayNumber` (schemas/calendar-date.ts);
 * - a zone's days as instants: `dayStartMs`, `zoneDayRange`, `wallTimeToInstant`;
 * - inside SQL, where SQLite knows no time zones: the zone's UTC offsets over a stretch of time
 *   (`offsetSpans`) handed to SQL as a CASE over the offset changes (`localDaySql`): the day is the
 *   UTC date of `instant + offset`. A stretch of weeks has one to three offsets, so the expression
 *   stays tiny and the day is computed per row without a join.
 */
import { tzOffset } from "@date-fns/tz";
import { sql, type SQL } from "drizzle-orm";

import { dayNumber, shiftDay } from "../schemas/calendar-date";

export { dayNumber, shiftDay };

export const DAY_MS = 86_400_000;

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds (@date-fns/tz). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const minutes = tzOffset(timeZone, new Date(ms));
  if (!Number.isFinite(minutes)) throw new RangeError(`Unknown time zone: ${timeZone}`);
  return minutes * 60_000;
}

/** The calendar day of an instant in an IANA time zone. */
export const dayIn = (ms: number, timeZone: string): string => new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 10);

/** Calendar days start..end (inclusive), in consecutive pieces of at most `maxDays` days. */
export function splitDays(start: string, end: string, maxDays: number): { start: string; end: string }[] {
  const pieces: { start: string; end: string }[] = [];
  for (let from = start; from <= end; from = shiftDay(from, maxDays)) {
    const last = shiftDay(from, maxDays - 1);
    pieces.push({ start: from, end: last < end ? last : end });
  }
  return pieces;
}

/** The instant a zone's wall clock reads `wallMs` (a wall time written as if it were UTC). */
export function wallTimeToInstant(wallMs: number, timeZone: string): number {
  const guess = wallMs - zoneOffsetMs(wallMs, timeZone);
  return wallMs - zoneOffsetMs(guess, timeZone);
}

/** One stretch of constant offset: instants before `untilMs` (null: all later ones) use `offsetMs`. */
export interface OffsetSpan {
  untilMs: number | null;
  offsetMs: number;
}

/**
 * Offsets never change twice within this step (zones change at most a few times a year), so
 * sampling at it and bisecting where two samples differ finds every change.
 */
const SAMPLE_MS = 12 * 60 * 60 * 1000;

/** The zone's offsets over [fromMs, toMs], in order; the last span is open-ended. */
export function offsetSpans(fromMs: number, toMs: number, timeZone: string): OffsetSpan[] {
  const spans: OffsetSpan[] = [];
  let at = fromMs;
  let offset = zoneOffsetMs(at, timeZone);
  while (at < toMs) {
    const next = Math.min(at + SAMPLE_MS, toMs);
    const nextOffset = zoneOffsetMs(next, timeZone);
    if (nextOffset !== offset) {
      // The change lies in (at, next]: bisect to the first millisecond with the new offset.
      let lo = at;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (zoneOffsetMs(mid, timeZone) === offset) lo = mid;
        else hi = mid;
      }
      spans.push({ untilMs: hi, offsetMs: offset });
      offset = zoneOffsetMs(hi, timeZone);
      at = hi;
      continue;
    }
    at = next;
  }
  spans.push({ untilMs: null, offsetMs: offset });
  return spans;
}

/**
 * SQL for the `YYYY-MM-DD` day of an epoch-millisecond column in the zone, correct for instants
 * inside the stretch the spans were computed for. The numbers are ours (not user input), so they
 * are written into the statement rather than bound: D1 allows only 100 parameters.
 */
export function localDaySql(column: SQL, spans: OffsetSpan[]): SQL {
  const literal = (n: number) => sql.raw(String(Math.trunc(n)));
  const last = spans[spans.length - 1];
  if (!last) throw new Error("localDaySql needs at least one offset span");
  const changes = spans.slice(0, -1).map((s) => sql`when ${column} < ${literal(s.untilMs ?? 0)} then ${literal(s.offsetMs)}`);
  const offset = changes.length ? sql`case ${sql.join(changes, sql.raw(" "))} else ${literal(last.offsetMs)} end` : literal(last.offsetMs);
  return sql`date((${column} + ${offset}) / 1000, 'unixepoch')`;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The first instant of a calendar day in the zone: local midnight, or where daylight saving
 * skips midnight the first moment that exists. Found by bisection over the instants whose local
 * day could be it (zones are at most 14 hours from UTC), so no offset arithmetic can miss a
 * skipped or doubled hour.
 */
export function dayStartMs(date: string, timeZone: string): number {
  const midnight = Date.parse(`${date}T00:00:00Z`);
  let lo = midnight - 15 * HOUR_MS;
  let hi = midnight + 15 * HOUR_MS;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (dayIn(mid, timeZone) >= date) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The instants of days startDate..endDate (both included) in the zone: startMs <= t < endMs. */
export const zoneDayRange = (startDate: string, endDate: string, timeZone: string) => ({
  startMs: dayStartMs(startDate, timeZone),
  endMs: dayStartMs(shiftDay(endDate, 1), timeZone),
});
