import { findTrackedCampaign, highestCampaignId } from "../db/queries/campaigns";
import type { Db } from "../env";
import { liveCampaign, type LiveCampaign } from "./distribution";

/**
 * The isolate's memory of campaigns for /r/ and /click, so a burst of ad traffic costs one D1 read
 * per campaign rather than one per visitor, and a flood of made-up ids costs next to none
 * (docs/tracking.md "What the public routes do"). A campaign's paths come in the same read, compiled
 * (tracking/distribution.ts), so rules cost no D1 read per click. Writes through this isolate clear it at once
 * (`invalidateTrackedCampaigns`); other isolates pick a change up within the TTL.
 */
export const CAMPAIGN_CACHE_TTL_MS = 30_000;
/** Campaigns found. Only real campaigns get in, so a flood of unknown ids never pushes one out. */
const MAX_CAMPAIGNS = 2_000;
/** Ids found to be no campaign, each remembered for the TTL, kept apart from the campaigns found. */
const MAX_MISSES = 10_000;
/**
 * An id more than this far above the highest campaign id (read at most once per TTL) is answered
 * as unknown without asking D1: campaign ids are handed out in order, so a campaign created
 * elsewhere since that read is above it by at most the number created, never by 1,000 in 30 s.
 */
export const CEILING_SLACK = 1_000;
/**
 * While D1 fails (an outage, shed load), a campaign this isolate read within this long is still
 * answered from memory, so ad traffic keeps reaching landers and offers and its clicks wait in the
 * clicks queue until D1 is back (click-queue.ts). Nothing can be edited while D1 is down, so what is held is what
 * D1 last said; past this age the request fails rather than send visitors somewhere long stale.
 */
export const STALE_IF_ERROR_MS = 60 * 60_000;
/** Meanwhile D1 is asked again at most this often per campaign, not on every visit. */
const STALE_RETRY_MS = 5_000;

/**
 * `readAt`: when D1 last gave it. `stale`: answered from memory since D1 then failed to read it
 * (logged once, not per visitor).
 */
const campaigns = new Map<number, { value: LiveCampaign; readAt: number; expiresAt: number; stale?: boolean }>();
const misses = new Map<number, number>();
let ceiling: number | null = null;
let ceilingReadAt = -Infinity;
// Bumped by every invalidation: a lookup that started before it must not store what it read.
let generation = 0;

/** A lookup the per-address limit refused (tracking/rate-limit.ts): whether the campaign exists is not known. */
export const LOOKUP_REFUSED = "lookup-refused";
export type CampaignLookup = LiveCampaign | null | typeof LOOKUP_REFUSED;

function remember<V>(map: Map<number, V>, max: number, id: number, value: V) {
  map.delete(id);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(id, value);
}

/**
 * Whether `id` is too far above every campaign to be one. The highest id is read when an id is
 * above it and the last read is older than the TTL; the request that reads it claims the read
 * first, so a flood costs one read per isolate and TTL (never a request waiting on another's).
 */
async function farAboveEveryCampaign(db: Db, id: number, now: number): Promise<boolean> {
  if (ceiling !== null && id <= ceiling + CEILING_SLACK) return false;
  if (now - ceilingReadAt >= CAMPAIGN_CACHE_TTL_MS) {
    ceilingReadAt = now;
    try {
      ceiling = await highestCampaignId(db);
    } catch (err) {
      console.error("highest campaign id not read; looking the campaign up instead", err);
      return false;
    }
  }
  return ceiling !== null && id > ceiling + CEILING_SLACK;
}

/**
 * The campaign `id` for a tracking request: from memory, else from D1 if `mayLookUp` agrees (the
 * per-address limit; asked only when D1 would be). Null: no such campaign.
 */
export async function trackedCampaign(db: Db, id: number, mayLookUp: () => Promise<boolean>, now = Date.now()): Promise<CampaignLookup> {
  const hit = campaigns.get(id);
  if (hit && hit.expiresAt > now) return hit.value;
  const miss = misses.get(id);
  if (miss !== undefined && miss > now) return null;
  if (await farAboveEveryCampaign(db, id, now)) return null;
  if (!(await mayLookUp())) return LOOKUP_REFUSED;
  const startedIn = generation;
  let value: LiveCampaign | null;
  try {
    // Compiled here, once per read: /r/ runs the compiled rules, never the stored ones.
    const found = await findTrackedCampaign(db, id);
    value = found && liveCampaign(found);
  } catch (err) {
    if (hit && now - hit.readAt < STALE_IF_ERROR_MS) {
      if (!hit.stale) console.warn(`campaign ${id} answered from memory: D1 failed to read it (${err instanceof Error ? err.message : String(err)})`);
      hit.stale = true;
      hit.expiresAt = Math.min(now + STALE_RETRY_MS, hit.readAt + STALE_IF_ERROR_MS);
      return hit.value;
    }
    throw err;
  }
  if (startedIn === generation) {
    const expiresAt = now + CAMPAIGN_CACHE_TTL_MS;
    if (value) {
      misses.delete(id);
      remember(campaigns, MAX_CAMPAIGNS, id, { value, readAt: now, expiresAt });
    } else {
      campaigns.delete(id);
      remember(misses, MAX_MISSES, id, expiresAt);
    }
  }
  return value;
}

/** Call after any write to campaigns, their paths, landers or offers, and after a spark is deleted. */
export function invalidateTrackedCampaigns() {
  generation++;
  campaigns.clear();
  misses.clear();
  ceiling = null;
  ceilingReadAt = -Infinity;
}
