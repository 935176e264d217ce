import type { Bindings, Db } from "../env";
import { alertDeliverer } from "../alerts/deliver";
import { builtinAlertsJob } from "./builtin-alerts";
import { clickRetentionJob } from "./click-retention";
import { createDb } from "../middleware/database";
import { evaluateRulesJob } from "./evaluate-rules";
import { finishDomainsJob } from "./finish-domains";
import { optimisePathsJob } from "./optimise-paths";
import { purgeOldAuditEntries } from "./purge-audit";
import { purgeOldCodes } from "./purge-codes";
import { purgeOldNotifications } from "./purge-notifications";
import { purgeExpiredSessions } from "./purge-sessions";
import { purgeAbandonedStatementImports } from "./purge-statement-imports";
import { rollUpClicksJob } from "./roll-up-clicks";
import { shardDaysJob } from "./shard-days";
import { purgeSyncRunsJob, syncCakeJob, syncTikTokJob } from "./sync-data-sources";
import { sweepTikTokEventsJob } from "./tiktok-events";

/** A unit of cron work. Each job runs on its own: one failing never stops the others. */
export interface Job {
  name: string;
  run(ctx: { db: Db; env: Bindings; now: number }): Promise<void>;
}

/** Every job the cron runs. Later features add theirs here. */
export const JOBS: Job[] = [
  purgeExpiredSessions,
  purgeOldCodes,
  syncCakeJob,
  syncTikTokJob,
  purgeSyncRunsJob,
  shardDaysJob,
  rollUpClicksJob,
  finishDomainsJob,
  sweepTikTokEventsJob,
  purgeOldAuditEntries,
  clickRetentionJob,
  purgeAbandonedStatementImports,
  optimisePathsJob,
  builtinAlertsJob,
  purgeOldNotifications,
  // Rules notify through the same channels as the built-in alerts.
  evaluateRulesJob(alertDeliverer),
];

/**
 * How long a job may take before its result says so. Long work is not the cron's: the click
 * archive runs as a Workflow and the cron only starts it; the rollup and the syncs stop taking new
 * steps after their own budgets. A job past this is reported (it is not cut off: it may be
 * half-way through a write) and the others are not held up by it.
 */
export const JOB_BUDGET_MS = 5 * 60 * 1000;

export class JobTimeout extends Error {}

/** One job in isolation: its own try/catch, its own time budget, its own `waitUntil` when given. */
async function runJob(job: Job, ctx: { db: Db; env: Bindings; now: number }, budgetMs: number, background?: Pick<ExecutionContext, "waitUntil">) {
  const work = job.run(ctx);
  background?.waitUntil(work.catch(() => undefined));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobTimeout(`still running after its ${budgetMs / 1000} s budget`)), budgetMs);
  });
  try {
    await Promise.race([work, overrun]);
  } catch (err) {
    console.error(`scheduled job ${job.name} failed`, err);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every job side by side, each isolated (runJob): a job that throws, hangs or runs long
 * neither stops nor delays another. With the scheduled event's context, each job is its own
 * `waitUntil`. Resolves once every job has settled (or overrun its budget).
 */
export async function runScheduled(env: Bindings, now = Date.now(), background?: Pick<ExecutionContext, "waitUntil">, budgetMs = JOB_BUDGET_MS) {
  const db = createDb(env.DB);
  return Promise.allSettled(JOBS.map((job) => runJob(job, { db, env, now }, budgetMs, background)));
}
