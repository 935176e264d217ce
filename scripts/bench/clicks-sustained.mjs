// Benchmark: the highest click rate the `/r/` → clicks queue → consumer → D1 path absorbs on this
// machine with the backlog flat, against the same rates written straight to one D1 (the Worker
// without its queue: each isolate's micro-batch written by the isolate), and the queue → consumer →
// shard-day objects path (CLICK_SHARDS_PER_DAY=16: docs/click-storage.md), in the same run
// (docs/tracking.md "Clicks through a queue").
//
// Per mode, one `wrangler dev` of scripts/bench/workers/count-stored.js; per step, wrk drives /r/
// for BENCH_STEP_SECONDS at a capped rate (BENCH_RATES, clicks a second: each of BENCH_CONNECTIONS
// connections waits connections × 1000 / rate ms between requests, as Debian's wrk has no fixed-rate
// mode; 0: no wait, as fast as /r/ answers), every request from its own address. Every second the
// backlog (clicks answered − clicks stored, both from the Worker) is sampled; a step is flat when
// the backlog's mean over the second half of its last BENCH_FLAT_SECONDS is less than one second
// of its rate above the first half's (growth at a tenth of the rate, over 20 s, would show). After each step the bench waits for the
// backlog to drain, so steps do not carry over. A mode stops at its first step that is not flat, or
// whose achieved rate did not rise (wrk, not the path, is then the limit). Prints per step the
// achieved rate, the backlog's growth, the drain time, wrk's CPU and the server's (wrangler and its
// workerd) as a share of one core, and the load average.
import path from "node:path";
import { addressesScript, benchDirs, campaignOn, fmt, sleep } from "../lib/click-bench.mjs";
import { ROOT, startServer } from "../lib/server.mjs";
import { cpuCount, cpuSeconds, descendantsNamed, ensureWrk, loadAverage, runWrk } from "../lib/wrk.mjs";

const RATES = (process.env.BENCH_RATES ?? "100,200,400,800,0").split(",").map(Number);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 30);
const FLAT_SECONDS = Number(process.env.BENCH_FLAT_SECONDS ?? 20);
const DRAIN_LIMIT_MS = 180_000;
const PORT = 8946;
const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "count-stored.js");

const { tmp, removeAll } = benchDirs("trackyard-bench-sustained");

/** The Worker's answered and stored clicks; a sample the loaded dev server drops is asked again. */
async function counts(base) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await fetch(`${base}/__bench/stored`)).json();
    } catch (err) {
      if (attempt === 5) throw err;
      await sleep(200);
    }
  }
}

/** Waits until every answered click is stored; returns how long that took (ms), or null past the limit. */
async function drain(base) {
  const started = Date.now();
  while (Date.now() - started < DRAIN_LIMIT_MS) {
    const c = await counts(base);
    if (c.stored >= c.answered) return Date.now() - started;
    await sleep(250);
  }
  return null;
}

/** CPU seconds used so far by wrangler (node) and its workerd processes. */
const serverCpu = (pids) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

async function step(base, pids, url, rate, wrkDir) {
  const delayMs = rate > 0 ? Math.max(1, Math.round((CONNECTIONS * 1000) / rate)) : 0;
  const script = addressesScript(wrkDir, delayMs);
  const samples = [];
  let running = true;
  const sampler = (async () => {
    while (running) {
      const c = await counts(base);
      samples.push({ at: Date.now(), backlog: c.answered - c.stored });
      await sleep(1000);
    }
  })();
  const cpuBefore = serverCpu(pids);
  const started = Date.now();
  const r = await runWrk({ url, seconds: STEP_SECONDS, connections: CONNECTIONS, script });
  const seconds = (Date.now() - started) / 1000;
  const cpu = serverCpu(pids) - cpuBefore;
  running = false;
  await sampler;
  // The backlog is a sawtooth (a second of micro-batch, the queue's one-second wait, the write):
  // the mean of the window's second half against its first half smooths it out.
  const endAt = samples.at(-1).at;
  const mean = (from, to) => {
    const xs = samples.filter((x) => x.at > endAt - from * 1000 && x.at <= endAt - to * 1000).map((x) => x.backlog);
    return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  };
  const growth = mean(FLAT_SECONDS / 2, 0) - mean(FLAT_SECONDS, FLAT_SECONDS / 2);
  const flat = growth < Math.max(r.rps, 20);
  const drainMs = await drain(base);
  return {
    target: rate,
    rps: r.rps,
    p99: r.p99,
    notOk: r.notOk + r.errors,
    maxBacklog: Math.max(...samples.map((s) => s.backlog)),
    growth,
    flat,
    drainMs,
    wrkCpu: r.wrkCpuPercent,
    serverCpu: (cpu / seconds) * 100,
    load: loadAverage()[0],
  };
}

async function mode(label, vars) {
  const server = await startServer({ port: PORT, stateDir: tmp("state"), stdio: "pipe", script: ENTRY, vars });
  // An unread pipe would stall the server.
  server.child.stdout?.resume();
  server.child.stderr?.resume();
  const wrkDir = tmp("wrk");
  const steps = [];
  // Where the clicks ended up, read after the last step.
  let final = { stored: 0, inShards: 0 };
  try {
    const { campaignId } = await campaignOn(server.url);
    if (vars.CLICK_SHARDS_PER_DAY) await fetch(`${server.url}/__bench/shard-days`, { method: "POST" });
    const url = `${server.url}/r/${campaignId}?cid=1799000000000001&plc=tiktok_feed`;
    await runWrk({ url, seconds: 3, connections: CONNECTIONS, script: addressesScript(wrkDir) });
    await drain(server.url);
    // After the warm-up: wrangler may have replaced its first workerd by then.
    const pids = [server.child.pid, ...descendantsNamed(server.child.pid, "workerd")];
    for (const rate of RATES) {
      const result = await step(server.url, pids, url, rate, wrkDir);
      steps.push(result);
      console.log(
        `${label.padEnd(16)} ${(result.target ? fmt(result.target) : "max").padStart(6)} ${fmt(result.rps).padStart(9)} ${fmt(result.p99, 1).padStart(8)} ${fmt(result.maxBacklog).padStart(11)} ${fmt(result.growth).padStart(15)} ${(result.flat ? "flat" : "GROWING").padStart(8)} ${(result.drainMs === null ? "not drained" : `${fmt(result.drainMs / 1000, 1)} s`).padStart(12)} ${`${fmt(result.wrkCpu)}%`.padStart(8)} ${`${fmt(result.serverCpu)}%`.padStart(11)} ${fmt(result.load, 2).padStart(6)}`,
      );
      const previous = steps.at(-2);
      if (!result.flat || result.drainMs === null || (previous && result.rps < previous.rps * 1.1)) break;
    }
    final = await counts(server.url);
  } finally {
    await server.stop();
  }
  const flat = steps.filter((s) => s.flat && s.drainMs !== null);
  return { label, best: flat.length ? Math.max(...flat.map((s) => s.rps)) : 0, steps, stored: final.stored, inShards: final.inShards };
}

try {
  ensureWrk();
  console.log(
    `wrk, ${CONNECTIONS} connections, ${STEP_SECONDS} s a step, flat over the last ${FLAT_SECONDS} s; ${cpuCount()} cores, load average ${loadAverage().join(" ")} before.`,
  );
  console.log("\nmode             target  achieved  p99 ms  max backlog  backlog growth     flat  drained in  wrk CPU  server CPU  load 1m");
  const results = [
    await mode("queue → D1", {}),
    await mode("straight to D1", { BENCH_DIRECT_D1: "1" }),
    await mode("queue → shards", { CLICK_SHARDS_PER_DAY: "16" }),
  ];
  console.log("");
  for (const r of results)
    console.log(
      `${r.label}: highest rate with the backlog flat ${fmt(r.best)} clicks/s (${fmt(r.stored)} clicks stored, ${fmt(r.inShards)} of them in shard-day objects)`,
    );
  console.log(`load average after: ${loadAverage().join(" ")}`);
  const lost = results.flatMap((r) => r.steps.filter((s) => s.drainMs === null).map(() => r.label));
  console.log(lost.length ? `FAIL: backlog not drained in ${[...new Set(lost)].join(", ")}` : "PASS: every answered click stored after every step");
  process.exitCode = lost.length ? 1 : 0;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  removeAll();
}
