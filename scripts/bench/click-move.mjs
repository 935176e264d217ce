// Benchmark: the move of D1's clicks into the legacy objects, as
// docs/click-storage.md "Moving the existing clicks" describes it: BENCH_MOVE_CLICKS clicks
// (default 200,000) over BENCH_MOVE_DAYS days.
//
// The clicks are generated in D1 in bulk with old (version-4) ids and their exits, as D1 held them
// before the switch. Trackyard then runs under `wrangler dev` with CLICK_SHARDS_PER_DAY=16 through
// scripts/bench/workers/shard-sim.js, and the bench plays the cron: the click rollup counts D1's
// clicks (the baseline: one pass over the same clicks, in the same run), the shard-days cron
// records the switch (its first ClickMoveWorkflow run finds the rollup not past it yet), and once
// the rollup has passed it the bench takes the move's steps one after another, as a run does.
//
// It prints the move's rate against the rollup's pass, the time 14 million clicks (D1's 10 GB)
// would take at that rate, D1's size before and after, and checks what the move must keep: every
// click left D1, and the report's totals are the same after the legacy objects are counted as
// before the move. It fails when they are not.
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchDirs, fmt } from "../lib/click-bench.mjs";
import { DAY_MS, generateClicks, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations, freePort, ROOT, startServer } from "../lib/server.mjs";
import { cpuSeconds, descendantsNamed, loadAverage } from "../lib/wrk.mjs";

const CLICKS = Number(process.env.BENCH_MOVE_CLICKS ?? 200_000);
const DAYS = Number(process.env.BENCH_MOVE_DAYS ?? 2);
const SHARDS = 16;
/** D1's clicks at its 10 GB (docs/click-storage.md "Moving the existing clicks"). */
const D1_FULL = 14_000_000;
const CALL_TIMEOUT_MS = 120_000;
/** tracking/click-move.ts MOVE_SETTLE_MS and jobs/roll-up-clicks.ts EXIT_LAG_MS: how far the cron's clock moves for the rollup to pass the switch. */
const SETTLE_MS = 2 * 60_000;
const EXIT_LAG_MS = 5 * 60_000;

const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "shard-sim.js");
const { tmp } = benchDirs("trackyard-bench-click-move");
const stateDir = tmp("state");
mkdirSync(path.join(ROOT, "dist", "client"), { recursive: true });
const mb = (bytes) => `${fmt(bytes / 1e6, 1)} MB`;
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function call(base, pathname) {
  const res = await fetch(`${base}${pathname}`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** The cron's rollup at `now` until it has counted everything. */
async function rollUp(base, now) {
  while ((await call(base, `/__bench/sim/cron?now=${now}`)).behind);
}

/** A move run, waited for: its output. */
async function settled(base, id) {
  for (;;) {
    const status = await call(base, `/__bench/sim/run?kind=move&id=${encodeURIComponent(id)}`);
    if (status.status === "complete") return status.output;
    if (status.status === "errored" || status.status === "terminated") throw new Error(`move run ${id} ${status.status}: ${JSON.stringify(status.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

console.log(
  `${fmt(CLICKS)} clicks in D1 over ${DAYS} days, moved into the 16 legacy objects (new days: ${SHARDS} shards); load average ${loadAverage()}; ${os.cpus().length} cores`,
);
const now = Date.now();
const today = Math.floor(now / DAY_MS) * DAY_MS;
applyMigrations(stateDir, { quiet: true });
{
  const local = openLocalD1(stateDir, { quiet: true });
  try {
    const d1 = await local.db();
    await seedCampaigns(d1);
    let firstId = 1;
    for (let d = DAYS; d >= 1; d--) firstId = await generateClicks(d1, { start: today - d * DAY_MS, firstId, count: Math.round(CLICKS / DAYS) });
  } finally {
    await local.mf.dispose();
  }
}
const server = await startServer({
  port: await freePort(),
  stateDir,
  stdio: process.env.BENCH_SIM_LOG ? "inherit" : "pipe",
  script: ENTRY,
  vars: { CLICK_SHARDS_PER_DAY: String(SHARDS) },
  timeoutMs: 180_000,
});
const base = server.url;
const workerdCpu = () => descendantsNamed(server.child.pid, "workerd").reduce((sum, pid) => sum + cpuSeconds(pid), 0);
const benchCpuStart = process.cpuUsage();
let ok = false;
try {
  // The baseline: the click rollup's pass over the same clicks (and today's shard count fixed).
  let t = performance.now();
  await rollUp(base, now);
  const rollupMs = performance.now() - t;
  const before = await call(base, "/__bench/sim/move-state");
  const d1Before = (await call(base, "/__bench/sim/sizes")).d1;

  // The switch, then the run once the rollup has passed it.
  const switched = await call(base, `/__bench/sim/move?now=${now}`);
  if (switched.run) await settled(base, switched.run);
  const later = now + SETTLE_MS + EXIT_LAG_MS + 1000;
  await rollUp(base, later);
  // The steps one after another, as the run takes them: locally, a call to the Worker while a
  // Workflow run took its steps sometimes got no answer until the bench gave up, so the bench
  // takes them itself (the run's own cost is one small record per step).
  t = performance.now();
  let moved = 0;
  let steps = 0;
  for (;;) {
    const step = await call(base, `/__bench/sim/move-step?now=${later}`);
    if ("idle" in step) break;
    moved += step.moved;
    steps++;
  }
  const moveMs = performance.now() - t;

  // The legacy objects counted: the report's totals as before.
  await rollUp(base, later + 60_000);
  const after = await call(base, "/__bench/sim/move-state");
  const d1After = (await call(base, "/__bench/sim/sizes")).d1;
  const cpu = process.cpuUsage(benchCpuStart);

  const rate = moved / (moveMs / 1000);
  console.log(
    `Rollup's pass over the ${fmt(before.totals.clicks)} clicks (baseline): ${secs(rollupMs)}, ${fmt(before.totals.clicks / (rollupMs / 1000), 0)} clicks/s`,
  );
  console.log(
    `Move: ${fmt(moved)} clicks in ${steps} steps, ${secs(moveMs)}: ${fmt(rate, 0)} clicks/s, ${fmt(moveMs / Math.max(1, steps), 0)} ms a step; ${(moveMs / rollupMs).toFixed(1)}x the rollup's pass`,
  );
  console.log(`At that rate D1's 10 GB (${fmt(D1_FULL)} clicks) move in ${fmt(D1_FULL / rate / 3600, 1)} hours, ${Math.ceil(D1_FULL / 5000)} steps`);
  console.log(`D1: ${mb(d1Before)} before, ${mb(d1After)} after; clicks left in D1: ${after.left}`);
  console.log(`Report totals: ${JSON.stringify(before.totals)} before, ${JSON.stringify(after.totals)} after`);
  console.log(`This process (HTTP calls only) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU; workerd used ${fmt(workerdCpu(), 0)} s`);
  ok = moved === CLICKS && after.left === 0 && after.totals.clicks === before.totals.clicks && after.totals.exits === before.totals.exits;
  console.log(
    `${ok ? "PASS" : "FAIL"}: every click moved (${fmt(moved)} of ${fmt(CLICKS)}), and the report counts each click and exit once (${after.totals.clicks} and ${after.totals.exits})`,
  );
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
