import { takeStaleSends, unclaimedPostbacks } from "../db/queries/tiktok-events";
import { syncDays } from "../sync/config";
import { enqueueSends, produceSends, reconsiderUnconfigured } from "../tiktok-events/produce";
import type { Job } from "./index";

/**
 * A `queued` row untouched this long is nobody's: its enqueue failed or its message was lost.
 * Longer than the longest retry delay (30 minutes), so a row waiting for its retry is left alone.
 */
export const STALE_SEND_MS = 45 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back the sweep looks for postbacks no producer claimed. */
export const POSTBACK_LOOKBACK_MS = 2 * DAY_MS;

/**
 * The backstop that makes "nothing lost" hold when a producer or consumer is cut off: claims the
 * postback conversions nobody claimed, decides again the conversions skipped while sending was
 * not configured (as far back as the daily pull re-pulls, SYNC_DAILY_DAYS), and enqueues again
 * the rows nobody is looking after. A row enqueued twice is still sent once (the consumer leases
 * before sending).
 */
export const sweepTikTokEventsJob: Job = {
  name: "tiktok-events-sweep",
  async run({ db, env, now }) {
    const missed = await unclaimedPostbacks(db, now - POSTBACK_LOOKBACK_MS);
    if (missed.length) await produceSends(db, env, missed, now);
    const reconsidered = await reconsiderUnconfigured(db, env, now - syncDays(env).daily * DAY_MS, now);
    if (reconsidered.claimed) console.log(`tiktok-events-sweep: ${reconsidered.claimed} conversions skipped as not configured are sent now`);
    const stale = await takeStaleSends(db, now, STALE_SEND_MS);
    await enqueueSends(env.TIKTOK_EVENTS_QUEUE, stale);
    if (stale.length) console.log(`tiktok-events-sweep: enqueued ${stale.length} rows again`);
  },
};
