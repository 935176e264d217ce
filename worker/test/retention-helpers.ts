import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { archiveKey, runInstanceId } from "../src/db/queries/click-archives";
import { clickArchiveRuns } from "../src/db/schema";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import type { ArchiveSizes } from "../src/retention/config";
import { runRetention, type RetentionTick } from "../src/retention/run-retention";
import type { ArchiveRunOutput } from "../src/retention/workflow";
import { db } from "./helpers";

const FINAL = new Set(["complete", "errored", "terminated"]);

/** How a run's instance ended: its output, or its error. */
export interface RunEnd {
  id: string;
  status: string;
  output: ArchiveRunOutput | null;
  error: string | null;
}

/** Waits (polling the binding) until the instance is complete, errored or terminated. */
export async function settled(id: string, timeoutMs = 60_000): Promise<RunEnd> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const instance = await env.ARCHIVE_WORKFLOW.get(id);
    const status = await instance.status();
    (instance as Partial<Disposable>)[Symbol.dispose]?.();
    if (FINAL.has(status.status)) {
      return { id, status: status.status, output: (status.output as ArchiveRunOutput | undefined) ?? null, error: status.error?.message ?? null };
    }
    if (Date.now() > giveUpAt) throw new Error(`archive run ${id} still ${status.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every run the cron has started that is not over, waited for. */
export async function settleRuns(): Promise<RunEnd[]> {
  const live = await db()
    .select()
    .from(clickArchiveRuns)
    .where(sql`${clickArchiveRuns.endedAt} is null`);
  return Promise.all(live.map((run) => settled(runInstanceId(run))));
}

/** One cron run of the retention job, and the run it started (or found going) waited for. */
export async function tick(now: number, options: { days: number; sizes?: Partial<ArchiveSizes> }) {
  const result = await runRetention(db(), env, { now, ...options });
  const id = result.started ?? result.running;
  return { tick: result, end: id ? await settled(id) : null };
}

export interface CronResult {
  archived: { day: string; rows: number; bytes: number }[];
  finished: string[];
  deleted: number;
  /** Why the retention stopped with work left (null: nothing older than the retention is left). */
  waiting: string | null;
  ticks: RetentionTick[];
  runs: RunEnd[];
}

/**
 * The cron until the retention has nothing left to start: the rollup, then one retention tick and
 * its run, again and again (one day a run), as the cron's runs every 15 minutes would. Stops at a
 * run that fails or ends waiting (the next cron run would try it again).
 */
export async function cron(now: number, options: { days: number; sizes?: Partial<ArchiveSizes>; rollup?: boolean }): Promise<CronResult> {
  if (options.rollup !== false) await rollUpClicks(db(), { now });
  const result: CronResult = { archived: [], finished: [], deleted: 0, waiting: null, ticks: [], runs: [] };
  for (let i = 0; i < 50; i++) {
    const { tick: t, end } = await tick(now, options);
    result.ticks.push(t);
    if (!end) return { ...result, waiting: t.waiting };
    result.runs.push(end);
    const out = end.output;
    if (end.status !== "complete" || !out) return { ...result, waiting: `${end.id} ${end.status}: ${end.error}` };
    if (out.archived) result.archived.push({ day: out.day, rows: out.archived.rows, bytes: out.archived.bytes });
    result.deleted += out.deleted;
    if (out.finished) result.finished.push(out.day);
    else return { ...result, waiting: out.waiting };
  }
  throw new Error("the retention kept starting runs");
}

/** The archive bucket emptied and every table retention touches, so a test starts from nothing. */
export async function emptyClickStore() {
  for (const table of [
    "lander_clicks",
    "clicks",
    "click_daily_stats",
    "click_archives",
    "click_archive_runs",
    "click_rollup_state",
    "refused_clicks",
    "cake_attributed_daily",
    "cake_stats",
    "tiktok_spend",
  ]) {
    await db().run(sql.raw(`delete from ${table}`));
  }
  for (const prefix of ["clicks/", "archive-work/"]) {
    const listed = await env.ARCHIVE.list({ prefix });
    if (listed.objects.length) await env.ARCHIVE.delete(listed.objects.map((o) => o.key));
  }
  expect(await env.ARCHIVE.list({ prefix: "clicks/" })).toMatchObject({ objects: [] });
}

/** The archived file of a day, unzipped: its lines without the header. */
export async function archivedRows(day: string) {
  const object = await env.ARCHIVE.get(archiveKey(day));
  expect(object, `clicks/${day}.csv.gz`).not.toBeNull();
  const text = await new Response(object!.body.pipeThrough(new DecompressionStream("gzip"))).text();
  return text.trim().split("\r\n").slice(1);
}
