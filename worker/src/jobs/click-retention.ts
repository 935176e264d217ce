import { clicksRetention } from "../retention/config";
import { runRetention } from "../retention/run-retention";
import type { Job } from "./index";

/**
 * Raw clicks older than CLICKS_RETENTION_DAYS: archived to R2, then deleted, by the archive
 * Workflow (retention/workflow.ts). The cron only ends the runs that are over and starts the next
 * (retention/run-retention.ts): a few D1 reads, whatever the size of the day. It also moves the
 * conversions of archived days, once 35 days old, to R2 a chunk at a time
 * (retention/conversions.ts): at most 10 chunks of 20,000 conversions a run.
 */
export const clickRetentionJob: Job = {
  name: "click-retention",
  async run({ db, env, now }) {
    const retention = clicksRetention(env.CLICKS_RETENTION_DAYS);
    if (retention.problem) console.warn(`click-retention: ${retention.problem}`);
    const tick = await runRetention(db, env, { now, days: retention.days });
    for (const e of tick.ended) console.log(`click-retention: run ${e.instance} ended: ${e.outcome}`);
    for (const a of tick.aborted) console.log(`click-retention: aborted the upload run ${a} left`);
    if (tick.started) console.log(`click-retention: started run ${tick.started} for ${tick.day}`);
    if (tick.waiting) console.log(`click-retention: ${tick.waiting}`);
    for (const a of tick.conversions.archived) {
      console.log(`click-retention: ${a.conversions} conversions of ${a.date} (${a.sends} TikTok sends) archived as chunk ${a.chunk}`);
    }
    if (tick.conversions.waiting) console.log(`click-retention: conversions: ${tick.conversions.waiting}`);
  },
};
