import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../env";
import { syncRuns, type SyncSource, type SyncStatus, type SyncTrigger } from "../schema";

/**
 * A run still marked running after this long died with its isolate (a Worker invocation cannot
 * outlive the 15 minutes a cron event gets): it no longer blocks new runs and shows as interrupted.
 */
export const RUN_STALE_MS = 15 * 60 * 1000;
/** How long run history is kept. */
export const RUN_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export type SyncRun = typeof syncRuns.$inferSelect;

interface RunStart {
  source: SyncSource;
  trigger: SyncTrigger;
  startedAt: number;
  windowStart: string;
  windowEnd: string;
}

/**
 * Opens a run unless another run of the same source is still going, in one statement so two
 * callers (the cron and an admin's "sync now") cannot both get in. Null: one is running.
 */
export async function openRun(db: Db, run: RunStart): Promise<number | null> {
  const rows = await db.all<{ id: number }>(sql`
    insert into sync_runs (source, "trigger", status, started_at, window_start, window_end)
    select ${run.source}, ${run.trigger}, 'running', ${run.startedAt}, ${run.windowStart}, ${run.windowEnd}
    where not exists (
      select 1 from sync_runs
      where source = ${run.source} and status = 'running' and coalesce(heartbeat_at, started_at) > ${run.startedAt - RUN_STALE_MS}
    )
    returning id`);
  return rows[0]?.id ?? null;
}

/** A run going on in steps shows it is (db/schema.ts `syncRuns.heartbeatAt`); false once it is closed. */
export async function beatRun(db: Db, id: number, now: number): Promise<boolean> {
  const rows = await db
    .update(syncRuns)
    .set({ heartbeatAt: now })
    .where(and(eq(syncRuns.id, id), eq(syncRuns.status, "running")))
    .returning({ id: syncRuns.id });
  return rows.length > 0;
}

/** When a running run last showed it was going: a run in steps beats, any other only started. */
export const lastSignOf = (run: Pick<SyncRun, "startedAt" | "heartbeatAt">) => Math.max(run.startedAt, run.heartbeatAt ?? 0);

/** `alongside` is written in the same batch (a run by hand: its audit entry). */
export async function closeRun(
  db: Db,
  id: number,
  result: { status: Exclude<SyncStatus, "running">; finishedAt: number; rowsFetched: number; rowsUpserted: number; error: string | null },
  alongside: BatchItem<"sqlite">[] = [],
) {
  await db.batch([db.update(syncRuns).set(result).where(eq(syncRuns.id, id)), ...alongside]);
}

/** A run that made no call (not configured, or another run was going): recorded whole at once. */
export async function recordFinishedRun(
  db: Db,
  run: RunStart & { status: "not_configured" | "skipped"; error: string },
  alongside: BatchItem<"sqlite">[] = [],
): Promise<SyncRun> {
  const [[row]] = await db.batch([
    db
      .insert(syncRuns)
      .values({ ...run, finishedAt: run.startedAt })
      .returning(),
    ...alongside,
  ]);
  return row!;
}

export async function runningRun(db: Db, source: SyncSource, now: number): Promise<SyncRun | undefined> {
  const [row] = await db
    .select()
    .from(syncRuns)
    .where(
      and(eq(syncRuns.source, source), eq(syncRuns.status, "running"), sql`coalesce(${syncRuns.heartbeatAt}, ${syncRuns.startedAt}) > ${now - RUN_STALE_MS}`),
    )
    .orderBy(desc(syncRuns.startedAt))
    .limit(1);
  return row;
}

/** Per source: the newest run, and when it last succeeded. */
export async function latestRuns(db: Db): Promise<Record<SyncSource, { last: SyncRun | null; lastSuccessAt: number | null }>> {
  const newest = (source: SyncSource) =>
    db.select().from(syncRuns).where(eq(syncRuns.source, source)).orderBy(desc(syncRuns.startedAt), desc(syncRuns.id)).limit(1);
  const lastOk = (source: SyncSource) =>
    db
      .select({ at: syncRuns.finishedAt })
      .from(syncRuns)
      .where(and(eq(syncRuns.source, source), eq(syncRuns.status, "ok")))
      .orderBy(desc(syncRuns.startedAt))
      .limit(1);
  const [cakeLast, cakeOk, tiktokLast, tiktokOk] = await db.batch([newest("cake"), lastOk("cake"), newest("tiktok"), lastOk("tiktok")]);
  const entry = (last: SyncRun[], ok: { at: number | null }[]) => ({ last: last[0] ?? null, lastSuccessAt: ok[0]?.at ?? null });
  return { cake: entry(cakeLast, cakeOk), tiktok: entry(tiktokLast, tiktokOk) };
}

export async function purgeOldRuns(db: Db, now: number) {
  await db.delete(syncRuns).where(lt(syncRuns.startedAt, now - RUN_RETENTION_MS));
  // What a pull in steps kept for a week it never wrote (its run stopped for good).
  await db.run(sql`delete from cake_pull_rows where run_id not in (select id from sync_runs where status = 'running')`);
  await db.run(sql`delete from cake_pull_conversions where run_id not in (select id from sync_runs where status = 'running')`);
}
