// Trackyard's Worker with its clicks counted both ends, for scripts/bench/clicks-sustained.mjs:
// GET /__bench/stored answers how many /r/ clicks it answered (302s) and how many clicks D1 holds
// (the largest rowid: a fresh database whose clicks are never deleted, and a lookup, not a scan).
// With BENCH_DIRECT_D1=1 the Worker has no clicks queue, so each isolate's micro-batch is written
// straight to the one D1 (worker/src/tracking/click-writer.ts: what it does without the queue).
// With CLICK_SHARDS_PER_DAY set, POST /__bench/shard-days fixes today's count as the cron does
// (worker/src/tracking/shard-days.ts), and the stored count adds the clicks of today's shard-day
// objects (each object's count of its rows, as ClickShard.size reports it).
// Only the bench runs this entry (wrangler dev with it as the script); the deployed Worker is
// worker/src/index.ts. Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";
import { createDb } from "../../../worker/src/middleware/database.ts";
import { clickDayOf } from "../../../worker/src/tracking/click-id.ts";
import { shardName } from "../../../worker/src/tracking/click-id.ts";
import { fixShardDays, shardsPerDay } from "../../../worker/src/tracking/shard-days.ts";

// wrangler.toml's [[workflows]] and [[durable_objects.bindings]] name these classes: the entry must export them.
export { CakePullWorkflow, ClickArchiveWorkflow, ClickMoveWorkflow, ClickShard } from "../../../worker/src/index.ts";

/** Clicks stored in today's shard-day objects (none while the setting is 0). */
async function shardStored(env) {
  const { shards } = shardsPerDay(env.CLICK_SHARDS_PER_DAY);
  const day = clickDayOf(Date.now());
  const sizes = await Promise.all(Array.from({ length: shards }, (_, shard) => env.CLICK_SHARDS.getByName(shardName({ day, shard })).size()));
  return sizes.reduce((sum, s) => sum + s.clicks, 0);
}

let answered = 0;

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/__bench/stored") {
      const inD1 = await env.DB.prepare("select coalesce(max(id), 0) as n from clicks").first("n");
      const inShards = await shardStored(env);
      return Response.json({ answered, stored: inD1 + inShards, inShards, at: Date.now() });
    }
    if (pathname === "/__bench/shard-days" && request.method === "POST") {
      return Response.json({ fixed: await fixShardDays(createDb(env.DB), shardsPerDay(env.CLICK_SHARDS_PER_DAY).shards, Date.now()) });
    }
    const res = await worker.fetch(request, env.BENCH_DIRECT_D1 === "1" ? { ...env, CLICKS_QUEUE: undefined } : env, ctx);
    if (res.status === 302 && pathname.startsWith("/r/")) answered++;
    return res;
  },
};
