import { clicksRetention } from "../retention/config";
import { purgeAttributedClicks } from "../tracking/attributed-clicks";
import { clickDayOf } from "../tracking/click-id";
import { carryMoveOn } from "../tracking/click-move";
import { fixShardDays, shardCounts, shardsPerDay } from "../tracking/shard-days";
import type { Job } from "./index";

/**
 * Fixes today's and tomorrow's shard count from CLICK_SHARDS_PER_DAY (tracking/shard-days.ts): run
 * every 15 minutes, so tomorrow's is set a day ahead and today's within a run of the setting
 * being turned on. 0 (the default) fixes none: clicks stay in D1. Once today has a count, the
 * clicks D1 still holds are moved into the legacy objects (tracking/click-move.ts): this starts
 * the move's run whenever some are left to move and none is going. Then deletes the copies D1 keeps
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
    const todayHasShards = ((await shardCounts(db, now)).get(clickDayOf(now)) ?? 0) > 0;
    const run = await carryMoveOn(db, env, { now, todayHasShards });
    if (run) console.log(`shard-days: the move of D1's clicks carries on in run ${run}`);
    await purgeAttributedClicks(db, clicksRetention(env.CLICKS_RETENTION_DAYS).days, now);
  },
};
