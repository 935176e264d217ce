// Benchmark: what a flood of made-up ids costs the public routes in D1, route by route
// (docs/tracking.md "What the public routes do").
//
// Trackyard runs under `wrangler dev` with one change: its entry is scripts/bench/workers/count-d1.js,
// the same Worker with its D1 binding wrapped so that every statement sent (drizzle prepares each
// one, a batch's too) is tallied, whether the answer or the background work after it sends it; GET
// /__bench/d1 reads the tally, with the requests the Worker was handed. So a route's "D1 statements
// per request" is the statements tallied over a run (and a second after it, for background work)
// divided by the requests the Worker got meanwhile (wrk's completed count can be lower by the
// requests cut off when a run ends).
//
// The load is wrk (C, event-driven), BENCH_CONNECTIONS connections for BENCH_SECONDS per route, its
// own CPU printed per run so a generator that ran out of CPU shows. Each request is a new made-up
// id (Lua's math.random in wrk), from a new address (65,536 per run) so the per-address limit
// (600 a minute) never steps in, the worst case; the last row floods old-layout ids from ONE
// address to show the limit bounding lookups. The database holds no campaign and no click.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startServer } from "../lib/server.mjs";
import { cpuCount, descendantsNamed, ensureWrk, loadAverage, runWrk } from "../lib/wrk.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PORT = 8944;

const hex = `
local digits = "0123456789abcdef"
local function hex(n)
  local out = {}
  for i = 1, n do
    local d = math.random(1, 16)
    out[i] = digits:sub(d, d)
  end
  return table.concat(out)
end
`;

/** Each route's made-up target, as a Lua expression (a new one per request). */
const routes = [
  { label: "/r/ malformed id", path: `"/r/x" .. hex(8)`, expect: "0" },
  { label: "/r/ random id", path: `"/r/" .. math.random(100000, 999999) .. math.random(100000, 999999)`, expect: "0 (after one read of the highest id)" },
  { label: "/r/ unknown id 1-200", path: `"/r/" .. math.random(1, 200)`, expect: "<= 200 reads in all (cached misses)" },
  { label: "/click malformed id", path: `"/click?clickId=" .. hex(16)`, expect: "0" },
  {
    label: "/click forged id",
    path: `"/click?clickId=" .. hex(8) .. "-" .. hex(4) .. "-80" .. hex(2) .. "-8" .. hex(3) .. "-" .. hex(12)`,
    expect: "0 (fails the check)",
  },
  {
    label: "/click old-layout id",
    path: `"/click?clickId=" .. hex(8) .. "-" .. hex(4) .. "-4" .. hex(3) .. "-a" .. hex(3) .. "-" .. hex(12)`,
    expect: "1 (kept for clicks made before the check)",
  },
  { label: "/exit-tracker.js", path: `"/exit-tracker.js"`, expect: "0 (after one settings read)" },
  {
    label: "/click old id, 1 address",
    path: `"/click?clickId=" .. hex(8) .. "-" .. hex(4) .. "-4" .. hex(3) .. "-a" .. hex(3) .. "-" .. hex(12)`,
    oneAddress: true,
    // Long enough to pass the limit on this machine: the limit's minute must run out of lookups.
    seconds: Math.max(SECONDS, 15),
    expect: "<= 600 reads a minute per address, then 0",
  },
];

function luaScript(dir, index, { path: target, oneAddress }) {
  const file = path.join(dir, `route-${index}.lua`);
  const address = oneAddress ? `"198.51.100.1"` : `string.format("10.%d.%d.%d", ${index}, math.floor(n / 256) % 256, n % 256)`;
  writeFileSync(
    file,
    `${hex}
local n = 0
function init(args)
  math.randomseed(os.time() + ${index})
end
function request()
  n = n + 1
  return wrk.format("GET", ${target}, { ["CF-Connecting-IP"] = ${address} })
end
`,
  );
  return file;
}

const fmt = (n, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dirs = [];
let server;
const cleanUp = async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => cleanUp().finally(() => process.exit(130)));

try {
  ensureWrk();
  const scripts = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-public-load-"));
  const state = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-public-load-state-"));
  dirs.push(scripts, state);
  console.log("Starting Trackyard (D1 counted: scripts/bench/workers/count-d1.js) under wrangler dev...");
  server = await startServer({ port: PORT, stateDir: state, stdio: "pipe", script: path.join(ROOT, "scripts", "bench", "workers", "count-d1.js") });
  server.child.stdout?.resume();
  server.child.stderr?.resume();
  const pids = descendantsNamed(server.child.pid, "workerd");
  const tally = async () => (await fetch(`${server.url}/__bench/d1`)).json();

  console.log(`Load: wrk, ${CONNECTIONS} connections, ${SECONDS} s per route; ${cpuCount()} cores, load average ${loadAverage().join(" ")}.\n`);
  console.log("route                        handled    req/s  p99 ms  D1 statements  per request  wrk CPU  expected per request");
  let failed = false;
  for (const [i, route] of routes.entries()) {
    const before = await tally();
    const run = await runWrk({
      url: `${server.url}/`,
      seconds: route.seconds ?? SECONDS,
      connections: CONNECTIONS,
      script: luaScript(scripts, i + 1, route),
      serverPids: pids,
    });
    await sleep(1000); // background work (a refusal count's flush) lands within a second
    const after = await tally();
    // /__bench/d1 is answered before the Worker, so the tally's reads add nothing to it.
    const statements = after.queries - before.queries;
    const handled = after.requests - before.requests;
    const perRequest = handled ? statements / handled : NaN;
    if (handled === 0) failed = true;
    console.log(
      `${route.label.padEnd(26)} ${fmt(handled).padStart(9)} ${fmt(run.rps).padStart(8)} ${fmt(run.p99, 1).padStart(7)} ${fmt(statements).padStart(14)} ${fmt(perRequest, 4).padStart(12)} ${`${fmt(run.wrkCpuPercent)}%`.padStart(8)}  ${route.expect}`,
    );
  }
  console.log(`\nload average ${loadAverage().join(" ")} after the runs`);
  await cleanUp();
  process.exit(failed ? 1 : 0);
} catch (err) {
  console.error(err);
  await cleanUp();
  process.exit(1);
}
