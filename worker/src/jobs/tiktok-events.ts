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
 * before sending). Each part runs whatever the others do: a claim reads its click from a
 * shard-day object (tiktok-events/produce.ts), and one object failing must not hold back the
 * rows already claimed. The job fails with the first part's error.
 */
export const sweepTikTokEventsJob: Job = {
  name: "tiktok-events-sweep",
  async run({ db, env, now }) {
    const failures: unknown[] = [];
    const part = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        console.error(`tiktok-events-sweep: ${name} failed`, err);
        failures.push(err);
      }
    };
    await part("claiming unclaimed postbacks", async () => {
      const missed = await unclaimedPostbacks(db, now - POSTBACK_LOOKBACK_MS);
      if (missed.length) await produceSends(db, env, missed, now);
    });
    await part("deciding again what was not configured", async () => {
      const reconsidered = await reconsiderUnconfigured(db, env, now - syncDays(env).daily * DAY_MS, now);
      if (reconsidered.claimed) console.log(`tiktok-events-sweep: ${reconsidered.claimed} conversions skipped as not configured are sent now`);
    });
    await part("enqueueing stale rows again", async () => {
      const stale = await takeStaleSends(db, now, STALE_SEND_MS);
      await enqueueSends(env.TIKTOK_EVENTS_QUEUE, stale);
      if (stale.length) console.log(`tiktok-events-sweep: enqueued ${stale.length} rows again`);
    });
    if (failures.length) throw failures[0];
  },
};
