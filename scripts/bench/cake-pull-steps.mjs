// Benchmark: one day's CAKE click report pulled in one invocation, then in steps by
// CakePullWorkflow (docs/click-storage.md "The CAKE pull in steps"), in the same run.
//
// Trackyard runs under `wrangler dev` through scripts/bench/workers/shard-sim.js with 16 shard-day
// objects a day. A day of BENCH_CLICKS_PER_DAY clicks (default 50,000) is generated in bulk in its
// objects; the project's CAKE fake (scripts/lib/fakes.mjs) reports 2 in 5 of them (sub2 = the click
// id) and a conversion for 1 in BENCH_CONVERSION_EVERY (1,000) of those. The server gets a request
// that does nothing every few seconds, which wakes a request the local runtime leaves waiting
// (scripts/lib/shard-sim.mjs); a call still unanswered after 5 minutes fails with that said. The
// baseline: a sync with CAKE_PULL_STEP_ROWS past the
// report's length, read and written in its own invocation. Then the same report again with
// CAKE_PULL_STEP_ROWS at a quarter of it (BENCH_STEP_ROWS): the sync hands the day to the Workflow, which the local
// engine runs in read steps and a write step. It prints both times, the steps' rate against the
// baseline's, and what each left: the click report rows in the objects and the CAKE rollup's
// clicks, conversions and revenue of the day.
//
// It passes when the run in steps ends ok with the same figures as the baseline, and writes no row
// the baseline had not (the same report: nothing to change).
import os from "node:os";
import { benchDirs, fmt, simCall } from "../lib/click-bench.mjs";
import { cakeRowsOf, DAY_MS } from "../lib/click-days.mjs";
import { startShardSim } from "../lib/shard-sim.mjs";
import { loadAverage } from "../lib/wrk.mjs";

const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 50_000);
const SHARDS = 16;
const CALL_TIMEOUT_MS = 300_000;
/** 1 in this many reported clicks converts (BENCH_CONVERSION_EVERY). */
const CONVERSION_EVERY = Number(process.env.BENCH_CONVERSION_EVERY ?? 1_000);
/** The day: 2026-01-01, as days since 2020-01-01 (click ids count days so). */
const DAY = Math.floor((Date.UTC(2026, 0, 1) - Date.UTC(2020, 0, 1)) / DAY_MS);
const dayStart = Date.UTC(2020, 0, 1) + DAY * DAY_MS;
const date = new Date(dayStart).toISOString().slice(0, 10);

const { tmp, removeAll } = benchDirs("trackyard-bench-cake-steps");
const stateDir = tmp("state");
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

const call = (base, pathname) => simCall(base, pathname, CALL_TIMEOUT_MS);

/** A sync of the day with `stepRows`, waited for to its end (in steps: the run's row polled). */
async function pull(base, now, stepRows) {
  const t0 = performance.now();
  const { run } = await call(base, `/__bench/sim/cake-pull?now=${now}&stepRows=${stepRows}`);
  for (let state = { run }; state.run.status === "running";) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    state = await call(base, `/__bench/sim/cake-state?run=${run.id}&only=run`);
  }
  const ms = performance.now() - t0;
  return { started: run.status, ms, ...(await call(base, `/__bench/sim/cake-state?run=${run.id}&date=${date}`)) };
}

console.log(`One day of ${fmt(PER_DAY)} clicks over ${SHARDS} shard-day objects; load average ${loadAverage()}; ${os.cpus().length} cores`);
const { fakes, server, base, workerdCpu } = await startShardSim(stateDir, { CLICK_SHARDS_PER_DAY: String(SHARDS) });
const benchCpuStart = process.cpuUsage();
let passed = false;
try {
  await call(base, `/__bench/sim/cron?now=${dayStart + 60_000}`);
  for (let shard = 0; shard < SHARDS; shard++) await call(base, `/__bench/sim/generate?day=${DAY}&shard=${shard}&count=${Math.round(PER_DAY / SHARDS)}`);
  const ids = await call(base, `/__bench/sim/cake-ids?day=${DAY}`);
  const report = cakeRowsOf(ids, date, CONVERSION_EVERY);
  fakes.cake.state.clicks = report.clicks;
  fakes.cake.state.conversions = report.conversions;
  const rows = report.clicks.length;
  const stepRows = Number(process.env.BENCH_STEP_ROWS ?? Math.ceil(rows / 4));
  console.log(`CAKE's report of ${date}: ${fmt(rows)} click rows (${fmt(Math.ceil(rows / 10_000))} pages), ${fmt(report.conversions.length)} conversions`);

  const now = dayStart + 23 * 3_600_000;
  const whole = await pull(base, now, rows * 10);
  const steps = await pull(base, now + 60_000, stepRows);
  console.log("pull | started as | ended | time | click rows a second | rows written | rows in the objects | clicks | conversions | revenue");
  for (const [label, p] of [
    ["one invocation (the baseline)", whole],
    [`in steps of ${fmt(stepRows)} rows`, steps],
  ]) {
    console.log(
      `${label} | ${p.started} | ${p.run.status}${p.run.error ? ` (${p.run.error})` : ""} | ${secs(p.ms)} | ${fmt(rows / (p.ms / 1000), 0)} | ${fmt(p.run.rowsUpserted)} | ${fmt(p.objectRows)} | ${fmt(p.figures.clicks)} | ${fmt(p.figures.conversions)} | $${fmt(p.figures.revenueCents / 100, 2)}`,
    );
  }
  console.log(`The steps' rate: ${(whole.ms / steps.ms).toFixed(2)}x the baseline's`);
  const cpu = process.cpuUsage(benchCpuStart);
  console.log(
    `This process (HTTP calls and the CAKE fake) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU; workerd used ${fmt(workerdCpu(), 0)} s`,
  );
  passed =
    whole.started === "ok" &&
    steps.started === "running" &&
    steps.run.status === "ok" &&
    steps.run.rowsUpserted === 0 &&
    steps.objectRows === whole.objectRows &&
    JSON.stringify(steps.figures) === JSON.stringify(whole.figures) &&
    whole.figures.clicks === rows;
} finally {
  await server.stop();
  await fakes.close();
}
console.log(
  `${passed ? "PASS" : "FAIL"}: the pull in steps ends ok with the baseline's figures (every reported click counted once) and nothing to write again`,
);
if (!passed) process.exitCode = 1;
removeAll();
