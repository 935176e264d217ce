/**
 * CakePullWorkflow: a CAKE pull whose click report is too long for one invocation, carried on in
 * steps (docs/click-storage.md "The CAKE pull in steps"). The sync (sync/cake-sync.ts) starts it
 * when CAKE says a week's report is longer than CAKE_PULL_STEP_ROWS rows, with the days left,
 * newest first. Each day's click report is read in steps of about that many rows (a step reads
 * its pages, stages the objects' rows in them and keeps D1's in `cake_pull_rows`), its conversions
 * in steps of a tenth of that (staged in `cake_pull_conversions`), then the day is written in one
 * step (STEP_CHUNK_DAYS) as a week pulled at once is; a step's CPU, memory and subrequests are its
 * own.
 * The run's `sync_runs` row stays "running", its heartbeat moved by every step, until the last
 * step closes it as the sync would have: ok, or the error and the days saved before it.
 *
 * A step run again (the Workflow retries a failed one) repeats nothing: its stagings carry names of
 * its own, which the objects keep (tracking/click-shard.ts `stageCakeClicks`); its D1 rows replace
 * what it kept before; a write writes the same again.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { readSettings } from "../db/queries/settings";
import { beatRun, closeRun } from "../db/queries/sync-runs";
import { dropPulledRows, type DayRange } from "../db/queries/cake";
import type { Bindings, Db } from "../env";
import type { HttpOptions } from "../integrations/http";
import { createDb } from "../middleware/database";
import { cakeChunks, conversionStepRows, readCakeStep, readConversionsStep, writeCakeStep, type CakePullRest } from "./cake-sync";
import { cakeSetup } from "./config";
import { cakeRunParts, failureMessage } from "./run-sync";

/** Read steps a day may take: at the default step, 1,000 million rows, far past the target's 13 million a day. */
const MAX_READ_STEPS = 1_000;

/**
 * Days a write step writes: one, as its read steps read one day's reports. A report too long for
 * an invocation comes with conversions in proportion (130,000 to 650,000 a day at the target, at 1%
 * to 5% of its 13 million visits), whose write takes a minute and more of D1's time at the top
 * (docs/click-storage.md "The CAKE pull in steps"): a step's time is its own.
 */
const STEP_CHUNK_DAYS = 1;

const STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "10 seconds", backoff: "exponential" }, timeout: "10 minutes" };

export interface CakePullParams extends CakePullRest {
  runId: number;
  /** The run's start: its days, and its postbacks' grace, are the ones the sync began with. */
  now: number;
  /** The last day the run asked for (the error says which days were saved up to it). */
  windowEnd: string;
  /** Rows of the click report a read step takes. */
  stepRows: number;
}

export interface CakePullOutput {
  status: "ok" | "error";
  rowsFetched: number;
  rowsUpserted: number;
  error: string | null;
}

/** Runs a step, or a stand-in for one (tests run the steps without the engine). */
export type StepRunner = Pick<WorkflowStep, "do">;

/**
 * The pull's steps. `http` is for the tests' fakes; a Workflow's fetch is the Worker's own. Every
 * step first moves the run's heartbeat, and stops the pull if the run is no longer running.
 */
export async function runCakePull(step: StepRunner, env: Bindings, p: CakePullParams, http: HttpOptions = {}): Promise<CakePullOutput> {
  const db = createDb(env.DB);
  let rowsFetched = p.rowsFetched;
  let rowsUpserted = p.rowsUpserted;
  let savedFrom = p.savedFrom;
  // What a failing step's own error says, as the sync says it (ExternalApiError's message, or
  // "Saving ... failed"): the engine hands the run a copy of the error, without its class.
  let failure: string | null = null;
  const said = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      const result = await work();
      failure = null;
      return result;
    } catch (err) {
      failure = err instanceof NonRetryableError ? err.message : failureMessage("cake", err);
      throw err;
    }
  };
  const parts = async () => {
    if (!(await beatRun(db, p.runId, Date.now()))) throw new NonRetryableError(`the CAKE run ${p.runId} is no longer running`);
    const { report_timezone: timeZone } = await readSettings(db);
    const { config, problems } = cakeSetup(env, timeZone);
    if (!config) throw new NonRetryableError(`CAKE is not configured: ${problems.join("; ")}`);
    return { db, config, http, runId: p.runId, now: p.now, ...cakeRunParts(db, env, p.now) };
  };
  /** A report of the chunk read in steps, each from the row the last one stopped at. */
  const readInSteps = async (
    report: string,
    chunk: DayRange,
    name: (fromRow: number) => string,
    read: (fromRow: number) => Promise<{ fetched: number; next: number | null }>,
  ) => {
    for (let n = 1, fromRow = 0; ; n++) {
      if (n > MAX_READ_STEPS) throw new NonRetryableError(`CAKE's ${report} of ${chunk.start} to ${chunk.end} went past ${MAX_READ_STEPS} steps; stopped`);
      const done = await step.do(name(fromRow), STEP, () => said(() => read(fromRow)));
      rowsFetched += done.fetched;
      if (done.next === null) return;
      fromRow = done.next;
    }
  };
  try {
    for (const chunk of cakeChunks(p.days, STEP_CHUNK_DAYS)) {
      await readInSteps(
        "click report",
        chunk,
        (fromRow) => `read ${chunk.start} to ${chunk.end} from row ${fromRow + 1}`,
        async (fromRow) => readCakeStep(await parts(), chunk, fromRow, p.stepRows),
      );
      await readInSteps(
        "conversions report",
        chunk,
        (fromRow) => `read the conversions of ${chunk.start} to ${chunk.end} from row ${fromRow + 1}`,
        async (fromRow) => readConversionsStep(await parts(), chunk, fromRow, conversionStepRows(p.stepRows)),
      );
      const written = await step.do(`write ${chunk.start} to ${chunk.end}`, STEP, () => said(async () => writeCakeStep(await parts(), chunk)));
      rowsUpserted += written.rowsUpserted;
      savedFrom = chunk.start;
    }
    await step.do("close", STEP, () => close(db, p.runId, { status: "ok", rowsFetched, rowsUpserted, error: null }));
    return { status: "ok", rowsFetched, rowsUpserted, error: null };
  } catch (err) {
    const message = failure ?? (err instanceof NonRetryableError ? err.message : failureMessage("cake", err));
    const error = savedFrom === null ? message : `${message} (the days from ${savedFrom} to ${p.windowEnd} were saved before that)`;
    await step.do("close with the error", STEP, () => close(db, p.runId, { status: "error", rowsFetched, rowsUpserted, error }));
    return { status: "error", rowsFetched, rowsUpserted, error };
  }
}

async function close(db: Db, runId: number, result: { status: "ok" | "error"; rowsFetched: number; rowsUpserted: number; error: string | null }) {
  await dropPulledRows(db, runId);
  await closeRun(db, runId, { ...result, finishedAt: Date.now() });
  return result.status;
}

export class CakePullWorkflow extends WorkflowEntrypoint<Bindings, CakePullParams> {
  override async run(event: Readonly<WorkflowEvent<CakePullParams>>, step: WorkflowStep): Promise<CakePullOutput> {
    return runCakePull(step, this.env, event.payload);
  }
}
