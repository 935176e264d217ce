import type { Bindings, Db } from "../env";
import { clickRetentionJob } from "./click-retention";
import { createDb } from "../middleware/database";
import { finishDomainsJob } from "./finish-domains";
import { purgeOldAuditEntries } from "./purge-audit";
import { purgeOldCodes } from "./purge-codes";
import { purgeExpiredSessions } from "./purge-sessions";
import { purgeAbandonedStatementImports } from "./purge-statement-imports";
import { rollUpClicksJob } from "./roll-up-clicks";
import { purgeSyncRunsJob, syncCakeJob, syncTikTokJob } from "./sync-data-sources";
import { sweepTikTokEventsJob } from "./tiktok-events";

/** A unit of cron work. Each job runs on its own: one failing never stops the others. */
export interface Job {
  name: string;
  run(ctx: { db: Db; env: Bindings; now: number }): Promise<void>;
}

/** Every job the cron runs, in order. Later features add theirs here. */
export const JOBS: Job[] = [
  purgeExpiredSessions,
  purgeOldCodes,
  syncCakeJob,
  syncTikTokJob,
  purgeSyncRunsJob,
  rollUpClicksJob,
  finishDomainsJob,
  sweepTikTokEventsJob,
  purgeOldAuditEntries,
  clickRetentionJob,
  purgeAbandonedStatementImports,
];

export async function runScheduled(env: Bindings, now = Date.now()) {
  const db = createDb(env.DB);
  const results = await Promise.allSettled(JOBS.map((job) => job.run({ db, env, now })));
  results.forEach((result, i) => {
    if (result.status === "rejected") console.error(`scheduled job ${JOBS[i]!.name} failed`, result.reason);
  });
  return results;
}
