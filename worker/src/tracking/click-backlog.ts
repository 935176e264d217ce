/**
 * How far behind the clicks queue's consumer is (docs/tracking.md "Clicks through a queue"), from
 * what it recorded in D1 (db/queries/click-pipeline.ts). Three things can say clicks are delayed:
 * - `lag`: the last stored batch waited longer than the threshold (measured);
 * - `failing`: the last attempt failed and nothing was stored since; the wait is the failed
 *   batch's oldest message's age, and grows (measured, when D1 still took that record);
 * - `silent`: nothing stored for longer than the threshold although clicks were coming in just
 *   before. When D1 refuses every write nothing else can be recorded, so this is the only sign;
 *   it is an inference (a campaign paused at that moment looks the same), so the Click Log words
 *   it as a possibility and the alert does not fire on it.
 */
import { readClicksPipeline, type ClicksPipelineRecord } from "../db/queries/click-pipeline";
import { clicksBetween } from "./click-log";
import type { Stores } from "./click-queue";

/** A batch's lag speaks for the queue this long after it was stored (the backlog alert's cron runs every 15 minutes). */
export const LAG_RECENT_MS = 15 * 60_000;
/** The window before the last write whose clicks tell whether clicks were flowing. */
const FLOW_WINDOW_MS = 60_000;
/** Nothing stored while at least this many clicks were to be expected at the rate before: silent. */
const EXPECTED_CLICKS = 10;

export type DelayReason = "lag" | "failing" | "silent";

export interface ClicksPipelineState {
  delayed: boolean;
  /** What the delay figure is; null when nothing has been recorded yet. */
  reason: DelayReason | null;
  /** How long the newest clicks may take to appear, as best known (0: on time). */
  delayMs: number;
  thresholdMs: number;
  lastStoredAt: number | null;
  /** For `silent`: the clicks a minute that came in before the last write. */
  clicksPerMinuteBefore: number | null;
}

/** The measured delay only (lag or failing): what the alert fires on. */
export function measuredDelay(r: ClicksPipelineRecord, now: number): { reason: DelayReason; delayMs: number } | null {
  if (r.failedAt !== undefined && r.failedAt > (r.storedAt ?? 0)) return { reason: "failing", delayMs: Math.max(0, now - (r.waitingSince ?? r.failedAt)) };
  if (r.storedAt !== undefined && r.lagMs !== undefined && now - r.storedAt <= LAG_RECENT_MS) return { reason: "lag", delayMs: Math.max(0, r.lagMs) };
  return null;
}

export async function clicksPipelineState(stores: Stores, now: number, thresholdMs: number): Promise<ClicksPipelineState> {
  const { db } = stores;
  const r = await readClicksPipeline(db);
  const lastStoredAt = r.storedAt ?? null;
  const measured = measuredDelay(r, now);
  const state: ClicksPipelineState = {
    delayed: measured !== null && measured.delayMs > thresholdMs,
    reason: measured?.reason ?? null,
    delayMs: measured?.delayMs ?? 0,
    thresholdMs,
    lastStoredAt,
    clicksPerMinuteBefore: null,
  };
  if (lastStoredAt === null || state.reason === "failing") return state;
  const silence = now - lastStoredAt;
  if (silence <= thresholdMs || silence <= state.delayMs) return state;
  const before = await clicksBetween(stores, lastStoredAt - FLOW_WINDOW_MS, lastStoredAt);
  if ((before * silence) / FLOW_WINDOW_MS < EXPECTED_CLICKS) return state;
  return {
    ...state,
    delayed: true,
    reason: "silent",
    delayMs: silence,
    clicksPerMinuteBefore: Math.round((before * 60_000) / FLOW_WINDOW_MS),
  };
}
