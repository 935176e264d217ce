import { z } from "zod";

/** How long codes are kept when CODES_RETENTION_HOURS is unset or not a usable number. */
export const DEFAULT_RETENTION_HOURS = 72;

// A year at most: the inbox holds short-lived secrets, and a typo like "7200000" should not keep
// codes for centuries.
const retentionSchema = z.coerce.number().positive().max(24 * 366);

/** CODES_RETENTION_HOURS as a number of hours; invalid values fall back to the default. */
export function retentionHours(value: string | undefined): number {
  const parsed = retentionSchema.safeParse(value?.trim() || undefined);
  return parsed.success ? parsed.data : DEFAULT_RETENTION_HOURS;
}

/**
 * CODES_RECIPIENTS as a set of lower-cased addresses, or null when unset or empty: then every
 * recipient is accepted (local development, where any address can be made up).
 */
export function acceptedRecipients(value: string | undefined): Set<string> | null {
  const list = (value ?? "")
    .split(",")
    .map((a) => a.trim().toLowerCase())
    .filter((a) => a !== "");
  return list.length ? new Set(list) : null;
}
