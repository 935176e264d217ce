import { clicksRetention } from "../retention/config";
import { runRetention } from "../retention/run-retention";
import type { Job } from "./index";

/** Raw clicks older than CLICKS_RETENTION_DAYS: archived to R2, then deleted (retention/run-retention.ts). */
export const clickRetentionJob: Job = {
  name: "click-retention",
  async run({ db, env, now }) {
    const retention = clicksRetention(env.CLICKS_RETENTION_DAYS);
    if (retention.problem) console.warn(`click-retention: ${retention.problem}`);
    const run = await runRetention(db, env.ARCHIVE, { now, days: retention.days });
    for (const a of run.archived) console.log(`click-retention: archived ${a.day} (${a.rows} clicks, ${a.bytes} bytes) in ${run.archiveMs} ms`);
    if (run.deleted || run.finished.length) {
      const done = run.finished.length ? `; done with ${run.finished.join(", ")}` : "";
      console.log(`click-retention: deleted ${run.deleted} rows (clicks and their exits) in ${run.deleteMs} ms${done}`);
    }
    if (run.waiting) console.log(`click-retention: ${run.waiting}`);
  },
};
