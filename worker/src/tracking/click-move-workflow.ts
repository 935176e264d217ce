/**
 * ClickMoveWorkflow: one run of the move of D1's clicks into the legacy objects
 * (tracking/click-move.ts), a step of MOVE_STEP clicks at a time, each step retried on its own
 * with backoff. A run ends when a step has nothing to do (D1 holds no more clicks to move, or the
 * move waits for the click rollup) or after MOVE_RUN_STEPS steps; the shard-days cron starts the
 * next one while clicks are left (`carryMoveOn`). Every step starts from the point D1 recorded, so
 * a run stopped anywhere (a deploy, a failed step given up on) loses and repeats nothing.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import type { Bindings } from "../env";
import { createDb } from "../middleware/database";
import { moveClicksStep } from "./click-move";

/** Steps a run takes at most, well inside a Workflow instance's 10,000 (docs/click-storage.md "Cloudflare's limits and prices"). */
export const MOVE_RUN_STEPS = 1_000;

const STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "10 seconds", backoff: "exponential" }, timeout: "5 minutes" };

/** A run takes no parameters: where the move stands is D1's. */
export type MoveRunParams = Record<string, never>;

export interface MoveRunOutput {
  steps: number;
  moved: number;
  /** Clicks left in D1: their legacy object holds another click under the id. */
  kept: number;
  point: number;
  /** Why the run stopped before MOVE_RUN_STEPS steps. */
  idle: string | null;
}

export class ClickMoveWorkflow extends WorkflowEntrypoint<Bindings, MoveRunParams> {
  override async run(_event: Readonly<WorkflowEvent<MoveRunParams>>, step: WorkflowStep): Promise<MoveRunOutput> {
    const db = createDb(this.env.DB);
    const out: MoveRunOutput = { steps: 0, moved: 0, kept: 0, point: 0, idle: null };
    while (out.steps < MOVE_RUN_STEPS) {
      const result = await step.do(`move ${out.steps + 1}`, STEP, async (ctx) => {
        try {
          return await moveClicksStep(db, this.env.CLICK_SHARDS, { now: Date.now() });
        } catch (err) {
          console.error(`click-move: step ${out.steps + 1} failed (try ${ctx.attempt}): ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        }
      });
      out.steps++;
      out.moved += result.moved;
      out.kept += result.kept;
      out.point = result.point;
      if ("idle" in result) {
        out.idle = result.idle;
        break;
      }
    }
    console.log(
      `click-move: ${out.moved} clicks moved in ${out.steps} steps${out.kept ? ` (${out.kept} kept in D1)` : ""}, point ${out.point}${out.idle ? `; ${out.idle}` : ""}`,
    );
    return out;
  }
}
