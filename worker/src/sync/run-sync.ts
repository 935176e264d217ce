/**
 * One sync run of one source, from the cron or an admin's "sync now": decide the days, check the
 * source is configured, take the source's run slot, pull, write, and record the outcome. Every
 * attempt leaves one sync_runs row, including the ones that made no call.
 */
import type { BatchItem } from "drizzle-orm/batch";
import type { DayRange } from "../db/queries/cake";
import { readSettings } from "../db/queries/settings";
import { beatRun, closeRun, lastSignOf, openRun, recordFinishedRun, runningRun, type SyncRun } from "../db/queries/sync-runs";
import type { SyncSource, SyncTrigger } from "../db/schema";
import type { Bindings, Db } from "../env";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { ExternalApiError, type HttpOptions } from "../integrations/http";
import { iso, isoOrNull } from "../lib/time";
import type { CakeConversion } from "../integrations/cake";
import { copyAttributedClicks } from "../tracking/attributed-clicks";
import { applyCakeClicksToShards, placeCakeClicks, stageCakeClicksInShards } from "../tracking/cake-shards";
import { produceSends, seenConversion } from "../tiktok-events/produce";
import { emitConversionsCreated } from "../webhooks/emit";
import type { CakePullParams } from "./cake-pull-workflow";
import { syncCake, type CakeClickShards, type CakePullRest } from "./cake-sync";
import { cakeSetup, tiktokSetup } from "./config";
import { syncTikTok } from "./tiktok-sync";

/** A run's pull in steps: one instance per run, so a second start of it is refused. */
export const cakePullInstanceId = (runId: number) => `cake-pull-${runId}`;

/** Rows of CAKE's click report a step reads when no setting says: about 100 pages, seconds of CPU, a few hundred subrequests. */
export const CAKE_PULL_STEP_ROWS = 1_000_000;

export const SOURCE_LABELS: Record<SyncSource, string> = { cake: "CAKE", tiktok: "TikTok" };

export interface SyncDeps {
  db: Db;
  env: Bindings;
  /** fetch and retry settings for the external calls (tests put the fakes here). */
  http?: HttpOptions;
  /** When the run starts (the cron's scheduled time); decides which days "today" and back are. */
  now?: number;
  /** Written in the same batch as the run's final record (a run by hand: its audit entry). */
  alongside?: (run: Pick<SyncRun, "source" | "status" | "windowStart" | "windowEnd" | "rowsUpserted" | "error">) => BatchItem<"sqlite">[];
}

export interface SyncRequest {
  source: SyncSource;
  trigger: SyncTrigger;
  /** How many days back to pull, today (in the report time zone) included. */
  days: number;
}

/** A run as the API shows it. */
export interface SyncOutcome {
  id: number;
  source: SyncSource;
  trigger: SyncTrigger;
  status: SyncRun["status"] | "interrupted";
  startedAt: string;
  finishedAt: string | null;
  windowStart: string | null;
  windowEnd: string | null;
  rowsFetched: number;
  rowsUpserted: number;
  error: string | null;
}

export function outcomeJson(run: SyncRun, now: number, staleAfterMs: number): SyncOutcome {
  const interrupted = run.status === "running" && lastSignOf(run) <= now - staleAfterMs;
  return {
    id: run.id,
    source: run.source,
    trigger: run.trigger,
    status: interrupted ? "interrupted" : run.status,
    startedAt: iso(run.startedAt),
    finishedAt: isoOrNull(run.finishedAt),
    windowStart: run.windowStart,
    windowEnd: run.windowEnd,
    rowsFetched: run.rowsFetched,
    rowsUpserted: run.rowsUpserted,
    error: interrupted ? "The run stopped before it finished (the Worker was cut off); the next run covers its days" : run.error,
  };
}

export function failureMessage(source: SyncSource, err: unknown) {
  if (err instanceof ExternalApiError) return err.message;
  console.error(`${source} sync failed`, err);
  const detail = err instanceof Error ? err.message : String(err);
  return `Saving the ${SOURCE_LABELS[source]} data failed: ${detail}`;
}

type SyncResult = { rowsFetched: number; rowsUpserted: number; error: string | null; continuing?: true };

/**
 * What a CAKE pull does beside its own writes, bound to the run's database and start: its new
 * conversions go on (TikTok's Events API, the webhooks), the shard-day clicks its rows name are
 * copied for the attribution, and its rows of those clicks go to their objects.
 */
export function cakeRunParts(db: Db, env: Bindings, now: number) {
  const onConversions = (conversions: CakeConversion[]) =>
    Promise.all([
      produceSends(db, env, conversions.map(seenConversion(now)), now),
      emitConversionsCreated(
        db,
        env,
        conversions.map((c) => c.conversionId),
        now,
      ),
    ]);
  const copyClicks = (sub2s: string[]) => copyAttributedClicks(db, env, sub2s, now);
  const shards: CakeClickShards = {
    place: (rows) => placeCakeClicks(db, env, rows, now),
    stage: (pull) => stageCakeClicksInShards(db, env, pull),
    apply: (pull) => applyCakeClicksToShards(db, env, pull, now),
  };
  return { onConversions, copyClicks, shards };
}

/** Rows of CAKE's click report a step of a pull in steps reads (wrangler.toml `CAKE_PULL_STEP_ROWS`). */
export function cakeStepRows(env: Pick<Bindings, "CAKE_PULL_STEP_ROWS">) {
  const n = Number(env.CAKE_PULL_STEP_ROWS ?? "");
  return Number.isInteger(n) && n > 0 ? n : CAKE_PULL_STEP_ROWS;
}

/** The source's run, or why it cannot run. */
function prepare(source: SyncSource, env: Bindings, timeZone: string, input: { db: Db; http: HttpOptions; now: number; days: DayRange }) {
  if (source === "cake") {
    const { problems, config } = cakeSetup(env, timeZone);
    const parts = cakeRunParts(input.db, env, input.now);
    const stepRows = cakeStepRows(env);
    const inSteps = (runId: number) => ({
      stepRows,
      handOff: async (rest: CakePullRest) => {
        const params: CakePullParams = { ...rest, runId, now: input.now, windowEnd: input.days.end, stepRows };
        await beatRun(input.db, runId, Date.now());
        await env.CAKE_PULL_WORKFLOW.create({ id: cakePullInstanceId(runId), params });
      },
    });
    return {
      problems,
      run: config && ((runId: number): Promise<SyncResult> => syncCake({ ...input, config, runId, ...parts, inSteps: inSteps(runId) })),
    };
  }
  const { problems, config } = tiktokSetup(env);
  return { problems, run: config && ((): Promise<SyncResult> => syncTikTok({ ...input, config })) };
}

export async function runSync(deps: SyncDeps, request: SyncRequest): Promise<SyncRun> {
  const { db, env } = deps;
  const startedAt = deps.now ?? Date.now();
  const { report_timezone: timeZone } = await readSettings(db);
  const windowEnd = dayIn(startedAt, timeZone);
  const days = { start: shiftDay(windowEnd, 1 - request.days), end: windowEnd };
  const base = { source: request.source, trigger: request.trigger, startedAt, windowStart: days.start, windowEnd: days.end };
  const label = SOURCE_LABELS[request.source];

  const { problems, run } = prepare(request.source, env, timeZone, { db, http: deps.http ?? {}, now: startedAt, days });
  const alongside = deps.alongside ?? (() => []);
  if (!run) {
    const finished = { ...base, status: "not_configured" as const, error: `${label} is not configured: ${problems.join("; ")}` };
    return recordFinishedRun(db, finished, alongside({ ...finished, rowsUpserted: 0 }));
  }

  const runId = await openRun(db, base);
  if (runId === null) {
    const other = await runningRun(db, request.source, startedAt);
    const since = other ? ` (started ${iso(other.startedAt)})` : "";
    const skipped = { ...base, status: "skipped" as const, error: `Another ${label} sync is still running${since}` };
    return recordFinishedRun(db, skipped, alongside({ ...skipped, rowsUpserted: 0 }));
  }

  let result: SyncResult;
  try {
    result = await run(runId);
  } catch (err) {
    result = { rowsFetched: 0, rowsUpserted: 0, error: failureMessage(request.source, err) };
  }
  if (result.continuing) {
    // The pull goes on in steps (sync/cake-pull-workflow.ts), which close the run.
    const going = { ...base, status: "running" as const, finishedAt: null, rowsFetched: result.rowsFetched, rowsUpserted: result.rowsUpserted, error: null };
    const audit = alongside(going);
    if (audit.length) await db.batch(audit as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    return { id: runId, ...going, heartbeatAt: Date.now() };
  }
  const closed = {
    status: result.error ? ("error" as const) : ("ok" as const),
    finishedAt: Math.max(startedAt, Date.now()),
    rowsFetched: result.rowsFetched,
    rowsUpserted: result.rowsUpserted,
    error: result.error,
  };
  await closeRun(db, runId, closed, alongside({ ...base, ...closed }));
  return { id: runId, ...base, ...closed, heartbeatAt: null };
}
