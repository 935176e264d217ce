/**
 * Raw click retention (README "Retention and archives"): days of raw clicks older than
 * CLICKS_RETENTION_DAYS are archived to R2, then deleted a bounded number of rows per run.
 *
 * Order, and why a run cut off anywhere loses nothing:
 * 1. A day is archived only once the click rollup has counted all of its clicks, so the stats keep
 *    it for ever (click_daily_stats, never touched here).
 * 2. The day is claimed in click_archives (so an overlapping run leaves it alone), its file
 *    written and read back (archive-day.ts), and only then is it recorded as archived. A run that
 *    dies before that leaves no record (its claim lapses), and a later one writes the file again.
 * 3. Only a recorded day's clicks are deleted, in chunks; a run that stops half-way leaves the day
 *    open and the next run carries on. A day is finished before the next one is started.
 */
import {
  archiveKey,
  archivedClicksLeft,
  archivedFrontier,
  claimArchive,
  deleteArchivedClicks,
  markArchiveDeleted,
  newestClickOfSpan,
  oldestClickFrom,
  openArchive,
  recordArchive,
  releaseClaim,
} from "../db/queries/click-archives";
import { readRollupState } from "../db/queries/click-rollup";
import { deleteRefusedBefore } from "../db/queries/refused-clicks";
import { reportTimeZone } from "../db/queries/settings";
import type { Db } from "../env";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { dayStartMs } from "../lib/calendar-days";
import { archiveDay } from "./archive-day";

const DAY_MS = 86_400_000;
/** Rows a run deletes at most: at 1,000,000 clicks a day the 96 runs a day could delete 24 M. */
export const RETENTION_ROWS_PER_RUN = 250_000;
/** Rows per delete statement: each stays a short transaction that never holds up the clicks. */
export const RETENTION_DELETE_CHUNK = 5_000;
/** A run takes no new step after this long; the next run carries on. */
export const RETENTION_BUDGET_MS = 60_000;

export interface RetentionOptions {
  now: number;
  days: number;
  rowsPerRun?: number;
  deleteChunk?: number;
  budgetMs?: number;
}

export interface RetentionRun {
  /** Days archived (written, read back and recorded) by this run. */
  archived: { day: string; rows: number; bytes: number }[];
  /** Days whose last raw click this run deleted. */
  finished: string[];
  deleted: number;
  /** Time spent writing and checking archives, and deleting (for the log and the benchmark). */
  archiveMs: number;
  deleteMs: number;
  /** Why the run stopped with work left (null: nothing older than the retention is left to do). */
  waiting: string | null;
}

export async function runRetention(db: Db, bucket: R2Bucket, options: RetentionOptions): Promise<RetentionRun> {
  const { now, days, rowsPerRun = RETENTION_ROWS_PER_RUN, deleteChunk = RETENTION_DELETE_CHUNK, budgetMs = RETENTION_BUDGET_MS } = options;
  const started = Date.now();
  const cutoff = now - days * DAY_MS;
  const run: RetentionRun = { archived: [], finished: [], deleted: 0, archiveMs: 0, deleteMs: 0, waiting: null };
  const stop = (why: string) => ({ ...run, waiting: why });

  // The rate limit's refusal counts are kept as long as the clicks they stand for.
  await deleteRefusedBefore(db, cutoff);

  for (;;) {
    if (Date.now() - started > budgetMs) return stop("the run's time budget is spent; the next run carries on");
    if (run.deleted >= rowsPerRun) return stop(`${run.deleted} rows deleted, this run's limit; the next run carries on`);

    const open = await openArchive(db);
    if (open) {
      const deleteStarted = Date.now();
      const deleted = await deleteArchivedClicks(db, open, Math.min(deleteChunk, rowsPerRun - run.deleted));
      run.deleteMs += Date.now() - deleteStarted;
      run.deleted += deleted;
      if (deleted > 0) continue;
      const left = await archivedClicksLeft(db, open);
      // The rollup's newest counted click stays until a newer one is counted (it marks how far the
      // rollup got); a click with an exit the rollup has not counted stays until it has.
      if (left > 0) return stop(`${open.day}: ${left} archived clicks are kept until the click rollup has counted their exits or a newer click`);
      await markArchiveDeleted(db, open.day, now);
      run.finished.push(open.day);
      continue;
    }

    // The next day: the one holding the oldest click after the archived days, cut in the click
    // rollup's days (so the rollup's rows of archived days hold archived clicks only).
    const state = await readRollupState(db);
    const timeZone = await reportTimeZone(db);
    if (!state || state.timeZone !== timeZone) return stop("the click rollup is being rebuilt for the report time zone");
    const frontier = await archivedFrontier(db);
    const oldest = await oldestClickFrom(db, frontier?.endMs ?? Number.MIN_SAFE_INTEGER);
    if (oldest === null) return run;
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
    if (endMs > cutoff) return run;

    const newest = await newestClickOfSpan(db, startMs, endMs);
    if (newest !== null && newest > state.clickWatermark) return stop(`${day}: the click rollup has not counted the whole day yet`);
    const span = { day, timeZone, startMs, endMs, objectKey: archiveKey(day) };
    if (!(await claimArchive(db, span, now))) return stop(`${day}: another run is archiving it`);
    const archiveStarted = Date.now();
    const archive = await archiveDay(db, bucket, span, now).catch(async (err: unknown) => {
      await releaseClaim(db, day, now).catch(() => undefined);
      throw err;
    });
    run.archiveMs += Date.now() - archiveStarted;
    if (!(await recordArchive(db, archive, now))) return stop(`${day}: the click rollup started over while archiving; the day waits for it`);
    run.archived.push({ day, rows: archive.rows, bytes: archive.bytes });
  }
}
