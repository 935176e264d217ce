// Trackyard's Worker with its clicks counted both ends, for scripts/bench/clicks-sustained.mjs:
// GET /__bench/stored answers how many /r/ clicks it answered (302s) and how many clicks D1 holds
// (the largest rowid: a fresh database whose clicks are never deleted, and a lookup, not a scan).
// With BENCH_DIRECT_D1=1 the Worker has no clicks queue, so each isolate's micro-batch is written
// straight to the one D1 (worker/src/tracking/click-writer.ts: what it does without the queue).
// Only the bench runs this entry (wrangler dev with it as the script); the deployed Worker is
// worker/src/index.ts. Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";

// wrangler.toml's [[workflows]] names this class: the entry must export it.
export { ClickArchiveWorkflow } from "../../../worker/src/index.ts";

let answered = 0;

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/__bench/stored") {
      const stored = await env.DB.prepare("select coalesce(max(id), 0) as n from clicks").first("n");
      return Response.json({ answered, stored, at: Date.now() });
    }
    const res = await worker.fetch(request, env.BENCH_DIRECT_D1 === "1" ? { ...env, CLICKS_QUEUE: undefined } : env, ctx);
    if (res.status === 302 && pathname.startsWith("/r/")) answered++;
    return res;
  },
};
