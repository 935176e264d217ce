import { z } from "zod";

/** Year, month and day as `YYYY-MM-DD`, or null when they name no real day (2025-02-30). */
export function realDay(y: number, m: number, d: number): string | null {
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day: the difference of two is the days between them. */
export const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The day `days` calendar days after `date` (before, when negative). */
export const shiftDay = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Whether `YYYY-MM-DD` names a real day (2025-02-30 does not). */
export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m !== null && realDay(Number(m[1]), Number(m[2]), Number(m[3])) !== null;
}

/** A calendar date as the API speaks it (docs/product-rules.md: `YYYY-MM-DD` text). */
export const calendarDate = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, { message: `${label} is required`, abort: true })
    .refine(isRealDate, `${label} must be a real date written YYYY-MM-DD`);
