/**
 * The move of D1's clicks into the legacy objects, as
 * docs/click-storage.md "Moving the existing clicks" describes it: once new clicks go to the
 * shard-day objects, the clicks D1 still holds, whose old ids name no shard-day, are moved a step
 * at a time into LEGACY_SHARDS objects of the shard-day class, chosen by the id
 * (tracking/click-id.ts `legacyPlace`), so an old id is still one lookup in one object. Run by
 * ClickMoveWorkflow (tracking/click-move-workflow.ts), which the shard-days cron starts
 * (`carryMoveOn`).
 *
 * The switch (`startClickMove`) records the move in D1's `click_moves` and gives the legacy
 * objects a row in `click_shard_days` (day LEGACY_DAY). From then on:
 * - an exit of an old id goes to its legacy object, which keeps it until the move brings its
 *   click (tracking/click-queue.ts `writeExits`), so no exit is written to a D1 row already copied;
 * - a lookup of an old id asks its legacy object, then D1 (then the object again: the click may
 *   have moved between the two);
 * - every reader of a range asks the legacy objects beside D1 and the shard-days once they hold
 *   clicks of it, each only up to the recorded point (tracking/click-log.ts `shardPlacesOf`): a
 *   step's copies past it are still D1's.
 *
 * A step (`moveClicksStep`) takes the next MOVE_STEP D1 clicks by id past the recorded point, with
 * their exits, writes each legacy object its share (a click there already is left as it is), checks
 * every click is held, then in one D1 batch records the new point, sets the legacy objects' rollup
 * watermarks to it, copies the clicks CAKE reported into `attributed_clicks` and deletes the clicks
 * from D1. A step cut off anywhere runs again from the recorded point and changes nothing twice, so
 * the move can stop and resume at any step. A click whose legacy object holds a different click
 * under its id (no path writes one; the check guards the move against it) stays in D1 with its
 * exits, where it was counted and is read, and is recorded in `click_moves.kept`: the move goes on
 * past it rather than stopping for good.
 *
 * Counted once: D1's rollup counted every click moved (a step takes only clicks up to its
 * watermark, and waits until its exit watermark has passed the switch), so the legacy objects'
 * watermarks stand at the point, and an exit D1 counted is marked in the object's `counted_exits`;
 * an exit that waited in its object is counted there. After a rollup rebuild the legacy objects
 * count their clicks up to the point from the start, and the move waits for that before its next
 * step. The rollup's anchor moves too: from the switch D1 hands out no id again
 * (db/queries/clicks.ts `insertClicksOnce`), so a missing anchor is no sign of a reused id
 * (db/queries/click-rollup.ts `anchorHolds`).
 */
import { eq, sql } from "drizzle-orm";
import { readRollupState } from "../db/queries/click-rollup";
import { rawBatch } from "../db/raw-batch";
import { clickMoves, clicks, clickShardDays, landerClicks } from "../db/schema";
import type { Bindings, Db } from "../env";
import { INSERTED, type ExitRecord } from "../db/queries/clicks";
import { offsetSpans } from "../lib/calendar-days";
import { clickDayOf, clickDayStart, LEGACY_DAY, LEGACY_SHARDS, legacyPlace, shardName } from "./click-id";
import type { MovedClick } from "./click-shard";
import { VISITOR_COLUMNS } from "./attributed-clicks";
import { forgetShardCounts } from "./shard-days";

/** Clicks a step moves: 14 million clicks (D1's 10 GB) are 2,800 steps. */
export const MOVE_STEP = 5_000;

/**
 * How long after the switch a consumer may still write an exit to D1: it learns of the move
 * through its isolate's shard counts, read at most SHARD_DAYS_TTL_MS (30 s) before, and its batch
 * may take a while. The move copies nothing before D1's rollup has counted the exits up to then.
 */
export const MOVE_SETTLE_MS = 2 * 60 * 1000;

export type ClickMove = typeof clickMoves.$inferSelect;

const MOVE_ID = 1;

/** A click's columns but its rowid, by name: D1's `clicks` and `attributed_clicks` hold the same ones. */
const CLICK_COLUMNS = sql.raw(INSERTED.map(([, c]) => `"${c.name}"`).join(", "));
/** The same read from `clicks` as a copy keeps them: the visitor's columns null (tracking/attributed-clicks.ts). */
const COPIED_VALUES = sql.raw(
  INSERTED.map(([key, c]) => ((VISITOR_COLUMNS as readonly string[]).includes(key) ? `null as "${c.name}"` : `"${c.name}"`)).join(", "),
);

/**
 * The time zone's offsets over the UTC days of clicks moved from `fromMs` to `toMs`: what a legacy
 * object's rollup step counts over (jobs/roll-up-clicks.ts, and the Stats tail: stats/shard-tail.ts).
 */
export const legacySpans = (fromMs: number, toMs: number, timeZone: string) =>
  offsetSpans(clickDayStart(clickDayOf(fromMs)), clickDayStart(clickDayOf(toMs) + 1), timeZone);

export async function readClickMove(db: Db): Promise<ClickMove | null> {
  return (await db.select().from(clickMoves).where(eq(clickMoves.id, MOVE_ID)).get()) ?? null;
}

/** The switch, once: the move recorded and the legacy objects given their row (a repeat changes nothing). */
export async function startClickMove(db: Db, now: number): Promise<ClickMove> {
  await db.batch([
    db.insert(clickMoves).values({ id: MOVE_ID, startedAt: now, updatedAt: now }).onConflictDoNothing(),
    db.insert(clickShardDays).values({ day: LEGACY_DAY, shards: LEGACY_SHARDS, createdAt: now }).onConflictDoNothing(),
  ]);
  forgetShardCounts();
  return (await readClickMove(db))!;
}

/** What a step did: moved clicks up to `point` (and left `kept` of them in D1), or nothing, and why. */
export type MoveStep = { moved: number; kept: number; point: number } | { moved: 0; kept: 0; point: number; idle: string };

const idle = (point: number, why: string): MoveStep => ({ moved: 0, kept: 0, point, idle: why });

/** The condition of a step's D1 batch: the point, D1's rollup past the clicks, the legacy objects' watermarks at the point. */
const stepHolds = (point: number, newPoint: number) => sql`
  (select point from click_moves where id = ${MOVE_ID}) = ${point}
  and (select click_watermark from click_rollup_state where id = 1) >= ${newPoint}
  and (select count(*) from click_shard_rollups where day = ${LEGACY_DAY} and click_watermark = ${point}) = ${point === 0 ? sql`(select count(*) from click_shard_rollups where day = ${LEGACY_DAY})` : LEGACY_SHARDS}`;

/**
 * One step of the move (see the module comment): at most `limit` clicks. Idle, moving nothing,
 * when the move has not started, D1's rollup has not counted the exits past the switch yet, the
 * legacy objects are being counted again after a rebuild, or D1 holds nothing more to move.
 * Throws when an object fails (the step is tried again). A click its legacy object holds another
 * click's id for stays in D1 (see the module comment).
 */
export async function moveClicksStep(db: Db, shards: Bindings["CLICK_SHARDS"], { now, limit = MOVE_STEP }: { now: number; limit?: number }): Promise<MoveStep> {
  const [move, state] = await Promise.all([readClickMove(db), readRollupState(db)]);
  if (!move) return idle(0, "the move has not started");
  const { point } = move;
  const [legacy] = await db.select({ emptiedAt: clickShardDays.emptiedAt }).from(clickShardDays).where(eq(clickShardDays.day, LEGACY_DAY));
  if (legacy?.emptiedAt != null) return idle(point, "the retention has emptied the legacy objects: D1 keeps its clicks");
  if (!state || state.exitWatermark < move.startedAt + MOVE_SETTLE_MS) return idle(point, "the click rollup has not counted D1's exits up to the switch yet");
  const marks = await db.all<{ watermark: number; exits: number }>(
    sql`select click_watermark as watermark, exit_watermark as exits from click_shard_rollups where day = ${LEGACY_DAY}`,
  );
  if (point > 0 && (marks.length < LEGACY_SHARDS || marks.some((m) => m.watermark !== point)))
    return idle(point, "the click rollup is counting the legacy objects again");
  // Up to the rollup's watermark: counted.
  const rows: MovedClick[] = await db
    .select()
    .from(clicks)
    .where(sql`${clicks.id} > ${point} and ${clicks.id} <= ${state.clickWatermark}`)
    .orderBy(clicks.id)
    .limit(limit);
  const last = rows.at(-1);
  if (!last) return idle(point, "D1 holds no more clicks to move");
  const newPoint = last.id;
  const exits = await db
    .select()
    .from(landerClicks)
    .where(sql`${landerClicks.clickId} in (select ${clicks.clickId} from ${clicks} where ${clicks.id} > ${point} and ${clicks.id} <= ${newPoint})`);

  const groups = new Map<string, { rows: MovedClick[]; exits: ExitRecord[]; counted: string[] }>();
  const groupOf = (clickId: string) => {
    const name = shardName(legacyPlace(clickId));
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { rows: [], exits: [], counted: [] }));
    return group;
  };
  for (const row of rows) {
    const group = groupOf(row.clickId);
    group.rows.push(row);
    // D1's rollup counted this exit (its watermark is past the switch): the object does not count it again.
    if (row.exitedAt !== null && row.exitedAt <= state.exitWatermark) group.counted.push(row.clickId);
  }
  for (const e of exits)
    groupOf(e.clickId).exits.push({ clickId: e.clickId, offerId: e.offerId, at: e.clickedAt, ipAddress: e.ipAddress, userAgent: e.userAgent });

  // An exit that waited in its legacy object is counted there: past the object's exit watermark,
  // which the rollup may have moved past it meanwhile (and no earlier than now, which it may reach
  // before this step's batch).
  const countedFrom = Math.max(now, ...marks.map((m) => m.exits + 1));
  const results = await Promise.all(
    [...groups].map(async ([name, g]) => ({ name, ...(await shards.getByName(name).move(g.rows, g.exits, g.counted, countedFrom)) })),
  );
  const kept = results.flatMap((r) => r.conflicts);
  if (kept.length)
    console.warn(
      `click-move: ${kept.length} clicks stay in D1, their legacy object holding another click under the id: ${results.flatMap((r) => r.conflicts.map((id) => `${id} (${r.name})`)).join(", ")}`,
    );
  const held = results.reduce((sum, r) => sum + r.held, 0);
  if (held + kept.length !== rows.length) throw new Error(`the legacy objects hold ${held} of the ${rows.length} clicks moved (${kept.length} kept in D1)`);
  const keptIds = JSON.stringify(kept);

  const times = rows.map((r) => r.clickedAt);
  const [fromMs, toMs] = [Math.min(...times), Math.max(...times)];
  // The batch's own statements follow its update only: a stale copy of this step (run twice at once)
  // writes another token, and finds the point moved.
  const token = crypto.randomUUID();
  const moved = sql`(select step_token from click_moves where id = ${MOVE_ID}) = ${token}`;
  await rawBatch(db, [
    sql`update click_moves set point = ${newPoint}, moved = moved + ${rows.length - kept.length}, kept = kept + ${kept.length}, step_token = ${token},
      from_ms = min(coalesce(from_ms, ${fromMs}), ${fromMs}), to_ms = max(coalesce(to_ms, ${toMs}), ${toMs}), updated_at = ${now}
      where id = ${MOVE_ID} and ${stepHolds(point, newPoint)}`,
    sql`insert into click_shard_rollups (day, shard, click_watermark, exit_watermark, rolled_at)
      select ${LEGACY_DAY}, value, ${newPoint}, 0, ${now} from json_each(${JSON.stringify(Array.from({ length: LEGACY_SHARDS }, (_, i) => i))})
      where ${moved}
      on conflict (day, shard) do update set click_watermark = excluded.click_watermark`,
    // The clicks CAKE reported or converted keep a copy in D1, as a shard-day's do
    // (tracking/attributed-clicks.ts): the attribution of their days, rebuilt later, still finds them.
    sql`insert into attributed_clicks (${CLICK_COLUMNS}) select ${COPIED_VALUES} from clicks k
      where k.id > ${point} and k.id <= ${newPoint} and ${moved} and k.click_id not in (select value from json_each(${keptIds}))
        and (exists (select 1 from cake_stats s where s.subid2 <> '' and s.subid2 = k.click_id)
          or exists (select 1 from cake_conversions c where c.subid2 <> '' and c.subid2 = k.click_id))
      on conflict (click_id) do nothing`,
    // Their exits (lander_clicks) go with them: the foreign key cascades. The kept ones stay.
    sql`delete from clicks where id > ${point} and id <= ${newPoint} and ${moved} and click_id not in (select value from json_each(${keptIds}))`,
  ]);
  const after = await readClickMove(db);
  if (after?.stepToken !== token) return idle(after?.point ?? point, "the step's clicks were not recorded: the rollup or another step moved first");
  return { moved: rows.length - kept.length, kept: kept.length, point: newPoint };
}

/** Whether D1 holds clicks the move may take now (up to the rollup's watermark, past the point). */
export async function clicksToMove(db: Db, move: ClickMove): Promise<boolean> {
  const [row] = await db.all<{ any: number }>(sql`
    select exists (select 1 from clicks where id > ${move.point}
      and id <= coalesce((select click_watermark from click_rollup_state where id = 1), 0)) as "any"`);
  return row?.any === 1;
}

/**
 * What the shard-days cron does for the move: the switch, once new clicks go to the shard-days
 * (today has a count) while D1 holds clicks; then, whenever D1 holds clicks to move and no run is
 * going, a new ClickMoveWorkflow run. Returns the run started, if any.
 */
export async function carryMoveOn(
  db: Db,
  env: Pick<Bindings, "MOVE_WORKFLOW">,
  { now, todayHasShards }: { now: number; todayHasShards: boolean },
): Promise<string | null> {
  let move = await readClickMove(db);
  if (!move) {
    if (!todayHasShards) return null;
    const [any] = await db.all<{ any: number }>(sql`select exists (select 1 from clicks) as "any"`);
    if (any?.any !== 1) return null;
    move = await startClickMove(db, now);
  }
  if (move.runId && (await isGoing(env.MOVE_WORKFLOW, move.runId))) return null;
  if (!(await clicksToMove(db, move))) return null;
  const runId = `click-move-${now}`;
  const instance = await env.MOVE_WORKFLOW.create({ id: runId, params: {} });
  (instance as Partial<Disposable>)[Symbol.dispose]?.();
  await db.update(clickMoves).set({ runId, updatedAt: now }).where(eq(clickMoves.id, MOVE_ID));
  return runId;
}

const GOING = new Set(["queued", "running", "paused", "waiting", "waitingForPause"]);

async function isGoing(workflow: Bindings["MOVE_WORKFLOW"], id: string) {
  try {
    const instance = await workflow.get(id);
    try {
      return GOING.has((await instance.status()).status);
    } finally {
      (instance as Partial<Disposable>)[Symbol.dispose]?.();
    }
  } catch {
    return false;
  }
}
