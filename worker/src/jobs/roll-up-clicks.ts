import { anchorHolds, chunkEnd, readRollupState, resetRollup, rollUpStep, type RollupState, type RollupTarget } from "../db/queries/click-rollup";
import { archivedFrontier } from "../db/queries/click-archives";
import { reportTimeZone } from "../db/queries/settings";
import type { Bindings, Db } from "../env";
import { applyShardRollup, shardRollupMarks, type ShardWatermarks } from "../db/queries/shard-rollup";
import { offsetSpans, type OffsetSpan } from "../lib/calendar-days";
import { clickDayOf, clickDayStart, LEGACY_DAY, legacyPlaces, shardName, type ClickPlace } from "../tracking/click-id";
import { legacySpans, readClickMove } from "../tracking/click-move";
import { shardCounts, shardDaysFrom } from "../tracking/shard-days";
import type { Job } from "./index";

/**
 * Exits are stamped when the visitor leaves but written after the answer, once their click's
 * batch is stored, with retries: a few seconds late at worst. The rollup takes exits only up to
 * this long ago, so none is stamped inside what it already counted; the report reads the newer
 * ones from clicks.
 */
export const EXIT_LAG_MS = 5 * 60 * 1000;
/** Clicks per atomic step: a step's group-by stays well inside D1's per-query time limit. */
export const ROLLUP_CHUNK = 100_000;
/** A run stops taking new steps after this long; the next run carries on from its watermark. */
export const ROLLUP_BUDGET_MS = 60_000;

export interface RollupRun {
  /** The rollup was emptied and started over (first run, time zone changed, click ids reused). */
  rebuilt: boolean;
  steps: number;
  state: RollupState;
  /** Whether clicks remain past the watermark (the budget ran out, or another run moved it). */
  behind: boolean;
}

/**
 * Brings click_daily_stats up to date: rebuilt from scratch when its days are another time
 * zone's (the setting changed) or its clicks are not the table's any more (except the archived
 * days, which nothing could rebuild), then moved forward a step at a time. Safe to run again at
 * any moment, and alongside another run.
 */
export async function rollUpClicks(
  db: Db,
  { now, chunk = ROLLUP_CHUNK, budgetMs = ROLLUP_BUDGET_MS }: { now: number; chunk?: number; budgetMs?: number },
): Promise<RollupRun> {
  const started = Date.now();
  const timeZone = await reportTimeZone(db);
  const stored = await readRollupState(db);
  const rebuilt = !stored || stored.timeZone !== timeZone || !(await anchorHolds(db, stored));
  // Days archived by the retention job keep their rows; the rollup counts only after them (and
  // the exits of their clicks), so a rebuild keeps the exit watermark those rows were counted to.
  const frontier = await archivedFrontier(db);
  const keptExits = frontier ? (stored?.exitWatermark ?? 0) : 0;
  let state: RollupState = stored && !rebuilt ? stored : { timeZone, clickWatermark: 0, anchorClickId: null, exitWatermark: keptExits };
  if (rebuilt) await resetRollup(db, timeZone, now, keptExits);
  const exitWatermark = Math.max(state.exitWatermark, now - EXIT_LAG_MS);
  let steps = 0;
  for (;;) {
    const end = await chunkEnd(db, state.clickWatermark, chunk);
    const target: RollupTarget = {
      clickWatermark: end?.id ?? state.clickWatermark,
      anchorClickId: end?.clickId ?? state.anchorClickId,
      exitWatermark,
    };
    if (target.clickWatermark === state.clickWatermark && target.exitWatermark === state.exitWatermark) {
      return { rebuilt, steps, state, behind: false };
    }
    if (!(await rollUpStep(db, state, target, now, frontier))) {
      // Another run moved the watermarks first; it carries on from there.
      return { rebuilt, steps, state, behind: true };
    }
    state = { ...state, ...target };
    steps++;
    if (Date.now() - started > budgetMs) return { rebuilt, steps, state, behind: true };
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ShardRollupRun {
  /** Shard-day objects asked, and steps applied. */
  asked: number;
  steps: number;
  /** Whether some object still has clicks past its watermark (the budget ran out, or another run moved it). */
  behind: boolean;
}

/**
 * Brings the rollups up to date with the shard-days' clicks
 * (docs/click-storage.md "The rollups and the reports"), after rollUpClicks has brought them up
 * to date with D1's (and rebuilt them, which starts every shard-day over): today's and
 * yesterday's objects every run, each older one once a day (an exit on an old click lands in
 * that click's object). Each object is asked a step at a
 * time and D1 applies each step atomically (db/queries/shard-rollup.ts). Older days are asked
 * until the retention has archived and emptied them (retention/shard-days.ts), which it does only
 * once their objects are counted. The legacy objects, holding the clicks moved from D1
 * (tracking/click-move.ts), are asked every run, counting no click past the move's point.
 */
export async function rollUpShardDays(
  db: Db,
  shards: Bindings["CLICK_SHARDS"],
  { now, chunk = ROLLUP_CHUNK, budgetMs = ROLLUP_BUDGET_MS }: { now: number; chunk?: number; budgetMs?: number },
): Promise<ShardRollupRun> {
  const started = Date.now();
  const run: ShardRollupRun = { asked: 0, steps: 0, behind: false };
  const state = await readRollupState(db);
  if (!state) return run;
  const today = clickDayOf(now);
  // Every day not emptied yet, the kept ones and those past them that wait for the retention:
  // an exit in a day's last kept hours is counted before its objects may be emptied.
  const days = await shardDaysFrom(db, 0);
  const [marks, frontier, move] = await Promise.all([shardRollupMarks(db, { fromDay: days[0]?.day ?? today }), archivedFrontier(db), readClickMove(db)]);
  const toExit = now - EXIT_LAG_MS;
  /** Counts an object a step at a time from its watermarks until it has no more, or the budget runs out. */
  const rollUpObject = async (place: ClickPlace, spans: OffsetSpan[], moved?: { point: number }) => {
    run.asked++;
    const object = shards.getByName(shardName(place));
    const mark = marks.get(`${place.day}/${place.shard}`);
    let from: ShardWatermarks = { clickWatermark: mark?.clickWatermark ?? 0, exitWatermark: mark?.exitWatermark ?? 0 };
    for (;;) {
      const exitWatermark = Math.max(from.exitWatermark, toExit);
      // Once days are archived, their clicks are counted for good and the days after them are
      // dated after them, in every object (a report day west of UTC reaches into the next UTC day).
      const counts = await object.rollUp({ ...from, toExit: exitWatermark, chunk, spans, archived: frontier, ...(moved ? { moved } : {}) });
      const to = { clickWatermark: counts.toClick, exitWatermark };
      if (!(await applyShardRollup(db, place, from, to, counts, state.timeZone, now))) {
        // Another run moved this object's watermarks first; it carries on from there.
        run.behind = true;
        return;
      }
      run.steps++;
      from = to;
      if (!counts.more) return;
      if (Date.now() - started > budgetMs) {
        run.behind = true;
        return;
      }
    }
  };
  for (const { day, shards: count } of days) {
    if (day > today) break;
    const spans = offsetSpans(clickDayStart(day), clickDayStart(day + 1), state.timeZone);
    const places = Array.from({ length: count }, (_, shard) => ({ day, shard }));
    const due = places.filter(({ shard }) => {
      const mark = marks.get(`${day}/${shard}`);
      return day >= today - 1 || !mark || mark.rolledAt <= now - DAY_MS;
    });
    if (Date.now() - started > budgetMs) {
      run.behind ||= due.length > 0;
      continue;
    }
    await Promise.all(due.map((place) => rollUpObject(place, spans)));
  }
  // The legacy objects (tracking/click-move.ts), every run while they hold clicks: their exits
  // come as any old click's do, and after a rebuild the move waits for their count.
  const legacy = move && (await shardCounts(db, now)).has(LEGACY_DAY) ? move : null;
  if (legacy && legacy.fromMs !== null && legacy.toMs !== null) {
    const spans = legacySpans(legacy.fromMs, legacy.toMs, state.timeZone);
    if (Date.now() - started > budgetMs) run.behind = true;
    else await Promise.all(legacyPlaces().map((place) => rollUpObject(place, spans, { point: legacy.point })));
  }
  return run;
}

export const rollUpClicksJob: Job = {
  name: "roll-up-clicks",
  async run({ db, env, now }) {
    const run = await rollUpClicks(db, { now });
    if (run.rebuilt) console.log(`roll-up-clicks: rebuilt for ${run.state.timeZone}, ${run.steps} steps`);
    if (run.behind) console.log(`roll-up-clicks: stopped at click ${run.state.clickWatermark}; the next run continues`);
    const shardRun = await rollUpShardDays(db, env.CLICK_SHARDS, { now });
    if (shardRun.behind)
      console.log(`roll-up-clicks: shard-days not all counted (${shardRun.steps} steps over ${shardRun.asked} objects); the next run continues`);
  },
};
