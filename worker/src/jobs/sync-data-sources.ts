import { readSettings } from "../db/queries/settings";
import { purgeOldRuns } from "../db/queries/sync-runs";
import type { SyncSource } from "../db/schema";
import type { Bindings } from "../env";
import { dayIn } from "../lib/calendar-days";
import { syncDays } from "../sync/config";
import { runSync } from "../sync/run-sync";
import type { Job } from "./index";

/** The cron fires every 15 minutes, so exactly one run a day starts in the first quarter hour. */
const FIRST_RUN_OF_DAY_MS = 15 * 60 * 1000;

/**
 * How far back a cron run pulls: the recent days every time, and once a day (the first run after
 * midnight in the report time zone) the longer stretch in which conversions still get approved
 * or reversed.
 */
export function cronDays(env: Bindings, timeZone: string, now: number) {
  const { recent, daily } = syncDays(env);
  const firstOfDay = dayIn(now - FIRST_RUN_OF_DAY_MS, timeZone) !== dayIn(now, timeZone);
  return firstOfDay ? Math.max(recent, daily) : recent;
}

const syncJob = (source: SyncSource): Job => ({
  name: `sync-${source}`,
  async run({ db, env, now }) {
    const { report_timezone: timeZone } = await readSettings(db);
    const run = await runSync({ db, env, now }, { source, trigger: "cron", days: cronDays(env, timeZone, now) });
    if (run.status === "error") console.error(`sync-${source}: ${run.error}`);
  },
});

export const syncCakeJob = syncJob("cake");
export const syncTikTokJob = syncJob("tiktok");

export const purgeSyncRunsJob: Job = {
  name: "purge-sync-runs",
  run: ({ db, now }) => purgeOldRuns(db, now),
};
