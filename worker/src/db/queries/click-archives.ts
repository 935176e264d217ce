/**
 * The retention's ledger (click_archives), the archive Workflow's runs (click_archive_runs) and
 * the deletes. A day's raw clicks are deleted only once its archive is recorded here, only those
 * the archive holds, and only those the click rollup has counted (docs/data.md "Retention and archives").
 */
import { and, asc, desc, gt, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { changed, rawBatch } from "../raw-batch";
import { clickArchiveRuns, clickArchives } from "../schema";

export type ClickArchive = typeof clickArchives.$inferSelect;
/** An archive whose file is verified (archivedAt set): the only kind whose clicks are deleted. */
export type VerifiedArchive = ClickArchive & { archivedAt: number };

const verified = isNotNull(clickArchives.archivedAt);

/** The R2 object of a day's archive. */
export const archiveKey = (day: string) => `clicks/${day}.csv.gz`;

/**
 * Where the archived days end: every click before `endMs` is archived (and deleted, or being
 * deleted), and the click rollup's rows dated `day` or earlier hold exactly those clicks. Null
 * before the first archive.
 */
export interface ArchivedFrontier {
  day: string;
  endMs: number;
}

export async function archivedFrontier(db: Db): Promise<ArchivedFrontier | null> {
  const [row] = await db
    .select({ day: clickArchives.day, endMs: clickArchives.endMs })
    .from(clickArchives)
    .where(verified)
    .orderBy(desc(clickArchives.endMs))
    .limit(1);
  return row ?? null;
}

/** The archived day whose raw clicks are still being deleted (at most one: days are done in order). */
export async function openArchive(db: Db): Promise<VerifiedArchive | null> {
  const [row] = await db
    .select()
    .from(clickArchives)
    .where(and(verified, isNull(clickArchives.deletedAt)))
    .orderBy(asc(clickArchives.endMs))
    .limit(1);
  return (row as VerifiedArchive | undefined) ?? null;
}

/** The first click at or after `fromMs` (the next day to archive starts there). */
export async function oldestClickFrom(db: Db, fromMs: number): Promise<number | null> {
  const [row] = await db.all<{ at: number | null }>(sql`select min(clicked_at) as at from clicks where clicked_at >= ${fromMs}`);
  return row?.at ?? null;
}

/** The highest click id of [startMs, endMs), from the index alone. */
export async function newestClickOfSpan(db: Db, startMs: number, endMs: number): Promise<number | null> {
  const [row] = await db.all<{ id: number | null }>(sql`
    select max(id) as id from clicks indexed by clicks_clicked_at_idx where clicked_at >= ${startMs} and clicked_at < ${endMs}`);
  return row?.id ?? null;
}

/** Clicks, exits and the highest click id of [startMs, endMs). */
export async function clicksOfSpan(db: Db, startMs: number, endMs: number) {
  const [row] = await db.all<{ rows: number; exits: number; maxId: number | null }>(sql`
    select count(*) as rows, count(exited_at) as exits, max(id) as maxId from clicks
    where clicked_at >= ${startMs} and clicked_at < ${endMs}`);
  return { rows: row?.rows ?? 0, exits: row?.exits ?? 0, maxId: row?.maxId ?? null };
}

/**
 * A shard-day or legacy object's highest click id of an archived day's span, which the rollup's
 * watermark for that object must stay at or past while the day is recorded
 * (retention/shard-days.ts `objectsCounted`).
 */
export type HeldClicks = { day: number; shard: number; maxId: number };

export type NewArchive = Omit<VerifiedArchive, "deletedAt" | "claimedAt">;
export type ArchiveSpan = Pick<ClickArchive, "day" | "timeZone" | "startMs" | "endMs" | "objectKey">;

/**
 * Records a verified archive, written by the run `runId` (started at `startedAt`), only if the
 * click rollup still counts every click in it under the same days (its time zone unchanged, its
 * click watermark at or past the file's clicks) and the run is still the day's live one (the cron
 * gives up on a run only after ending it), and its rows of the objects holding clicks of the day
 * still count each of them (`held`). Otherwise a rebuild started meanwhile, or the run was
 * given up on, and nothing is recorded. A second call by the same run (a retried step) finds its
 * own record. Returns whether the day is recorded as this archive.
 */
export async function recordArchive(db: Db, a: NewArchive, run: { id: number; startedAt: number }, held: HeldClicks[]): Promise<boolean> {
  const objects = JSON.stringify(held.map((h) => [h.day, h.shard, h.maxId]));
  const [result] = await rawBatch(db, [
    sql`
      insert into click_archives (day, time_zone, start_ms, end_ms, object_key, rows, exits, bytes, max_click_id, claimed_at, archived_at)
      select ${a.day}, ${a.timeZone}, ${a.startMs}, ${a.endMs}, ${a.objectKey}, ${a.rows}, ${a.exits}, ${a.bytes}, ${a.maxClickId},
        ${run.startedAt}, ${a.archivedAt}
      where exists (select 1 from click_rollup_state where id = 1 and time_zone = ${a.timeZone} and click_watermark >= ${a.maxClickId})
        and exists (select 1 from click_archive_runs where id = ${run.id} and ended_at is null)
        and (select count(*) from json_each(${objects}) o join click_shard_rollups r
          on r.day = json_extract(o.value, '$[0]') and r.shard = json_extract(o.value, '$[1]')
            and r.click_watermark >= json_extract(o.value, '$[2]')) = ${held.length}
      on conflict (day) do update set time_zone = excluded.time_zone, start_ms = excluded.start_ms, end_ms = excluded.end_ms,
        object_key = excluded.object_key, rows = excluded.rows, exits = excluded.exits, bytes = excluded.bytes,
        max_click_id = excluded.max_click_id, claimed_at = excluded.claimed_at, archived_at = excluded.archived_at
      where click_archives.archived_at is null`,
  ]);
  if (changed(result!) === 1) return true;
  const [mine] = await db.all<{ n: number }>(sql`
    select 1 as n from click_archives
    where day = ${a.day} and archived_at is not null and claimed_at = ${run.startedAt} and max_click_id = ${a.maxClickId} and rows = ${a.rows}`);
  return mine !== undefined;
}

/**
 * Deletes up to `limit` raw clicks of an archived day (their lander_clicks go with them: the
 * foreign key cascades). Only clicks the archive holds (id up to its highest), that the rollup has
 * counted (below its click watermark: the watermark's own row stays, so SQLite never hands its id
 * out again; once the move of D1's clicks has started it may go too, as D1 then gives no id twice:
 * db/queries/clicks.ts `insertClicksOnce`) and whose exit it has counted too. Returns how many went.
 */
export async function deleteArchivedClicks(db: Db, archive: VerifiedArchive, limit: number): Promise<number> {
  const [result] = await rawBatch(db, [
    sql`
      delete from clicks where id in (
        select k.id from clicks k, click_rollup_state s
        where s.id = 1 and k.clicked_at >= ${archive.startMs} and k.clicked_at < ${archive.endMs}
          and k.id <= ${archive.maxClickId} and (k.id < s.click_watermark or (k.id = s.click_watermark and exists (select 1 from click_moves)))
          and (k.exited_at is null or k.exited_at <= s.exit_watermark)
        limit ${limit})`,
  ]);
  return changed(result!);
}

/** Clicks of an archived day its archive holds that are still in D1. */
export async function archivedClicksLeft(db: Db, archive: VerifiedArchive): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`
    select count(*) as n from clicks
    where clicked_at >= ${archive.startMs} and clicked_at < ${archive.endMs} and id <= ${archive.maxClickId}`);
  return row?.n ?? 0;
}

export async function markArchiveDeleted(db: Db, day: string, at: number) {
  await db
    .update(clickArchives)
    .set({ deletedAt: at })
    .where(sql`${clickArchives.day} = ${day}`);
}

/** Archived days overlapping [startMs, endMs), oldest first. */
export const archivesOverlapping = (db: Db, startMs: number, endMs: number) =>
  db
    .select({ day: clickArchives.day, rows: clickArchives.rows, bytes: clickArchives.bytes, startMs: clickArchives.startMs, endMs: clickArchives.endMs })
    .from(clickArchives)
    .where(and(verified, lt(clickArchives.startMs, endMs), gt(clickArchives.endMs, startMs)))
    .orderBy(asc(clickArchives.startMs));

export async function archiveOfDay(db: Db, day: string): Promise<ClickArchive | null> {
  const [row] = await db
    .select()
    .from(clickArchives)
    .where(and(verified, sql`${clickArchives.day} = ${day}`))
    .limit(1);
  return row ?? null;
}

// --- The archive Workflow's runs -------------------------------------------------------------

export type ArchiveRun = typeof clickArchiveRuns.$inferSelect;

/** The Workflow instance of a run: named after the day and the run's row, never reused. */
export const runInstanceId = (run: Pick<ArchiveRun, "id" | "day">) => `clicks-${run.day}-${run.id}`;

/** Where a run keeps the bytes it has not put in a part yet (retention/archive-day.ts), per export step. */
export const runWorkPrefix = (runId: number) => `archive-work/${runId}/`;

/** Runs not over yet, oldest first (at most a couple: one per day being worked on). */
export const liveRuns = (db: Db) => db.select().from(clickArchiveRuns).where(isNull(clickArchiveRuns.endedAt)).orderBy(asc(clickArchiveRuns.id));

export async function latestRun(db: Db, day: string): Promise<ArchiveRun | null> {
  const [row] = await db
    .select()
    .from(clickArchiveRuns)
    .where(sql`${clickArchiveRuns.day} = ${day}`)
    .orderBy(desc(clickArchiveRuns.run))
    .limit(1);
  return row ?? null;
}

export async function archiveRun(db: Db, id: number): Promise<ArchiveRun | null> {
  const [row] = await db
    .select()
    .from(clickArchiveRuns)
    .where(sql`${clickArchiveRuns.id} = ${id}`)
    .limit(1);
  return row ?? null;
}

/**
 * The day's run number `run`: inserted, or the one another cron run inserted first (the unique
 * day and run number), so both start the same instance.
 */
export async function insertRun(
  db: Db,
  r: { day: string; run: number; objectKey: string; startedAt: number },
): Promise<{ run: ArchiveRun; inserted: boolean }> {
  const [result] = await rawBatch(db, [
    sql`
      insert into click_archive_runs (day, run, object_key, started_at) values (${r.day}, ${r.run}, ${r.objectKey}, ${r.startedAt})
      on conflict (day, run) do nothing`,
  ]);
  const [row] = await db
    .select()
    .from(clickArchiveRuns)
    .where(and(sql`${clickArchiveRuns.day} = ${r.day}`, sql`${clickArchiveRuns.run} = ${r.run}`));
  return { run: row!, inserted: changed(result!) === 1 };
}

/**
 * Records the multipart upload a run opened, unless it already has one (then that one is the
 * run's: a retried step must not open a second). Returns the run's upload id.
 */
export async function recordRunUpload(db: Db, runId: number, uploadId: string): Promise<string | null> {
  await db.run(sql`update click_archive_runs set upload_id = ${uploadId} where id = ${runId} and upload_id is null`);
  return (await archiveRun(db, runId))?.uploadId ?? null;
}

/** The run's upload is completed or aborted: nothing is left to clean up. */
export async function closeRunUpload(db: Db, runId: number, at: number) {
  await db.run(sql`update click_archive_runs set upload_closed_at = ${at} where id = ${runId} and upload_closed_at is null`);
}

/** Ends a run (the first outcome stays). Returns whether this call ended it. */
export async function endRun(db: Db, runId: number, outcome: string, at: number): Promise<boolean> {
  const [result] = await rawBatch(db, [sql`update click_archive_runs set ended_at = ${at}, outcome = ${outcome} where id = ${runId} and ended_at is null`]);
  return changed(result!) === 1;
}

/** Runs that are over with their upload neither completed nor aborted: what the cron aborts. */
export const runsWithOpenUploads = (db: Db) =>
  db
    .select()
    .from(clickArchiveRuns)
    .where(and(isNotNull(clickArchiveRuns.endedAt), isNotNull(clickArchiveRuns.uploadId), isNull(clickArchiveRuns.uploadClosedAt)))
    .orderBy(asc(clickArchiveRuns.id));
