// Trackyard's Worker with two write paths opened for scripts/bench/click-shard.mjs: POST
// /__bench/write?to=d1 stores a JSON batch of clicks in the one D1 as the clicks queue's consumer
// does (insertClicksOnce), ?to=shard&day=D&shard=S in that shard-day's Durable Object
// (worker/src/tracking/click-shard.ts); GET /__bench/size?day=D&shard=S answers the object's size;
// GET /__bench/lookup?id=...&to=d1 (or &to=shard&day=D&shard=S) looks one click up as an exit does;
// GET /__bench/page?to=d1&after=JSON (or &to=shards&day=D&from=S&count=N) reads a Click Log page of
// 40 rows of day D, newest first, after the cursor; GET /__bench/signed-ids?day=D&shard=S&n=N makes
// N click ids of that place signed as /r/ signs them; POST /__bench/claim-reads?to=shards&now=T
// reads a JSON list of such ids' clicks for TikTok's claims as the producer does
// (worker/src/tracking/attributed-clicks.ts shardClicksFor: one call per object), ?to=d1 the same
// columns of D1's clicks in one statement, ?to=check only checks the ids' signatures; GET
// /__bench/shard-count?day=D&shards=N fixes a day's count as the cron does.
// Only the bench runs this entry (wrangler dev with it as the script); the deployed Worker is
// worker/src/index.ts. Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";
import { clickRowsAfter, findClick, insertClicksOnce } from "../../../worker/src/db/queries/clicks.ts";
import { checkClickId, clickDayStart, newClickId } from "../../../worker/src/tracking/click-id.ts";
import { shardClicksFor } from "../../../worker/src/tracking/attributed-clicks.ts";
import { forgetShardCounts } from "../../../worker/src/tracking/shard-days.ts";
import { pageAcrossShards } from "../../../worker/src/tracking/click-shards.ts";
import { createDb } from "../../../worker/src/middleware/database.ts";
import { shardName } from "../../../worker/src/tracking/click-id.ts";

// wrangler.toml's [[workflows]] and [[durable_objects.bindings]] name these classes: the entry must export them.
export { CakePullWorkflow, ClickArchiveWorkflow, ClickMoveWorkflow, ClickShard } from "../../../worker/src/index.ts";

const shardOf = (q, env) => env.CLICK_SHARDS.getByName(shardName({ day: Number(q.get("day")), shard: Number(q.get("shard")) }));

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/write") {
      const rows = await request.json();
      if (url.searchParams.get("to") === "d1") return Response.json({ written: await insertClicksOnce(createDb(env.DB), rows) });
      return Response.json(await shardOf(url.searchParams, env).write(rows));
    }
    if (url.pathname === "/__bench/size") return Response.json(await shardOf(url.searchParams, env).size());
    if (url.pathname === "/__bench/lookup") {
      const id = url.searchParams.get("id");
      const found = url.searchParams.get("to") === "d1" ? await findClick(createDb(env.DB), id) : (await shardOf(url.searchParams, env).lookup([id]))[0];
      return Response.json({ found: found?.clickId === id });
    }
    if (url.pathname === "/__bench/signed-ids") {
      const q = url.searchParams;
      const place = { day: Number(q.get("day")), shard: Number(q.get("shard")) };
      return Response.json(await Promise.all(Array.from({ length: Number(q.get("n")) }, () => newClickId(env.SESSION_SECRET, place))));
    }
    if (url.pathname === "/__bench/claim-reads") {
      const ids = await request.json();
      const db = createDb(env.DB);
      if (url.searchParams.get("to") === "d1") {
        const rows = await env.DB.prepare(
          "select click_id, campaign_id, tiktok_campaign_id, ttclid, ip_address, user_agent, clicked_at from clicks where click_id in (select value from json_each(?1))",
        )
          .bind(JSON.stringify(ids))
          .all();
        return Response.json({ found: rows.results.length });
      }
      if (url.searchParams.get("to") === "check") {
        const checked = await Promise.all(ids.map((id) => checkClickId(env.SESSION_SECRET, id, Number(url.searchParams.get("now")))));
        return Response.json({ found: checked.filter(Boolean).length });
      }
      const found = await shardClicksFor(db, env, ids, Number(url.searchParams.get("now")));
      return Response.json({ found: found.size });
    }
    if (url.pathname === "/__bench/shard-count") {
      // The day's count, as the cron fixes it, so the producer's check finds the day's objects.
      const q = url.searchParams;
      await env.DB.prepare("insert or replace into click_shard_days (day, shards, created_at) values (?1, ?2, ?3)")
        .bind(Number(q.get("day")), Number(q.get("shards")), Date.now())
        .run();
      forgetShardCounts();
      return Response.json({ ok: true });
    }
    if (url.pathname === "/__bench/page") {
      const q = url.searchParams;
      const day = Number(q.get("day"));
      const filter = { startMs: clickDayStart(day), endMs: clickDayStart(day + 1) };
      const after = q.get("after") ? JSON.parse(q.get("after")) : null;
      if (q.get("to") === "d1") {
        const rows = await clickRowsAfter(createDb(env.DB), filter, after, 40);
        const last = rows.at(-1);
        return Response.json({ rows: rows.length, next: last ? { clickedAt: last.clickedAt, id: last.id } : null });
      }
      const places = Array.from({ length: Number(q.get("count")) }, (_, i) => ({ day, shard: Number(q.get("from")) + i }));
      const page = await pageAcrossShards(env.CLICK_SHARDS, places, filter, after, 40);
      return Response.json({ rows: page.rows.length, next: page.next });
    }
    return worker.fetch(request, env, ctx);
  },
};
