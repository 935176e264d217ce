import { readSettings } from "../db/queries/settings";
import type { Db } from "../env";
import type { LinkSettings } from "./links";

/**
 * The isolate's memory of the settings `/exit-tracker.js` is built from (the exit domain), so the
 * script every lander page loads costs no D1 read. A save through this isolate clears it
 * (`invalidateTrackingSettings`, routes/settings.ts); other isolates read it again within the TTL.
 * Browsers keep the script for 5 minutes anyway (routes/tracking.ts), so this adds little to how
 * long a changed exit domain takes to reach landers.
 */
export const TRACKING_SETTINGS_TTL_MS = 30_000;

let cached: { value: LinkSettings; expiresAt: number } | null = null;
// Bumped by every invalidation: a read that started before it must not store what it read.
let generation = 0;

export async function trackingSettings(db: Db, now = Date.now()): Promise<LinkSettings> {
  if (cached && cached.expiresAt > now) return cached.value;
  const startedIn = generation;
  const { redirect_domain, global_exit_domain } = await readSettings(db);
  const value = { redirect_domain, global_exit_domain };
  if (startedIn === generation) cached = { value, expiresAt: now + TRACKING_SETTINGS_TTL_MS };
  return value;
}

/** Call after any settings write. */
export function invalidateTrackingSettings() {
  generation++;
  cached = null;
}
