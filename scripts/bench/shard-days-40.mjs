// Benchmark: 40 simulated days through the shard-day objects, BENCH_CLICKS_PER_DAY clicks a day
// (default 16,000; docs/click-storage.md "Forty days of shard-days, simulated").
//
// Trackyard runs under `wrangler dev` with CLICK_SHARDS_PER_DAY=16 and CLICKS_RETENTION_DAYS=30,
// through scripts/bench/workers/shard-sim.js. For each simulated day the bench plays the cron at
// that day's time: the day's shard count is fixed, its clicks are generated in bulk inside its 16
// objects (the one step that stands in for /r/ and the queue), and at the day's end the click
// rollup counts them and the retention job archives each day past the 30 kept (the archive
// Workflow, run by the local engine, writes the day's file to R2 and empties its objects). After
// each day it prints D1's size (the size D1 reports after a statement) and the objects held: how
// many, their bytes, and the largest one's against the 10 GB a Durable Object may hold.
//
// It passes when D1 grows no faster once days are archived than before (only the rollups' rows of
// each day: no raw click is in D1) and the objects held stop at the kept days.
//
// Not at a million clicks a day: on this machine the local runtime (wrangler dev 4.86.0) stopped
// answering for minutes at 400,000 a day (day 2) and at 100,000 a day (day 12), with no error and
// no CPU in use; each call then fails after CALL_TIMEOUT_MS with that said. The figures it prints
// are per click and per day, and the docs carry them to a million.
//
// What the simulation leaves out: CAKE's per-click report rows (`cake_stats`) and the copies of the
// clicks CAKE reports (`attributed_clicks`), which grow D1 with CAKE's traffic, not ours
// (docs/click-storage.md "What else outgrows D1 at this load").
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchDirs, fmt } from "../lib/click-bench.mjs";
import { DAY_MS, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations, freePort, ROOT, startServer } from "../lib/server.mjs";
import { cpuSeconds, descendantsNamed, loadAverage } from "../lib/wrk.mjs";

const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 16_000);
/** A call that takes longer: the local runtime has stopped answering (see above). */
const CALL_TIMEOUT_MS = 120_000;
const DAYS = Number(process.env.BENCH_DAYS ?? 40);
const SHARDS = 16;
const RETENTION = 30;
const IN_FLIGHT = 4;
const OBJECT_LIMIT = 10e9;
/** The first simulated day, as days since 2020-01-01 (click ids count days so). */
const FIRST = Math.floor((Date.UTC(2026, 0, 1) - Date.UTC(2020, 0, 1)) / DAY_MS);
const dayStart = (day) => Date.UTC(2020, 0, 1) + day * DAY_MS;
const isoDay = (day) => new Date(dayStart(day)).toISOString().slice(0, 10);

const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "shard-sim.js");
const { tmp, removeAll } = benchDirs("trackyard-bench-shard-days");
const stateDir = tmp("state");
// wrangler dev wants the assets folder to exist; the app itself is not needed here.
mkdirSync(path.join(ROOT, "dist", "client"), { recursive: true });
const mb = (bytes) => `${fmt(bytes / 1e6, 1)} MB`;
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function call(base, pathname) {
  let res;
  try {
    res = await fetch(`${base}${pathname}`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  } catch (err) {
    throw new Error(`${pathname}: no answer in ${CALL_TIMEOUT_MS / 1000} s (the local runtime stopped answering): ${err.message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Runs `work` over `items`, `limit` at a time. */
async function pool(items, limit, work) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/** The retention's ticks at `now` until it has nothing to start: each run waited for. */
async function retention(base, now) {
  const runs = [];
  for (let i = 0; i < 20; i++) {
    const tick = await call(base, `/__bench/sim/retention?now=${now}`);
    const id = tick.started ?? tick.running;
    if (!id) return { runs, waiting: tick.waiting };
    for (let polls = 1; ; polls++) {
      // Locally an instance cut off by a restart of the runtime waits for the cron's next start
      // of it (docs/click-archive.md "Locally"): the tick every 10 s is that start.
      if (polls % 20 === 0) await call(base, `/__bench/sim/retention?now=${now}`);
      const status = await call(base, `/__bench/sim/run?id=${encodeURIComponent(id)}`);
      if (status.status === "complete") {
        runs.push(status.output);
        if (!status.output.finished) return { runs, waiting: status.output.waiting };
        break;
      }
      if (status.status === "errored" || status.status === "terminated") throw new Error(`archive run ${id} ${status.status}: ${JSON.stringify(status.error)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error("the retention kept starting runs");
}

console.log(
  `${DAYS} days of ${fmt(PER_DAY)} clicks over ${SHARDS} shard-day objects each, ${RETENTION} days kept; load average ${loadAverage()}; ${os.cpus().length} cores`,
);
applyMigrations(stateDir, { quiet: true });
{
  const local = openLocalD1(stateDir, { quiet: true });
  try {
    await seedCampaigns(await local.db());
  } finally {
    await local.mf.dispose();
  }
}
const port = await freePort();
const server = await startServer({
  port,
  stateDir,
  // BENCH_SIM_LOG=1 shows wrangler's own output.
  stdio: process.env.BENCH_SIM_LOG ? "inherit" : "pipe",
  script: ENTRY,
  vars: { CLICK_SHARDS_PER_DAY: String(SHARDS), CLICKS_RETENTION_DAYS: String(RETENTION) },
  timeoutMs: 180_000,
});
const base = server.url;
const workerdCpu = () => descendantsNamed(server.child.pid, "workerd").reduce((sum, pid) => sum + cpuSeconds(pid), 0);
const startedAt = performance.now();
const benchCpuStart = process.cpuUsage();
const rows = [];
let archived = 0;
try {
  console.log("day | simulated | D1 | objects held (days) | their bytes | largest object | of 10 GB | archived | generate | day's end");
  for (let d = 0; d < DAYS; d++) {
    const day = FIRST + d;
    // The cron early in the day: the day's count is fixed (and tomorrow's).
    await call(base, `/__bench/sim/cron?now=${dayStart(day) + 60_000}`);
    const t0 = performance.now();
    await pool(
      Array.from({ length: SHARDS }, (_, shard) => shard),
      IN_FLIGHT,
      (shard) => call(base, `/__bench/sim/generate?day=${day}&shard=${shard}&count=${Math.round(PER_DAY / SHARDS)}`),
    );
    const generated = performance.now() - t0;
    // The day's end: the rollup counts it, and the retention archives the days past the kept ones.
    const now = dayStart(day + 1) + 30 * 60_000;
    const t1 = performance.now();
    while ((await call(base, `/__bench/sim/cron?now=${now}`)).behind);
    const kept = await retention(base, now);
    archived += kept.runs.filter((r) => r.archived).length;
    if (kept.waiting) console.log(`  retention waiting: ${kept.waiting}`);
    const ended = performance.now() - t1;
    const sizes = await call(base, "/__bench/sim/sizes");
    const objects = sizes.held.flatMap((h) => h.bytes);
    const sum = (bytes) => bytes.reduce((a, b) => a + b, 0);
    const largest = Math.max(0, ...objects);
    const row = {
      day: d + 1,
      date: isoDay(day),
      d1: sizes.d1,
      heldDays: sizes.held.length,
      heldBytes: sum(objects),
      dayBytes: sum(sizes.held.find((h) => h.day === day)?.bytes ?? []),
      largest,
      archived,
    };
    rows.push(row);
    console.log(
      `${row.day} | ${row.date} | ${mb(row.d1)} | ${row.heldDays} | ${mb(row.heldBytes)} | ${mb(largest)} | ${((largest / OBJECT_LIMIT) * 100).toFixed(2)}% | ${archived} | ${secs(generated)} | ${secs(ended)}`,
    );
  }
  const cpu = process.cpuUsage(benchCpuStart);
  console.log(
    `\nThis process (the load: HTTP calls only) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU in ${secs(performance.now() - startedAt)}; workerd used ${fmt(workerdCpu(), 0)} s`,
  );
} finally {
  await server.stop();
}

// --- What it shows ------------------------------------------------------------------------------
const first = rows.find((r) => r.day === RETENTION + 1);
const last = rows.at(-1);
if (first && last) {
  const perDay = (last.d1 - first.d1) / (last.day - first.day || 1);
  const before = (rows[RETENTION - 1].d1 - rows[0].d1) / (RETENTION - 1);
  const dayBytes = rows.reduce((a, r) => a + r.dayBytes, 0) / rows.length;
  console.log(
    `D1 grows ${mb(perDay)} a day once days are archived (days ${first.day}-${last.day}), ${mb(before)} a day before (days 1-${RETENTION}): the rollups' rows, kept for the report's history; a day's clicks take ${mb(dayBytes)} in their objects`,
  );
  console.log(`At ${mb(perDay)} a day, D1's 10 GB would last ${fmt(10e9 / perDay / 365, 0)} years`);
  console.log(`Objects held after day ${last.day}: ${last.heldDays} days (the ${RETENTION} kept, and the counts fixed ahead), ${mb(last.heldBytes)}`);
  const largest = Math.max(...rows.map((r) => r.largest));
  const perClick = largest / (PER_DAY / SHARDS);
  const atTarget = perClick * (33_300_000 / SHARDS);
  console.log(
    `Largest object: ${mb(largest)} (${fmt(perClick, 0)} bytes a click with its share of the tables); at the design's 2,081,250 clicks a shard-day: ${mb(atTarget)}, ${((atTarget / OBJECT_LIMIT) * 100).toFixed(1)}% of 10 GB`,
  );
  const flat = perDay <= before * 1.1 && last.heldDays <= RETENTION + 3;
  console.log(
    `${flat ? "PASS" : "FAIL"}: D1 grows no faster once days are archived (${((perDay / before) * 100).toFixed(0)}% of its growth before), and the objects held stop at the kept days`,
  );
  if (!flat) process.exitCode = 1;
} else {
  console.log(`(${DAYS} days: under ${RETENTION + 1}, no day was archived; BENCH_DAYS=40 shows the retention at work)`);
}
removeAll();
