/**
 * Raw click retention, the cron's part (docs/data.md "Retention and archives"): days of raw clicks older
 * than CLICKS_RETENTION_DAYS are archived to R2 and deleted by the archive Workflow
 * (retention/workflow.ts); a cron run only looks at the runs and starts the next one, so it takes
 * a few D1 reads however large the day is.
 *
 * Order, and why nothing is lost or done twice:
 * 1. A day is archived only once the click rollup has counted all of its clicks, so the stats keep
 *    it for ever (click_daily_stats, never touched here). Days go in order: a day is finished
 *    (its raw clicks deleted) before the next one is begun.
 * 2. Each attempt at a day is a run (click_archive_runs) and one Workflow instance named after it:
 *    two cron runs at once insert the same run and start the same instance (the second start is
 *    refused). A run still going is left to go on; starting it again is refused in production
 *    (its engine resumes it by itself) and, under `wrangler dev`, resumes it after a restart.
 * 3. A run that failed for good (its instance errored or was terminated, or ran for hours) is
 *    ended here: its multipart upload is aborted (its id is in the run) and the day's next run
 *    starts. Only a run that read its file back records the day; only a recorded day is deleted.
 */
import {
  archivedFrontier,
  archiveKey,
  endRun,
  insertRun,
  latestRun,
  liveRuns,
  newestClickOfSpan,
  oldestClickFrom,
  openArchive,
  runInstanceId,
  runsWithOpenUploads,
  closeRunUpload,
  type ArchiveRun,
  type ArchiveSpan,
} from "../db/queries/click-archives";
import { purgeArchivedCakeStats } from "../db/queries/cake";
import { readRollupState } from "../db/queries/click-rollup";
import { deleteRefusedBefore } from "../db/queries/refused-clicks";
import { reportTimeZone } from "../db/queries/settings";
import type { Db } from "../env";
import { dayIn, dayStartMs, shiftDay } from "../lib/calendar-days";
import { abortUpload, deleteRunWork } from "./archive-day";
import type { ArchiveRunParams, ArchiveSizes } from "./config";
import { archiveConversions, type ConversionArchiveSizes, type ConversionsRun } from "./conversions";
import { shardPlacesOf } from "../tracking/click-log";
import { oldestShardClickFrom, uncountedPlaces, type ClickShards } from "./shard-days";

const DAY_MS = 86_400_000;
/**
 * A run going this long is given up on: a day of a million clicks takes minutes. (Workflows
 * resume an interrupted instance on their own; this is for one that never comes back.)
 */
export const RUN_STALE_MS = 6 * 60 * 60 * 1000;

export interface RetentionBindings {
  ARCHIVE: R2Bucket;
  ARCHIVE_WORKFLOW: Workflow<ArchiveRunParams>;
  CLICK_SHARDS: ClickShards;
}

export interface RetentionOptions {
  now: number;
  days: number;
  /** Passed to the runs started (tests and the benchmark cut days smaller). */
  sizes?: Partial<ArchiveSizes>;
  conversionSizes?: Partial<ConversionArchiveSizes>;
}

export interface RetentionTick {
  /** The day being worked on (null: nothing older than the retention is left to do, or waiting). */
  day: string | null;
  /** The instance this tick started, or the day's instance still going. */
  started: string | null;
  running: string | null;
  /** Runs this tick found over, and how they ended. */
  ended: { instance: string; outcome: string }[];
  /** Runs whose abandoned multipart upload this tick aborted. */
  aborted: string[];
  /** Why nothing was started (null when a run was started or is going, or nothing is left). */
  waiting: string | null;
  /** The conversions that left D1 this run (retention/conversions.ts). */
  conversions: ConversionsRun;
}

const LIVE = new Set(["queued", "running", "waiting", "paused", "waitingForPause", "unknown"]);

/** An instance handle is an RPC stub: let go of it once used. */
const release = (stub: object) => (stub as Partial<Disposable>)[Symbol.dispose]?.();

/** The instance's status, or null when the Workflow has none of that name (never created). */
async function statusOf(workflow: Workflow<ArchiveRunParams>, id: string): Promise<InstanceStatus | null> {
  let instance: WorkflowInstance;
  try {
    instance = await workflow.get(id);
  } catch {
    return null;
  }
  try {
    return await instance.status();
  } finally {
    release(instance);
  }
}

/** Stops an instance that is still going (one given up on). */
async function terminate(workflow: Workflow<ArchiveRunParams>, id: string) {
  const instance = await workflow.get(id).catch(() => null);
  if (!instance) return;
  await instance.terminate().catch(() => undefined);
  release(instance);
}

/**
 * Starts the run's instance. Starting one that exists is refused (production), or a no-op that
 * resumes it if its process was restarted (`wrangler dev`); either way it is not started twice.
 */
async function ensureStarted(workflow: Workflow<ArchiveRunParams>, id: string, params: ArchiveRunParams) {
  try {
    release(await workflow.create({ id, params }));
  } catch (err) {
    if ((await statusOf(workflow, id)) === null) throw err;
  }
}

const paramsOf = (run: ArchiveRun, span: ArchiveSpan, sizes: Partial<ArchiveSizes> | undefined): ArchiveRunParams => ({
  ...span,
  runId: run.id,
  startedAt: run.startedAt,
  ...(sizes ? { sizes } : {}),
});

/** What a run that failed for good left: its upload aborted, what it kept between steps deleted. */
async function abandonRun(db: Db, bucket: R2Bucket, run: ArchiveRun, now: number) {
  if (run.uploadId && run.uploadClosedAt === null) await abortUpload(bucket, run.objectKey, run.uploadId);
  await deleteRunWork(bucket, run.id);
  await closeRunUpload(db, run.id, now);
}

/**
 * The day to work on: the archived day still being deleted, else the next one to archive, whose
 * clicks may be in D1 and in shard-day objects (retention/shard-days.ts).
 */
async function nextSpan(db: Db, shards: ClickShards, timeZone: string, cutoff: number): Promise<{ span: ArchiveSpan } | { waiting: string | null }> {
  const open = await openArchive(db);
  if (open) return { span: open };
  // The next day: the one holding the oldest click after the archived days, cut in the click
  // rollup's days (so the rollup's rows of archived days hold archived clicks only).
  const state = await readRollupState(db);
  if (!state || state.timeZone !== timeZone) return { waiting: "the click rollup is being rebuilt for the report time zone" };
  const frontier = await archivedFrontier(db);
  const from = frontier?.endMs ?? Number.MIN_SAFE_INTEGER;
  const found = (await Promise.all([oldestClickFrom(db, from), oldestShardClickFrom(db, shards, from)])).filter((at): at is number => at !== null);
  if (!found.length) return { waiting: null };
  const oldest = Math.min(...found);
  let day = dayIn(oldest, timeZone);
  let startMs = dayStartMs(day, timeZone);
  if (frontier && day <= frontier.day) {
    // After a change of time zone the zone's day can be one already archived: the rest of it
    // joins the next day's file.
    day = shiftDay(frontier.day, 1);
    startMs = frontier.endMs;
  } else if (frontier) {
    startMs = Math.max(startMs, frontier.endMs);
  }
  const endMs = dayStartMs(shiftDay(day, 1), timeZone);
  if (endMs > cutoff) return { waiting: null };
  const newest = await newestClickOfSpan(db, startMs, endMs);
  if (newest !== null && newest > state.clickWatermark) return { waiting: `${day}: the click rollup has not counted the whole day yet` };
  const uncounted = await uncountedPlaces(db, shards, await shardPlacesOf(db, startMs, endMs));
  if (uncounted.length) return { waiting: `${day}: the click rollup has not counted the whole day yet (${uncounted.length} shard-day objects)` };
  return { span: { day, timeZone, startMs, endMs, objectKey: archiveKey(day) } };
}

export async function runRetention(db: Db, env: RetentionBindings, options: RetentionOptions): Promise<RetentionTick> {
  const { now, days, sizes } = options;
  // The rate limit's refusal counts are kept as long as the clicks they stand for, CAKE's
  // per-click rows as long as their days' attribution can be rebuilt from the clicks, and the
  // conversions as long as anything reads them (retention/conversions.ts).
  await deleteRefusedBefore(db, now - days * DAY_MS);
  const archived = await archivedFrontier(db);
  if (archived) await purgeArchivedCakeStats(db, archived.day);
  const timeZone = await reportTimeZone(db);
  const conversions = await archiveConversions(db, env.ARCHIVE, {
    now,
    clicksArchivedThrough: archived?.day ?? null,
    timeZone,
    sizes: options.conversionSizes,
  });
  const tick: RetentionTick = { day: null, started: null, running: null, ended: [], aborted: [], waiting: null, conversions };

  // Runs not over yet: ended here once their instance is (the instance ends its run itself when
  // it finishes; one that failed cannot). A failed run's upload is aborted.
  for (const run of await liveRuns(db)) {
    const id = runInstanceId(run);
    const status = await statusOf(env.ARCHIVE_WORKFLOW, id);
    let outcome: string;
    if (status === null || LIVE.has(status.status)) {
      if (now - run.startedAt < RUN_STALE_MS) continue;
      await terminate(env.ARCHIVE_WORKFLOW, id);
      outcome = `failed: still going after ${RUN_STALE_MS / 3_600_000} hours`;
    } else if (status.status === "complete") {
      outcome = "complete";
    } else {
      outcome = `failed: ${status.status}${status.error ? `: ${status.error.message}` : ""}`;
    }
    if (!(await endRun(db, run.id, outcome, now))) continue;
    tick.ended.push({ instance: id, outcome });
    if (outcome.startsWith("failed")) {
      await abandonRun(db, env.ARCHIVE, run, now);
      if (run.uploadId && run.uploadClosedAt === null) tick.aborted.push(id);
    }
  }
  // Any other upload left open by a run that is over (one ended before its upload was aborted).
  for (const run of await runsWithOpenUploads(db)) {
    await abandonRun(db, env.ARCHIVE, run, now);
    tick.aborted.push(runInstanceId(run));
  }

  const next = await nextSpan(db, env.CLICK_SHARDS, timeZone, now - days * DAY_MS);
  if (!("span" in next)) return { ...tick, waiting: next.waiting };
  const { span } = next;
  tick.day = span.day;
  const current = await latestRun(db, span.day);
  if (current && current.endedAt === null) {
    // Still going (or never started: a cron run cut off between the two).
    const id = runInstanceId(current);
    await ensureStarted(env.ARCHIVE_WORKFLOW, id, paramsOf(current, span, sizes));
    return { ...tick, running: id };
  }
  const { run, inserted } = await insertRun(db, { day: span.day, run: (current?.run ?? 0) + 1, objectKey: span.objectKey, startedAt: now });
  const id = runInstanceId(run);
  await ensureStarted(env.ARCHIVE_WORKFLOW, id, paramsOf(run, span, sizes));
  // Another cron run inserted it first: the same run, started once.
  return inserted ? { ...tick, started: id } : { ...tick, running: id };
}
