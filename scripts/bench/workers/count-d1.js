// Trackyard's Worker with its D1 binding counted (worker/test/d1-counter.ts), for
// scripts/bench/public-load.mjs: every statement any request (or its background work) sends is
// tallied, with the requests the Worker was handed, and GET /__bench/d1 answers the tally so far. Only the bench runs this entry (wrangler
// dev with it as the script); the deployed Worker is worker/src/index.ts, which never counts.
// Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";
import { countD1 } from "../../../worker/test/d1-counter.ts";

const tally = { requests: 0, queries: 0, batches: 0 };

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/d1") return Response.json(tally);
    tally.requests++;
    return worker.fetch(request, { ...env, DB: countD1(env.DB, tally).db }, ctx);
  },
};
