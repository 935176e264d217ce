// Benchmark: a day's CAKE conversions written by the pull, at the target's 130,000 and 650,000 a
// day against the 20,000 a day the 40-day run pulls. The design and the figures:
// docs/click-storage.md "The CAKE pull in steps".
//
// Trackyard runs under `wrangler dev` through scripts/bench/workers/shard-sim.js with 16 shard-day
// objects and a day of BENCH_CLICKS_PER_DAY clicks (default 100,000) generated in bulk. For
// each size the route /__bench/sim/conversions-write makes that many conversions of the day's
// reported clicks on three days in a row of their own, as a pull writes each day with the two
// before it rebuilt (the postbacks' margin), and times the third day's parts: staging them a page
// of 10,000 at a time as the pull reads them, the pull's write (the ledger's statements, then one
// D1 batch for cake_stats and the rollups of the three days), the same write again (a later pull
// of the day), and handing them on to TikTok's Events API and the webhooks 5,000 at a time.
// BENCH_CONVERSIONS (comma-separated) changes the sizes; the first is the baseline the others' cost
// a conversion is set against.
//
// It passes when every size's conversions are all in the ledger, counted once in the rollup, each
// handed on to TikTok once, nothing is left staged, and the write's longest transaction (a day's
// batch) takes less than D1's 30 s a query (docs/click-storage.md "Cloudflare's limits and prices").
import os from "node:os";
import { benchDirs, fmt, simCall } from "../lib/click-bench.mjs";
import { DAY_MS } from "../lib/click-days.mjs";
import { startShardSim } from "../lib/shard-sim.mjs";
import { loadAverage } from "../lib/wrk.mjs";

const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 100_000);
const SIZES = (process.env.BENCH_CONVERSIONS ?? "20000,130000,650000").split(",").map(Number);
const SHARDS = 16;
const CALL_TIMEOUT_MS = 1_800_000;
/** D1's limit on one query. */
const QUERY_LIMIT_MS = 30_000;
/** The day: 2026-01-01, as days since 2020-01-01 (click ids count days so). */
const DAY = Math.floor((Date.UTC(2026, 0, 1) - Date.UTC(2020, 0, 1)) / DAY_MS);
const dayStart = Date.UTC(2020, 0, 1) + DAY * DAY_MS;

const { tmp, removeAll } = benchDirs("trackyard-bench-conversions-write");
const stateDir = tmp("state");
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const call = (base, pathname) => simCall(base, pathname, CALL_TIMEOUT_MS);

console.log(`A day of ${fmt(PER_DAY)} clicks over ${SHARDS} shard-day objects; load average ${loadAverage()}; ${os.cpus().length} cores`);
const { fakes, server, base, workerdCpu } = await startShardSim(stateDir, { CLICK_SHARDS_PER_DAY: String(SHARDS) });
const benchCpuStart = process.cpuUsage();
let passed = true;
try {
  await call(base, `/__bench/sim/cron?now=${dayStart + 60_000}`);
  for (let shard = 0; shard < SHARDS; shard++) await call(base, `/__bench/sim/generate?day=${DAY}&shard=${shard}&count=${Math.round(PER_DAY / SHARDS)}`);
  const results = [];
  for (const [i, n] of SIZES.entries()) {
    // Each size on days of its own, years before the simulated day: no figure of it moves.
    const dates = [1, 2, 3].map((d) => `2019-${String(i + 1).padStart(2, "0")}-0${d}`);
    let r;
    for (const [k, date] of dates.entries()) {
      const now = dayStart + 23 * 3_600_000;
      r = await call(base, `/__bench/sim/conversions-write?day=${DAY}&n=${n}&date=${date}&from=${dates[0]}&run=${900_000 + 10 * i + k}&now=${now}`);
    }
    results.push({ n, ...r });
    const ok =
      r.ledger === n && r.counted === n && r.sends === n && r.staged === 0 && Math.max(r.first.longestBatchMs, r.again.longestBatchMs) < QUERY_LIMIT_MS;
    if (!ok) passed = false;
    console.log(`${fmt(n)} conversions a day, the third day: ${JSON.stringify(r)}${ok ? "" : " (FAILED)"}`);
  }
  const [baseline] = results;
  const perConversion = (r) => (r.stageMs + r.first.ledgerMs + r.first.batchMs + r.handOnMs) / r.n;
  console.log(
    "conversions a day | staged (a page at a time) | the write: ledger statements + a batch a day (the longest) | the write again | handed on | D1's growth | a conversion's cost against the baseline's",
  );
  for (const r of results) {
    console.log(
      `${fmt(r.n)} | ${secs(r.stageMs)} | ${secs(r.first.ledgerMs)} + ${secs(r.first.batchMs)} (${secs(r.first.longestBatchMs)}) | ${secs(r.again.ledgerMs)} + ${secs(r.again.batchMs)} (${secs(r.again.longestBatchMs)}) | ${secs(r.handOnMs)} | ${fmt((r.after - r.before) / 1e6, 1)} MB, ${fmt((r.after - r.before) / r.n, 0)} bytes a conversion | ${(perConversion(r) / perConversion(baseline)).toFixed(2)}x`,
    );
  }
  const cpu = process.cpuUsage(benchCpuStart);
  console.log(`This process (its HTTP calls) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU; workerd used ${fmt(workerdCpu(), 0)} s`);
} catch (err) {
  passed = false;
  console.error(err);
} finally {
  await server.stop();
  await fakes.close();
}
console.log(
  `${passed ? "PASS" : "FAIL"}: every size's conversions are in the ledger, counted once and handed on once, nothing stays staged, and no day's batch takes ${QUERY_LIMIT_MS / 1000} s`,
);
if (!passed) process.exitCode = 1;
removeAll();
