import { clicksRetention } from "../retention/config";
import { purgeAttributedClicks } from "../tracking/attributed-clicks";
import { fixShardDays, shardsPerDay } from "../tracking/shard-days";
import type { Job } from "./index";

/**
 * Fixes today's and tomorrow's shard count from CLICK_SHARDS_PER_DAY (tracking/shard-days.ts): run
 * every 15 minutes, so tomorrow's is set a day ahead and today's within a run of the setting
 * being turned on. 0 (the default) fixes none: clicks stay in D1. Then deletes the copies D1 keeps
 * of shard-day clicks CAKE reported (tracking/attributed-clicks.ts) once their day is past the
 * kept days, 5,000 a run.
 */
export const shardDaysJob: Job = {
  name: "shard-days",
  async run({ db, env, now }) {
    const { shards, problem } = shardsPerDay(env.CLICK_SHARDS_PER_DAY);
    if (problem) console.warn(`shard-days: ${problem}`);
    const fixed = await fixShardDays(db, shards, now);
    if (fixed.length) console.log(`shard-days: days ${fixed.join(", ")} spread their clicks over ${shards} shard-day objects`);
    await purgeAttributedClicks(db, clicksRetention(env.CLICKS_RETENTION_DAYS).days, now);
  },
};
