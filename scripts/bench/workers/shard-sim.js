// Trackyard's Worker with the routes scripts/bench/shard-days-40.mjs drives its simulated days
// through. The cron's own pieces run with the simulated time; only the clicks are generated in
// bulk inside each shard-day object instead of coming through /r/ and the queue:
//   GET /__bench/sim/generate?day=D&shard=S&count=N  N clicks of UTC day D into that object
//   GET /__bench/sim/wake             nothing: the bench's request every few seconds that wakes a
//                                     request the local runtime left waiting (scripts/lib/shard-sim.mjs)
//   GET /__bench/sim/cron?now=T       the cron's shard-day counts and a pass of the click rollup
//                                     at T (D1's and the objects'), and whether it is still behind
//   GET /__bench/sim/retention?now=T  one tick of the retention job at T (a run started, going,
//                                     or why none), with CLICKS_RETENTION_DAYS
//   GET /__bench/sim/run?id=I         the archive run's Workflow status
//   GET /__bench/sim/sizes            D1's size, each shard-day not emptied: its objects' bytes, and
//                                     the conversions in D1 (the ledger, TikTok's sends) and in R2
//   GET /__bench/sim/signed?day=D&count=N  N of the day's clicks given real layout-1 ids (with their
//                                     check, made as /r/ makes them), spread over its objects: the
//                                     ids a postback can look up (scripts/bench/click-log-scale.mjs)
//   GET /__bench/sim/attributed       the clicks copied into D1 for the attribution (found by lookups)
//   GET /__bench/sim/cake-ids?day=D   the ids of the day's clicks CAKE's report lists (2 in 5)
//   GET /__bench/sim/cake?now=T       the CAKE sync of the day at T, as the cron runs it (CAKE is
//                                     the project's fake, served by the bench), with D1's size before
//                                     and after and the click report rows the objects hold
//   GET /__bench/sim/cake-pull?now=T&stepRows=N  a manual CAKE sync of the day at T with
//                                     CAKE_PULL_STEP_ROWS=N: finished, or running in CakePullWorkflow
//   GET /__bench/sim/cake-state?run=I&date=D  that sync's run, the CAKE rollup's sums of the date,
//                                     and the click report rows the objects hold (&only=run: the run)
//   GET /__bench/sim/cake-d1?day=D    the baseline: the same day's rows written as before they went
//                                     to the objects (every click copied, every row in cake_stats)
//                                     under a date of their own, with D1's size before and after
//   GET /__bench/sim/conversions-write?day=D&n=N&date=X&from=F&run=R&now=T  N conversions of day
//                                     D's reported clicks, dated X: staged a page at a time as a
//                                     pull reads them, written by the pull's write (the days from F
//                                     rebuilt), the same write again, then handed on to TikTok and
//                                     the webhooks, each timed (scripts/bench/conversions-write.mjs)
//   GET /__bench/sim/move?now=T       the shard-days cron's part for the move of D1's clicks at T
//                                     (tracking/click-move.ts): the switch, or a new run started
//   GET /__bench/sim/move-step?now=T  one step of the move, as ClickMoveWorkflow runs it
//   GET /__bench/sim/move-state       where the move stands, D1's clicks left, the rollup's totals
//                                     (scripts/bench/click-move.mjs)
// Every route is a GET that can be repeated: wrangler dev retries a GET cut off by a restart of
// its local runtime (seen now and then under this load), and refuses any other method then.
// Only the bench runs this entry (wrangler dev with it as the script); the deployed Worker is
// worker/src/index.ts. Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";
import { ClickShard as StoreShard } from "../../../worker/src/tracking/click-shard.ts";
import { createDb } from "../../../worker/src/middleware/database.ts";
import { rollUpClicks, rollUpShardDays } from "../../../worker/src/jobs/roll-up-clicks.ts";
import { runRetention } from "../../../worker/src/retention/run-retention.ts";
import { clicksRetention } from "../../../worker/src/retention/config.ts";
import { clickDayOf, clickDayStart, newClickId, shardName } from "../../../worker/src/tracking/click-id.ts";
import { carryMoveOn, moveClicksStep, readClickMove } from "../../../worker/src/tracking/click-move.ts";
import { fixShardDays, shardCounts, shardDaysFrom, shardsPerDay } from "../../../worker/src/tracking/shard-days.ts";
import { applyCakePull, clearPulledConversions, dropPulledRows, stagePulledConversions } from "../../../worker/src/db/queries/cake.ts";
import { handOnConversions } from "../../../worker/src/sync/cake-sync.ts";
import { cakeRunParts, runSync } from "../../../worker/src/sync/run-sync.ts";
import { copyAttributedClicks } from "../../../worker/src/tracking/attributed-clicks.ts";
import { clickRowsSql } from "../../lib/click-days.mjs";

// wrangler.toml's [[workflows]] names this class: the entry must export it.
export { CakePullWorkflow, ClickArchiveWorkflow, ClickMoveWorkflow } from "../../../worker/src/index.ts";

/**
 * Rows per generating statement, and clicks per rollup step of an object: a few tenths of a
 * second each. Locally every object runs in the one workerd, and calls of seconds each, many at
 * once, left it unanswering long enough for wrangler dev to restart it mid-request.
 */
const CHUNK = 10_000;
/** The rollup's time per call (the cron's own budget is longer). */
const PASS_MS = 3_000;

/** The store's shard-day object, able to fill itself with a day of clicks (the bench's bulk generator). */
export class ClickShard extends StoreShard {
  /** `count` clicks over the UTC day from `start`, their ids in the shape of a layout-1 id naming `day` and `shard`. */
  generate(start, count, day, shard) {
    const place = (day % 4096).toString(16).padStart(3, "0") + shard.toString(16).padStart(2, "0");
    const clickId = `substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-81' || substr(h, 13, 2) || '-8${place.slice(0, 3)}-${place.slice(3)}' || substr(h, 15, 10)`;
    const statement = clickRowsSql({ start, count, clickId });
    // Each statement is atomic, so the clicks held say how far an earlier call got: a call
    // repeated after a restart of the local runtime carries on, and never writes a click twice.
    const held = this.ctx.storage.sql.exec("select count(*) as n from clicks").one().n;
    for (let from = held; from < count; from += CHUNK) this.ctx.storage.sql.exec(statement, from, Math.min(from + CHUNK, count) - 1);
    return this.ctx.storage.sql.databaseSize;
  }

  /**
   * Gives `ids.length` of its clicks without an exit (an exit's row is keyed by the click id) the
   * ids given, clicks spread over the day; returns how many it changed.
   */
  reId(ids) {
    const step = Math.max(1, Math.floor(this.ctx.storage.sql.exec("select count(*) as n from clicks").one().n / (ids.length * 2 + 1)));
    const rows = this.ctx.storage.sql.exec("select id from clicks where exited_at is null and id % ? = 0 order by id limit ?", step, ids.length).toArray();
    rows.forEach((r, i) => this.ctx.storage.sql.exec("update clicks set click_id = ? where id = ?", ids[i], r.id));
    return rows.length;
  }

  /** The ids of 2 in 5 of its clicks: those CAKE's click report lists in the simulation. */
  cakeIds() {
    return this.ctx.storage.sql
      .exec("select click_id from clicks where id % 5 < 2 order by id")
      .toArray()
      .map((r) => r.click_id);
  }

  /** CAKE's click report rows held here (tracking/cake-shards.ts). */
  cakeRows() {
    return this.ctx.storage.sql.exec("select count(*) as n from cake_clicks").one().n;
  }

  /** The object's bytes (SQLite's pages, as Cloudflare bills them), without counting rows. */
  bytes() {
    return this.ctx.storage.sql.databaseSize;
  }
}

/**
 * D1's size (as D1 reports it after a statement: its file, free pages included) and the rows of
 * the tables that grew with CAKE's click report: its rows (cake_stats) and the copies of the
 * clicks it reported (attributed_clicks).
 */
async function d1Held(env) {
  const result = await env.DB.prepare("select (select count(*) from cake_stats) as stats, (select count(*) from attributed_clicks) as copies").run();
  return { bytes: result.meta.size_after, rows: result.results[0].stats + result.results[0].copies };
}

/** The day's click ids CAKE's report lists, from each of its objects. */
async function cakeIds(env, day) {
  const shards = shardsPerDay(env.CLICK_SHARDS_PER_DAY).shards;
  const ids = await Promise.all(Array.from({ length: shards }, (_, shard) => env.CLICK_SHARDS.getByName(shardName({ day, shard })).cakeIds()));
  return ids.flat();
}

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const q = url.searchParams;
    const db = createDb(env.DB);
    if (url.pathname === "/__bench/sim/wake") return new Response(null, { status: 204 });
    if (url.pathname === "/__bench/sim/generate") {
      const day = Number(q.get("day"));
      const shard = Number(q.get("shard"));
      const bytes = await env.CLICK_SHARDS.getByName(shardName({ day, shard })).generate(clickDayStart(day), Number(q.get("count")), day, shard);
      return Response.json({ bytes });
    }
    if (url.pathname === "/__bench/sim/cron") {
      const now = Number(q.get("now"));
      const fixed = await fixShardDays(db, shardsPerDay(env.CLICK_SHARDS_PER_DAY).shards, now);
      // One pass, a few seconds at most: the bench calls again while it is behind.
      const own = await rollUpClicks(db, { now, budgetMs: PASS_MS });
      const objects = await rollUpShardDays(db, env.CLICK_SHARDS, { now, chunk: CHUNK, budgetMs: PASS_MS });
      return Response.json({ fixed, steps: own.steps + objects.steps, behind: own.behind || objects.behind });
    }
    if (url.pathname === "/__bench/sim/retention") {
      const days = clicksRetention(env.CLICKS_RETENTION_DAYS).days;
      return Response.json(await runRetention(db, env, { now: Number(q.get("now")), days }));
    }
    if (url.pathname === "/__bench/sim/run") {
      const instance = await (q.get("kind") === "move" ? env.MOVE_WORKFLOW : env.ARCHIVE_WORKFLOW).get(q.get("id"));
      return Response.json(await instance.status());
    }
    if (url.pathname === "/__bench/sim/move") {
      const now = Number(q.get("now"));
      const todayHasShards = ((await shardCounts(db, now)).get(clickDayOf(now)) ?? 0) > 0;
      return Response.json({ run: await carryMoveOn(db, env, { now, todayHasShards }) });
    }
    if (url.pathname === "/__bench/sim/move-step") {
      return Response.json(await moveClicksStep(db, env.CLICK_SHARDS, { now: Number(q.get("now")) }));
    }
    if (url.pathname === "/__bench/sim/move-state") {
      const left = await env.DB.prepare("select count(*) as n from clicks").first("n");
      const totals = await env.DB.prepare("select coalesce(sum(clicks), 0) as clicks, coalesce(sum(exits), 0) as exits from click_daily_stats").first();
      return Response.json({ move: await readClickMove(db), left, totals });
    }
    if (url.pathname === "/__bench/sim/signed") {
      const day = Number(q.get("day"));
      const shards = shardsPerDay(env.CLICK_SHARDS_PER_DAY).shards;
      const placed = await Promise.all(
        Array.from({ length: Number(q.get("count")) }, async (_, i) => {
          const place = { day, shard: i % shards };
          return { place, id: await newClickId(env.SESSION_SECRET, place) };
        }),
      );
      const changed = await Promise.all(
        Array.from({ length: shards }, (_, shard) =>
          env.CLICK_SHARDS.getByName(shardName({ day, shard })).reId(placed.filter((p) => p.place.shard === shard).map((p) => p.id)),
        ),
      );
      if (changed.reduce((a, b) => a + b, 0) !== placed.length) return new Response("too few clicks to give real ids", { status: 409 });
      // Spread over the objects in turn, so consecutive lookups ask different objects.
      return Response.json(placed.map((p) => p.id));
    }
    if (url.pathname === "/__bench/sim/attributed") {
      return Response.json({ copied: await env.DB.prepare("select count(*) as n from attributed_clicks").first("n") });
    }
    if (url.pathname === "/__bench/sim/cake-ids") {
      return Response.json(await cakeIds(env, Number(q.get("day"))));
    }
    if (url.pathname === "/__bench/sim/cake") {
      const now = Number(q.get("now"));
      const before = await d1Held(env);
      const run = await runSync({ db, env, now }, { source: "cake", trigger: "cron", days: 1 });
      const after = await d1Held(env);
      const days = await shardDaysFrom(db, 0);
      const held = await Promise.all(
        days.flatMap(({ day, shards }) => Array.from({ length: shards }, (_, shard) => env.CLICK_SHARDS.getByName(shardName({ day, shard })).cakeRows())),
      );
      return Response.json({ run, before, after, objectRows: held.reduce((a, b) => a + b, 0) });
    }
    if (url.pathname === "/__bench/sim/cake-pull") {
      // A manual sync of the day's CAKE report with CAKE_PULL_STEP_ROWS at `stepRows`: finished
      // here, or handed to CakePullWorkflow ("running"), whose run /__bench/sim/cake-state shows.
      const run = await runSync(
        { db, env: { ...env, CAKE_PULL_STEP_ROWS: q.get("stepRows") }, now: Number(q.get("now")) },
        { source: "cake", trigger: "manual", days: 1 },
      );
      return Response.json({ run });
    }
    if (url.pathname === "/__bench/sim/cake-state") {
      const run = await env.DB.prepare(
        "select status, rows_fetched as rowsFetched, rows_upserted as rowsUpserted, error, started_at as startedAt, finished_at as finishedAt from sync_runs where id = ?",
      )
        .bind(Number(q.get("run")))
        .first();
      // While the run goes on, only its row: asking the objects beside the Workflow's steps has
      // left the local runtime unanswering.
      if (q.get("only") === "run") return Response.json({ run });
      const figures = await env.DB.prepare(
        "select coalesce(sum(clicks), 0) as clicks, coalesce(sum(conversions), 0) as conversions, coalesce(sum(revenue_cents), 0) as revenueCents from cake_attributed_daily where date = ?",
      )
        .bind(q.get("date"))
        .first();
      const days = await shardDaysFrom(db, 0);
      const held = await Promise.all(
        days.flatMap(({ day, shards }) => Array.from({ length: shards }, (_, shard) => env.CLICK_SHARDS.getByName(shardName({ day, shard })).cakeRows())),
      );
      return Response.json({ run, figures, objectRows: held.reduce((a, b) => a + b, 0) });
    }
    if (url.pathname === "/__bench/sim/cake-d1") {
      // What the pull did before (sync/cake-sync.ts before the click rows went to the objects):
      // every reported click copied into attributed_clicks, every row into cake_stats, the
      // attribution rebuilt. Under a date no simulated day has, so the days' figures stay as they are.
      const ids = await cakeIds(env, Number(q.get("day")));
      const date = "2019-01-01";
      const before = await d1Held(env);
      await copyAttributedClicks(db, env, ids, Number(q.get("now")));
      const rows = ids.map((id, i) => ({ date, offerId: 1, offerName: "Offer", subid1: `mb${i % 6}`, subid2: id, subid3: "", clicks: 1 }));
      await applyCakePull(db, {
        runId: 1_000_000,
        now: Number(q.get("now")),
        pulled: { start: date, end: date },
        rebuild: { start: date, end: date },
        graceCutoff: 0,
        clicks: rows,
      });
      return Response.json({ rows: rows.length, before, after: await d1Held(env) });
    }
    if (url.pathname === "/__bench/sim/conversions-write") {
      const n = Number(q.get("n"));
      const date = q.get("date");
      const now = Number(q.get("now"));
      const ids = await cakeIds(env, Number(q.get("day")));
      const step = { runId: Number(q.get("run")), start: date, fromRow: 0 };
      const size = async () => (await env.DB.prepare("select 1").run()).meta.size_after;
      const before = await size();
      // Pages as CAKE sends them (10,000 rows), each staged as the pull stages a page.
      const t = Date.now();
      await clearPulledConversions(db, step);
      for (let from = 0; from < n; from += 10_000) {
        const page = [];
        for (let i = from; i < Math.min(n, from + 10_000); i++) {
          page.push({
            conversionId: `${date}-${i}`,
            date,
            offerId: 1,
            offerName: "Offer",
            subid1: `mb${i % 6}`,
            subid2: ids[i % ids.length],
            subid3: "",
            revenueCents: 500,
            disposition: "Approved",
            convertedAt: null,
          });
        }
        await stagePulledConversions(db, step, page);
      }
      const stageMs = Date.now() - t;
      const pull = { runId: step.runId, now, pulled: { start: date, end: date }, rebuild: { start: q.get("from"), end: date }, graceCutoff: 0, clicks: [] };
      // The pull's write (applyCakePull): the ledger's statements, then a batch a day, each batch
      // timed (the longest is the longest D1 transaction); the rest of its time is the ledger's.
      const batches = [];
      const timedDb = createDb(
        new Proxy(env.DB, {
          get(target, key) {
            if (key !== "batch") return typeof target[key] === "function" ? target[key].bind(target) : target[key];
            return async (statements) => {
              const t0 = Date.now();
              const results = await target.batch(statements);
              batches.push(Date.now() - t0);
              return results;
            };
          },
        }),
      );
      const write = async () => {
        batches.length = 0;
        const t0 = Date.now();
        await applyCakePull(timedDb, pull);
        const batchMs = batches.reduce((a, b) => a + b, 0);
        return { ledgerMs: Date.now() - t0 - batchMs, batchMs, longestBatchMs: Math.max(...batches), batchesMs: [...batches] };
      };
      const first = await write();
      const again = await write();
      const t2 = Date.now();
      await handOnConversions(db, step, cakeRunParts(db, env, now).onConversions);
      const handOnMs = Date.now() - t2;
      await dropPulledRows(db, step.runId);
      const figures = await env.DB.prepare(
        `select (select count(*) from cake_conversions where date = ?1 and counted = 1) as ledger,
          (select coalesce(sum(conversions), 0) from cake_attributed_daily where date = ?1) as counted,
          (select count(*) from tiktok_event_sends where conversion_id like ?1 || '-%') as sends,
          (select count(*) from cake_pull_conversions) as staged`,
      )
        .bind(date)
        .first();
      return Response.json({ stageMs, first, again, handOnMs, before, after: await size(), ...figures });
    }
    if (url.pathname === "/__bench/sim/sizes") {
      const d1 = (await env.DB.prepare("select 1").run()).meta.size_after;
      const days = await shardDaysFrom(db, 0);
      const held = await Promise.all(
        days.map(async ({ day, shards }) => ({
          day,
          bytes: await Promise.all(Array.from({ length: shards }, (_, shard) => env.CLICK_SHARDS.getByName(shardName({ day, shard })).bytes())),
        })),
      );
      const conversions = await env.DB.prepare(
        `select (select count(*) from cake_conversions) as ledger, (select count(*) from tiktok_event_sends) as sends,
          (select coalesce(sum(conversions), 0) from conversion_archives) as archived, (select count(*) from conversion_archives) as objects`,
      ).first();
      return Response.json({ d1, held, conversions });
    }
    return worker.fetch(request, env, ctx);
  },
};
