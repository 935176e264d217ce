import { z } from "zod";

/** Whether `YYYY-MM-DD` names a real day (2025-02-30 does not). */
export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** A calendar date as the API speaks it (decisions.md: `YYYY-MM-DD` text). */
export const calendarDate = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, { message: `${label} is required`, abort: true })
    .refine(isRealDate, `${label} must be a real date written YYYY-MM-DD`);
