// Trackyard's Worker with two write paths opened for scripts/bench/click-shard.mjs: POST
// /__bench/write?to=d1 stores a JSON batch of clicks in the one D1 as the clicks queue's consumer
// does (insertClicksOnce), ?to=shard&day=D&shard=S in that shard-day's Durable Object
// (worker/src/tracking/click-shard.ts); GET /__bench/size?day=D&shard=S answers the object's size;
// GET /__bench/lookup?id=...&to=d1 (or &to=shard&day=D&shard=S) looks one click up as an exit does.
// Only the bench runs this entry (wrangler dev with it as the script); the deployed Worker is
// worker/src/index.ts. Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";
import { findClick, insertClicksOnce } from "../../../worker/src/db/queries/clicks.ts";
import { createDb } from "../../../worker/src/middleware/database.ts";
import { shardName } from "../../../worker/src/tracking/click-shard.ts";

// wrangler.toml's [[workflows]] and [[durable_objects.bindings]] name these classes: the entry must export them.
export { ClickArchiveWorkflow, ClickShard } from "../../../worker/src/index.ts";

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
    return worker.fetch(request, env, ctx);
  },
};
