/**
 * The retention job's ledger (click_archives) and its deletes. A day's raw clicks are deleted
 * only once its archive is recorded here, only those the archive holds, and only those the click
 * rollup has counted (README "Retention and archives").
 */
import { and, asc, desc, gt, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { changed, rawBatch } from "../raw-batch";
import { clickArchives } from "../schema";

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

export type NewArchive = Omit<VerifiedArchive, "deletedAt" | "claimedAt">;
export type ArchiveSpan = Pick<ClickArchive, "day" | "timeZone" | "startMs" | "endMs" | "objectKey">;

/**
 * A claim on writing a day's archive lapses after this long: a run that fails gives its claim
 * back, and one cut off (a cron run lasts minutes at most) leaves it to lapse, so the run after
 * the next writes the day.
 */
export const ARCHIVE_CLAIM_MS = 20 * 60 * 1000;

/**
 * Claims a day before its file is written, so two overlapping runs never write the same object
 * (the second could overwrite a checked file while the first deletes its clicks). Returns whether
 * this run holds the claim: the day is new, or its earlier claim lapsed unverified.
 */
export async function claimArchive(db: Db, span: ArchiveSpan, now: number): Promise<boolean> {
  const [result] = await rawBatch(db, [
    sql`
      insert into click_archives (day, time_zone, start_ms, end_ms, object_key, rows, exits, bytes, max_click_id, claimed_at)
      values (${span.day}, ${span.timeZone}, ${span.startMs}, ${span.endMs}, ${span.objectKey}, 0, 0, 0, 0, ${now})
      on conflict (day) do update set time_zone = excluded.time_zone, start_ms = excluded.start_ms, end_ms = excluded.end_ms,
        claimed_at = excluded.claimed_at
      where click_archives.archived_at is null and click_archives.claimed_at < ${now - ARCHIVE_CLAIM_MS}`,
  ]);
  return changed(result!) === 1;
}

/** Gives a claim back after a failed write: the next run may write the day at once. */
export async function releaseClaim(db: Db, day: string, claimedAt: number) {
  await db.run(sql`delete from click_archives where day = ${day} and claimed_at = ${claimedAt} and archived_at is null`);
}

/**
 * Records a verified archive under this run's claim, only if the click rollup still counts every
 * click in it under the same days (its time zone unchanged, its click watermark at or past the
 * file's clicks): otherwise a rebuild started meanwhile and the day waits for it (the claim
 * lapses). Returns whether it was recorded.
 */
export async function recordArchive(db: Db, a: NewArchive, claimedAt: number): Promise<boolean> {
  const [result] = await rawBatch(db, [
    sql`
      update click_archives set rows = ${a.rows}, exits = ${a.exits}, bytes = ${a.bytes}, max_click_id = ${a.maxClickId},
        archived_at = ${a.archivedAt}
      where day = ${a.day} and claimed_at = ${claimedAt} and archived_at is null and exists (
        select 1 from click_rollup_state where id = 1 and time_zone = ${a.timeZone} and click_watermark >= ${a.maxClickId})`,
  ]);
  return changed(result!) === 1;
}

/**
 * Deletes up to `limit` raw clicks of an archived day (their lander_clicks go with them: the
 * foreign key cascades). Only clicks the archive holds (id up to its highest), that the rollup has
 * counted (below its click watermark: the watermark's own row stays, so SQLite never hands its id
 * out again) and whose exit it has counted too. Returns how many went.
 */
export async function deleteArchivedClicks(db: Db, archive: VerifiedArchive, limit: number): Promise<number> {
  const [result] = await rawBatch(db, [
    sql`
      delete from clicks where id in (
        select k.id from clicks k, click_rollup_state s
        where s.id = 1 and k.clicked_at >= ${archive.startMs} and k.clicked_at < ${archive.endMs}
          and k.id <= ${archive.maxClickId} and k.id < s.click_watermark
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
