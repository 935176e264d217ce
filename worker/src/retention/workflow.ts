/**
 * The archive Workflow (docs/data.md "Retention and archives"): one instance per run of a day, started
 * by the cron (retention/run-retention.ts), which only starts it. Each `step.do` is one bounded
 * piece of work whose small result the Workflow keeps, so an instance cut off anywhere (a deploy,
 * a crash, a step's error) carries on from its last finished step, and no step comes near a
 * Worker's limits (CPU, memory, subrequests, D1's 30 s per query, 1 MiB per step result):
 *
 * 1. plan: is the day already recorded (an earlier run wrote it; only its deletes are left)?
 * 2. open upload: the R2 multipart upload, its id recorded in D1 before anything is written.
 * 3. export 1..n: 50,000 clicks each, as CSV, deflated, into fixed-size parts (archive-day.ts).
 * 4. complete upload, then its size, ETag, first and last bytes checked; clean up.
 * 5. verify 1..n: each chunk read back from R2 and inflated: length, CRC-32, rows.
 * 6. check the stores (D1 and the day's shard-day objects still hold exactly those clicks), then
 *    record the archive in click_archives.
 * 7. delete 1..m: D1's clicks, 50,000 a step, 5,000 a statement; empty shard-days: each object
 *    of a UTC day the archived days now cover, one `deleteAll()` each (retention/shard-days.ts);
 *    finish: the day done, or what waits.
 *
 * A step that throws is retried (5 times, backing off from 10 s); an ArchiveError (the file or the
 * day does not match) fails the instance at once. A failed instance leaves no record and deletes
 * nothing; the cron aborts its upload and starts the day's next run.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import {
  archiveOfDay,
  archiveRun,
  archivedClicksLeft,
  closeRunUpload,
  deleteArchivedClicks,
  endRun,
  markArchiveDeleted,
  recordArchive,
  type VerifiedArchive,
} from "../db/queries/click-archives";
import type { Bindings, Db } from "../env";
import { createDb } from "../middleware/database";
import {
  afterChunk,
  ArchiveError,
  abortUpload,
  checkSpan,
  completeUpload,
  deleteRunWork,
  EXPORT_START,
  exportChunk,
  openUpload,
  verifyChunk,
  type ArchivePart,
  type ExportedChunk,
} from "./archive-day";
import { ARCHIVE_SIZES, type ArchiveRunParams, type ArchiveSizes } from "./config";
import { shardPlacesOf } from "../tracking/click-log";
import { emptyArchivedShardDays, objectsCounted } from "./shard-days";

export interface ArchiveRunOutput {
  day: string;
  runId: number;
  /** The file this run wrote and recorded; null when an earlier run had (or nothing was recorded). */
  archived: { rows: number; bytes: number; parts: number; chunks: number } | null;
  /** Rows the delete statements removed (clicks, and the exits that go with them). */
  deleted: number;
  /** UTC days (days since 2020-01-01) whose shard-day objects this run emptied. */
  emptiedShardDays: number[];
  /** The day's last raw click is gone. */
  finished: boolean;
  /** Why the day is not finished (null when it is). */
  waiting: string | null;
  steps: number;
  /** Time spent in each phase's steps. */
  ms: { export: number; complete: number; verify: number; delete: number };
}

/** Every step: retried on a thrown error, each try bounded in time (most take a few seconds). */
const STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "10 seconds", backoff: "exponential" }, timeout: "5 minutes" };

export const archiveSizes = (sizes: Partial<ArchiveSizes> | undefined): ArchiveSizes => ({ ...ARCHIVE_SIZES, ...sizes });

/** Whether the run is still the day's live one, and the day's archive if an earlier run recorded it. */
export async function planRun(db: Db, p: ArchiveRunParams): Promise<{ live: boolean; archive: VerifiedArchive | null }> {
  const run = await archiveRun(db, p.runId);
  const archive = await archiveOfDay(db, p.day);
  return { live: run !== null && run.endedAt === null, archive: archive?.archivedAt ? (archive as VerifiedArchive) : null };
}

/** One delete step: up to `deletesPerStep` statements of `deleteRows` clicks; `more` while they found some. */
export async function deleteStep(db: Db, archive: VerifiedArchive, sizes: ArchiveSizes) {
  const started = Date.now();
  let deleted = 0;
  for (let i = 0; i < sizes.deletesPerStep; i++) {
    const n = await deleteArchivedClicks(db, archive, sizes.deleteRows);
    deleted += n;
    if (n === 0) return { deleted, more: false, ms: Date.now() - started };
  }
  return { deleted, more: true, ms: Date.now() - started };
}

/**
 * The day is finished once none of the archive's clicks is left in D1 and every shard-day the
 * archived days cover is emptied; the rollup's newest counted click stays until a newer one is
 * counted (it marks how far the rollup got), and a click or object with an exit the rollup has not
 * counted stays until it has: then the run ends waiting, and the cron's next run of the day
 * carries on.
 */
export async function finishDay(db: Db, archive: VerifiedArchive, runId: number, shardsWaiting: string | null = null) {
  const left = await archivedClicksLeft(db, archive);
  const now = Date.now();
  if (left === 0 && shardsWaiting === null) {
    await markArchiveDeleted(db, archive.day, now);
    await endRun(db, runId, "finished", now);
    return { finished: true, waiting: null };
  }
  const waiting =
    left === 0
      ? `${archive.day}: ${shardsWaiting}`
      : `${archive.day}: ${left} archived clicks are kept until the click rollup has counted their exits or a newer click`;
  await endRun(db, runId, `waiting: ${waiting}`, now);
  return { finished: false, waiting };
}

export class ClickArchiveWorkflow extends WorkflowEntrypoint<Bindings, ArchiveRunParams> {
  override async run(event: Readonly<WorkflowEvent<ArchiveRunParams>>, step: WorkflowStep): Promise<ArchiveRunOutput> {
    const p = event.payload;
    const db = createDb(this.env.DB);
    const bucket = this.env.ARCHIVE;
    const sizes = archiveSizes(p.sizes);
    const out: ArchiveRunOutput = {
      day: p.day,
      runId: p.runId,
      archived: null,
      deleted: 0,
      emptiedShardDays: [],
      finished: false,
      waiting: null,
      steps: 0,
      ms: { export: 0, complete: 0, verify: 0, delete: 0 },
    };
    const log = (text: string) => console.log(`click-archive ${p.day} run ${p.runId}: ${text}`);
    /**
     * A step, logged when it runs (not when a resumed instance replays its kept result). An
     * ArchiveError fails the instance at once: trying the same thing again cannot help.
     */
    const run = <T extends Rpc.Serializable<T>>(name: string, work: () => Promise<T>, describe?: (result: T) => string) => {
      out.steps++;
      return step.do(name, STEP, async (ctx) => {
        try {
          const result = await work();
          if (describe) log(`${name}${ctx.attempt > 1 ? ` (try ${ctx.attempt})` : ""}: ${describe(result)}`);
          return result;
        } catch (err) {
          log(`${name} failed (try ${ctx.attempt}): ${err instanceof Error ? err.message : String(err)}`);
          if (err instanceof ArchiveError) throw new NonRetryableError(err.message);
          throw err;
        }
      });
    };

    const plan = await run(
      "plan",
      () => planRun(db, p),
      (r) => (r.archive ? "recorded by an earlier run: deletes only" : "to archive"),
    );
    if (!plan.live) return { ...out, waiting: `${p.day}: run ${p.runId} was given up on` };
    let archive = plan.archive;
    if (!archive) {
      const { uploadId } = await run("open upload", () => openUpload(db, bucket, p));
      const target = { ...p, uploadId };
      let state = EXPORT_START;
      const chunks: ExportedChunk[] = [];
      const parts: ArchivePart[] = [];
      for (;;) {
        const from = state;
        const chunk = await run(
          `export ${from.chunk}`,
          () => exportChunk(db, bucket, target, from, sizes, this.env.CLICK_SHARDS),
          (c) =>
            `${c.rows} clicks, ${c.size} bytes gzipped, parts ${c.parts.map((x) => x.partNumber).join(", ") || "none"} uploaded${c.end ? ", the file's end written" : ""} (${c.ms} ms)`,
        );
        chunks.push(chunk);
        parts.push(...chunk.parts);
        state = afterChunk(state, chunk);
        out.ms.export += chunk.ms;
        if (chunk.end) break;
      }
      if (state.rows === 0) {
        // The clicks went between the cron's look and the export (a campaign deleted): nothing to keep.
        await run("abandon", async () => {
          await abortUpload(bucket, p.objectKey, uploadId);
          await closeRunUpload(db, p.runId, Date.now());
          await deleteRunWork(bucket, p.runId);
          await endRun(db, p.runId, "waiting: no clicks left in the day", Date.now());
          return null;
        });
        return { ...out, waiting: `${p.day}: no clicks left in the day` };
      }
      const file = { bytes: state.bytes, crc: state.crc, length: state.length };
      const done = await run(
        "complete upload",
        () => completeUpload(db, bucket, target, parts, file),
        (d) => `${parts.length} parts, ${d.bytes} bytes, ETag ${d.etag}, header and trailer read back (${d.ms} ms)`,
      );
      out.ms.complete = done.ms;
      await run("clean up", async () => {
        await deleteRunWork(bucket, p.runId);
        return null;
      });
      for (const chunk of chunks) {
        const verified = await run(
          `verify ${chunk.chunk}`,
          () => verifyChunk(bucket, p, chunk),
          (v) => `${v.rows} clicks read back, CRC-32 and length as written (${v.ms} ms)`,
        );
        out.ms.verify += verified.ms;
      }
      const held = await run(
        "check the stores",
        () => checkSpan(db, p, state.rows, this.env.CLICK_SHARDS),
        (h) => `D1 and the shard-day objects hold the ${state.rows} clicks written (${h.inObjects} in objects, ${h.exits} exits)`,
      );
      const newArchive = { ...p, rows: state.rows, exits: held.exits, bytes: done.bytes, maxClickId: held.maxClickId };
      const recorded = await run(
        "record",
        async () => {
          const archivedAt = Date.now();
          // The rollup must still hold the day's clicks, D1's and the objects' (a rebuild meanwhile
          // starts them over): once the day is recorded, nothing would count them again.
          // recordArchive checks both in the same statement as the record.
          const { uncounted, held } = await objectsCounted(db, this.env.CLICK_SHARDS, await shardPlacesOf(db, p.startMs, p.endMs));
          const ok = uncounted.length === 0 && (await recordArchive(db, { ...newArchive, archivedAt }, { id: p.runId, startedAt: p.startedAt }, held));
          if (!ok) await endRun(db, p.runId, "waiting: the click rollup started over while archiving", Date.now());
          return ok ? archivedAt : null;
        },
        (at) => (at === null ? "not recorded: the click rollup started over" : "recorded in click_archives"),
      );
      if (recorded === null) return { ...out, waiting: `${p.day}: the click rollup started over while archiving; the day waits for it` };
      out.archived = { rows: state.rows, bytes: done.bytes, parts: parts.length, chunks: chunks.length };
      archive = { ...newArchive, archivedAt: recorded, claimedAt: p.startedAt, deletedAt: null };
    }
    const verified = archive;
    for (let k = 1; ; k++) {
      const d = await run(
        `delete ${k}`,
        () => deleteStep(db, verified, sizes),
        (r) => `${r.deleted} rows deleted (${r.ms} ms)`,
      );
      out.deleted += d.deleted;
      out.ms.delete += d.ms;
      if (!d.more) break;
    }
    const emptied = await run(
      "empty shard-days",
      () => emptyArchivedShardDays(db, this.env.CLICK_SHARDS, verified.endMs, Date.now()),
      (e) => (e.emptied.length ? `days ${e.emptied.join(", ")} emptied` : "none to empty") + (e.waiting ? `; ${e.waiting}` : ""),
    );
    out.emptiedShardDays = emptied.emptied;
    const finish = await run(
      "finish",
      () => finishDay(db, verified, p.runId, emptied.waiting),
      (f) => (f.finished ? "the day is done" : f.waiting!),
    );
    return { ...out, finished: finish.finished, waiting: finish.waiting };
  }
}
