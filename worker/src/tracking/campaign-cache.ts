import { findTrackedCampaign, type TrackedCampaign } from "../db/queries/campaigns";
import type { Db } from "../env";

/**
 * The isolate's memory of campaigns for /r/ and /click, so a burst of ad traffic costs one D1 read
 * per campaign rather than one per visitor. Writes through this isolate clear it at once
 * (`invalidateTrackedCampaigns`); other isolates pick a change up within the TTL.
 */
export const CAMPAIGN_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 2_000;

// Unknown ids are remembered too (value null), so a bot walking ids does not reach D1 each time.
const entries = new Map<number, { value: TrackedCampaign | null; expiresAt: number }>();
// Bumped by every invalidation: a lookup that started before it must not store what it read.
let generation = 0;

export async function trackedCampaign(db: Db, id: number, now = Date.now()): Promise<TrackedCampaign | null> {
  const hit = entries.get(id);
  if (hit && hit.expiresAt > now) return hit.value;
  const startedIn = generation;
  const value = await findTrackedCampaign(db, id);
  if (startedIn === generation) {
    entries.delete(id);
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(id, { value, expiresAt: now + CAMPAIGN_CACHE_TTL_MS });
  }
  return value;
}

/** Call after any write to campaigns, landers or offers, and after a spark is deleted. */
export function invalidateTrackedCampaigns() {
  generation++;
  entries.clear();
}
