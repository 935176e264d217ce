// Benchmark: does /r/:campaignId keep up with a Worker that only answers 302, and lose no clicks?
//
// One run, same machine, same local runtime (`wrangler dev`), the same wrk load on all four:
//   bare            scripts/bench/workers/bare-302.js, nothing else configured
//   bare + assets   the same file with Trackyard's [assets] settings (run_worker_first): locally,
//                   wrangler puts its asset router in front of such a Worker, a hop one Worker
//                   serving both the app and the tracking routes cannot avoid: the like-for-like
//                   baseline
//   /r/             Trackyard's /r/:campaignId: campaign lookup, click id, 302, then the per-IP
//                   rate limit asked and the click stored after the response. Every request comes
//                   from its own address (4,096 per wrk thread), as ad traffic does, so the limit
//                   is asked every time and stores every click.
//   /r/ 10x5x5      the same on a campaign of 10 rule paths x 5 landers x 5 offers, every rule tried
//                   (docs/traffic-distribution.md): the same target as /r/ against bare + assets.
// The load is wrk (C, event-driven; installed with apt-get when missing): BENCH_CONNECTIONS
// connections for BENCH_SECONDS per run, BENCH_ROUNDS rounds alternating the four, each ratio the
// median over back-to-back pairs (the machine's other load drifts between runs; a pair sees the
// same). It prints wrk's own CPU use per run, so a generator that ran out of CPU shows, and the
// CPU the server process used per request (a figure far steadier than req/s on a busy machine).
// Targets, against bare + assets: throughput >= 0.8x, p99 <= 1.5x. Then it sends BENCH_EXACT more
// (5,000) one by one at the same concurrency, reading every answer, waits for the writes and
// compares stored clicks (and clicks the rate limit refused: there should be none) with the 302s.
//
// BENCH_PROFILE=1 adds runs that show where /r/ spends its time (see the README, "Speed"): an exit
// with no click (/click?clickId=none&cid=: routing, the campaign from the isolate's cache and a 302,
// with no rate limit and no write: wrk cannot time HEAD answers), GET /r/ from one address (the
// rate limit asked; past 600 a minute nothing is written, only counted), an unknown campaign
// (routing, a cached miss, the 404 page). What storing a click costs outside HTTP, its JSON
// tuple in the Worker and its insert in SQLite (D1's local engine, the same process as the Worker):
// scripts/bench/tracking-redirect-cpu.mjs.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildWeb, ROOT, runWranglerDev, startServer } from "../lib/server.mjs";
import { cpuCount, descendantsNamed, ensureWrk, loadAverage, runWrk } from "../lib/wrk.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PROFILE = process.env.BENCH_PROFILE === "1";
const EXACT_REQUESTS = Number(process.env.BENCH_EXACT ?? 5_000);
const APP_PORT = 8942;
const AD_QUERY = "cid=1799000000000001&ad=1799000000000002&cr=1799000000000003&plc=tiktok_feed&cname=Spring%20Sale&aname=Broad%2018-34&crname=Video%20A";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmpDirs = [];
const tmpDir = (name) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `trackyard-bench-${name}-`));
  tmpDirs.push(dir);
  return dir;
};

/** wrk scripts: a distinct CF-Connecting-IP per request (4,096 per thread, in turn), and one address. */
function writeScripts() {
  const dir = tmpDir("wrk");
  const manyAddresses = `
local requests = {}
local n = 0
local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("tid", thread_id)
end
function init(args)
  local id = tonumber(tid or 1)
  for i = 1, 4096 do
    local ip = string.format("10.%d.%d.%d", id % 256, math.floor((i - 1) / 256), (i - 1) % 256)
    requests[i] = wrk.format(METHOD, nil, { ["CF-Connecting-IP"] = ip })
  end
end
function request()
  n = n % #requests + 1
  return requests[n]
end
`;
  const scripts = {
    manyAddresses: path.join(dir, "many-addresses.lua"),
    oneAddress: path.join(dir, "one-address.lua"),
  };
  writeFileSync(scripts.manyAddresses, `local METHOD = "GET"\n${manyAddresses}`);
  writeFileSync(scripts.oneAddress, `wrk.headers["CF-Connecting-IP"] = "198.51.100.1"\n`);
  return scripts;
}

/**
 * Drains a server's output (an unread pipe would stall it) and keeps the last lines for a failure
 * report, leaving out the one-per-request log lines so that errors are not pushed out by them.
 */
function tail(child, name, keep = 40) {
  const lines = [];
  const perRequest = /\[wrangler:info\] (GET|HEAD) /;
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk) => {
      lines.push(
        ...chunk
          .split("\n")
          .filter((l) => l && !perRequest.test(l))
          .map((l) => `[${name}] ${l}`),
      );
      lines.splice(0, Math.max(0, lines.length - keep));
    });
  }
  return lines;
}

/** Trackyard's own routing settings of its [assets] (wrangler.toml), given to the bare Worker as they are. */
const TRACKYARD_ASSET_ROUTING = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")
  .split("\n")
  .filter((line) => /^(not_found_handling|run_worker_first)\s*=/.test(line));
if (TRACKYARD_ASSET_ROUTING.length !== 2) throw new Error("wrangler.toml: [assets] not_found_handling and run_worker_first not found");

/**
 * `wrangler dev` on the bare Worker, configured from its own folder so the repo's wrangler.toml is
 * not used. Its own inspector port: two wrangler processes starting at once race for the default.
 */
async function startBare(name, port, { assets }) {
  const dir = tmpDir(name);
  const config = [
    `name = "${name}"`,
    `main = ${JSON.stringify(path.join(ROOT, "scripts", "bench", "workers", "bare-302.js"))}`,
    `compatibility_date = "2026-04-20"`,
    `compatibility_flags = ["nodejs_compat"]`,
    ...(assets ? ["[assets]", `directory = ${JSON.stringify(path.join(ROOT, "dist", "client"))}`, `binding = "ASSETS"`, ...TRACKYARD_ASSET_ROUTING] : []),
  ];
  writeFileSync(path.join(dir, "wrangler.toml"), `${config.join("\n")}\n`);
  let output = [];
  try {
    const server = await runWranglerDev({
      port,
      args: ["--inspector-port", String(port + 300), "--persist-to", dir],
      cwd: dir,
      stdio: "pipe",
      onSpawn: (child) => (output = tail(child, name)),
      ready: async (url) => (await fetch(url, { redirect: "manual" })).status === 302,
    });
    return { ...server, output };
  } catch (err) {
    throw new Error(`${name}: ${err.message}\n${output.join("\n")}`);
  }
}

/** First admin, lander, offer and two campaigns with the redirect on, through the API. */
async function seed(base) {
  const json = async (res) => {
    if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const register = await fetch(`${base}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "bench-password" }),
  });
  await json(register);
  const cookie = register.headers.getSetCookie()[0].split(";")[0];
  const post = (p, body) =>
    fetch(`${base}${p}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) }).then(json);
  const lander = await post("/api/landers", { name: "Bench lander", url: "https://lander.example/lp?src=tt" });
  const offer = await post("/api/offers", { name: "Bench offer", url: "https://offer.example/go", utmTemplate: "sub1={clickId}&sub2={campaign}" });
  const campaign = await post("/api/campaigns", { name: "Bench", landerId: lander.id, offerId: offer.id, bhToggle: true });
  // The profile's one-address runs use their own campaign, so their refusals stay apart.
  const limited = await post("/api/campaigns", { name: "Bench, one address", landerId: lander.id, offerId: offer.id, bhToggle: true });
  const paths = await pathsCampaign(post, cookie, base);
  return { cookie, campaignId: campaign.id, limitedId: limited.id, pathsId: paths };
}

/**
 * A campaign of 10 rule paths x 5 landers x 5 offers and a default path of the same, through the
 * API (docs/traffic-distribution.md), as scripts/bench/tracking-redirect-cpu.mjs has it: each rule
 * tests country, language, a query parameter and the hour, and wrk's requests (no request.cf
 * locally) match none, so every rule is tried before the default path takes them.
 */
async function pathsCampaign(post, cookie, base) {
  const landers = [];
  const offers = [];
  for (let i = 0; i < 5; i++) {
    landers.push((await post("/api/landers", { name: `Bench lander ${i}`, url: `https://lander${i}.example/lp?src=tt` })).id);
    offers.push(
      (await post("/api/offers", { name: `Bench offer ${i}`, url: `https://offer${i}.example/go`, utmTemplate: "sub1={clickId}&sub2={campaign}" })).id,
    );
  }
  const campaign = await post("/api/campaigns", { name: "Bench, paths", landerId: landers[0], offerId: offers[0], bhToggle: true });
  const variants = () => ({
    landers: landers.map((landerId, v) => ({ landerId, weight: 10 + v })),
    offers: offers.map((offerId, v) => ({ offerId, weight: 20 - v })),
  });
  const paths = Array.from({ length: 10 }, (_, p) => ({
    name: `Rule ${p}`,
    isDefault: false,
    conditions: [
      { field: "country", op: "is", values: ["US", "CA", "GB", "AU", "NZ"] },
      { field: "language", op: "is", values: ["en", "es", "de"] },
      { field: "param", param: "plc", op: "isNot", values: [`placement_${p}`] },
      { field: "hour", op: "is", values: Array.from({ length: 24 }, (_, h) => String(h)) },
    ],
    ...variants(),
  }));
  paths.push({ name: "Default", isDefault: true, conditions: [], ...variants() });
  const res = await fetch(`${base}/api/campaigns/${campaign.id}/paths`, {
    method: "PUT",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ paths }),
  });
  if (!res.ok) throw new Error(`paths: ${res.status} ${await res.text()}`);
  return campaign.id;
}

async function clickCounts(base, cookie, campaignId) {
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const range = `startDate=${day(-1)}&endDate=${day(1)}&campaignId=${campaignId}`;
  const [log, refused] = await Promise.all(
    [`/api/clicks?${range}&pageSize=1`, `/api/clicks/refused?${range}`].map(async (p) => {
      const res = await fetch(`${base}${p}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return res.json();
    }),
  );
  return { stored: log.total, refused: refused.clicks };
}

const fmt = (n, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values) => `${fmt(Math.min(...values), 2)}-${fmt(Math.max(...values), 2)}`;

/** Exactly `count` GETs from distinct addresses, CONNECTIONS at a time; returns the 302s read. */
async function sendExactly(url, count) {
  let next = 0;
  let redirects = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const res = await fetch(url, { redirect: "manual", headers: { "cf-connecting-ip": `10.200.${(i >> 8) & 255}.${i & 255}` } });
      await res.arrayBuffer();
      if (res.status === 302) redirects++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  if (redirects !== count) throw new Error(`${count - redirects} of ${count} exact requests were not answered with 302`);
  return redirects;
}

const servers = {};
const cleanUp = async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
};
// Interrupted (Ctrl-C, a timeout): never leave the wrangler servers running.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => cleanUp().finally(() => process.exit(130)));
}

try {
  ensureWrk();
  if (!existsSync(path.join(ROOT, "dist", "client", "index.html"))) buildWeb();
  const scripts = writeScripts();
  console.log("Starting the bare 302 Worker (plain, and with Trackyard's assets settings) and Trackyard under wrangler dev...");
  [servers.bare, servers.bareAssets, servers.app] = await Promise.all([
    startBare("bare-302", 8941, { assets: false }),
    startBare("bare-302-assets", 8943, { assets: true }),
    startServer({ port: APP_PORT, stateDir: tmpDir("app"), stdio: "pipe" }),
  ]);
  servers.app.output = tail(servers.app.child, "trackyard");
  const { cookie, campaignId, limitedId, pathsId } = await seed(servers.app.url);
  const pids = Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, descendantsNamed(s.child.pid, "workerd")]));

  const targets = {
    bare: { label: "bare 302 Worker", url: `${servers.bare.url}/r/1?${AD_QUERY}`, pids: pids.bare },
    bareAssets: { label: "bare + assets", url: `${servers.bareAssets.url}/r/1?${AD_QUERY}`, pids: pids.bareAssets },
    app: { label: "/r/ (recording)", url: `${servers.app.url}/r/${campaignId}?${AD_QUERY}`, script: scripts.manyAddresses, pids: pids.app },
    appPaths: { label: "/r/ 10x5x5 paths", url: `${servers.app.url}/r/${pathsId}?${AD_QUERY}`, script: scripts.manyAddresses, pids: pids.app },
    appNoWrite: { label: "exit, no click", url: `${servers.app.url}/click?clickId=none&cid=${campaignId}`, script: scripts.manyAddresses, pids: pids.app },
    appOneAddress: { label: "/r/ one address", url: `${servers.app.url}/r/${limitedId}?${AD_QUERY}`, script: scripts.oneAddress, pids: pids.app },
    appUnknown: { label: "/r/ unknown id", url: `${servers.app.url}/r/999999?${AD_QUERY}`, script: scripts.manyAddresses, pids: pids.app },
  };
  const order = ["bareAssets", "app", "appPaths", "bare", ...(PROFILE ? ["appNoWrite", "appOneAddress", "appUnknown"] : [])];
  const load = (key, seconds = SECONDS) =>
    runWrk({ url: targets[key].url, seconds, connections: CONNECTIONS, script: targets[key].script, serverPids: targets[key].pids });

  // Warm-up: JIT, the isolate's campaign cache, D1's first writes.
  const warm = {};
  for (const key of order) warm[key] = await load(key, 2);
  console.log(
    `Load: wrk, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds alternating; ${cpuCount()} cores, load average ${loadAverage().join(" ")} before the runs.\n`,
  );

  const runs = Object.fromEntries(order.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const key of order) runs[key].push(await load(key));
  }
  const loadAfter = loadAverage();

  console.log("                        req/s  p50 ms  p99 ms  answered  not 2xx/3xx  errors  wrk CPU  server CPU/req");
  for (let i = 0; i < ROUNDS; i++) {
    for (const key of order) {
      const r = runs[key][i];
      console.log(
        `${`${targets[key].label} #${i + 1}`.padEnd(21)} ${fmt(r.rps).padStart(7)} ${fmt(r.p50, 1).padStart(7)} ${fmt(r.p99, 1).padStart(7)} ${fmt(r.ok).padStart(9)} ${fmt(r.notOk).padStart(12)} ${fmt(r.errors).padStart(7)} ${`${fmt(r.wrkCpuPercent)}%`.padStart(8)} ${`${fmt(r.serverCpuMsPerRequest, 3)} ms`.padStart(15)}`,
      );
    }
  }
  const pairs = (key, base, field) => runs[key].map((r, i) => r[field] / runs[base][i][field]);
  const ratio = (key, base, field) => median(pairs(key, base, field));
  console.log("");
  for (const key of order) {
    const rs = runs[key];
    console.log(
      `${targets[key].label.padEnd(17)} median ${fmt(median(rs.map((r) => r.rps))).padStart(6)} req/s, p99 ${fmt(median(rs.map((r) => r.p99)), 1)} ms, server CPU ${fmt(median(rs.map((r) => r.serverCpuMsPerRequest)), 3)} ms/request, wrk CPU up to ${fmt(Math.max(...rs.map((r) => r.wrkCpuPercent)))}%`,
    );
  }
  const throughputRatio = ratio("app", "bareAssets", "rps");
  const p99Ratio = ratio("app", "bareAssets", "p99");
  console.log("");
  console.log(
    `/r/ / bare + assets: throughput ${throughputRatio.toFixed(2)} (target >= 0.80; pairs ${spread(pairs("app", "bareAssets", "rps"))}), p99 ${p99Ratio.toFixed(2)} (target <= 1.50; pairs ${spread(pairs("app", "bareAssets", "p99"))})`,
  );
  console.log(
    `/r/ / plain bare:    throughput ${ratio("app", "bare", "rps").toFixed(2)} (pairs ${spread(pairs("app", "bare", "rps"))}), p99 ${ratio("app", "bare", "p99").toFixed(2)}`,
  );
  const pathsRatio = ratio("appPaths", "bareAssets", "rps");
  console.log(
    `/r/ 10x5x5 paths / bare + assets: throughput ${pathsRatio.toFixed(2)} (target: no lower than /r/'s ${throughputRatio.toFixed(2)} beside it, within the pairs' spread; pairs ${spread(pairs("appPaths", "bareAssets", "rps"))}), p99 ${ratio("appPaths", "bareAssets", "p99").toFixed(2)}; against /r/: ${ratio("appPaths", "app", "rps").toFixed(2)}x throughput, server CPU ${ratio("appPaths", "app", "serverCpuMsPerRequest").toFixed(2)}x`,
  );
  const cpuPairs = pairs("app", "bareAssets", "serverCpuMsPerRequest");
  console.log(
    `/r/ / bare + assets, server CPU per request: ${median(cpuPairs).toFixed(2)}x (pairs ${spread(cpuPairs)}; steadier than req/s on a busy machine: a server-bound throughput ratio is about its inverse, ${(1 / median(cpuPairs)).toFixed(2)}x)`,
  );
  console.log(`load average ${loadAfter.join(" ")} after the runs (a busy machine makes single pairs noisy)`);

  if (PROFILE) {
    const cpu = (key) => median(runs[key].map((r) => r.serverCpuMsPerRequest));
    const rps = (key) => ratio(key, "bareAssets", "rps");
    console.log("\nWhere /r/ spends it (server CPU per request, median; throughput against bare + assets in the same round):");
    const rows = [
      ["bare + assets (asset router, a constant 302)", "bareAssets"],
      ["/r/ unknown id (routing, cached miss, 404 page)", "appUnknown"],
      ["exit, no click (routing, campaign from cache, 302; no limit, no write)", "appNoWrite"],
      ["/r/ one address (+ click built, rate limit asked; refused: counted)", "appOneAddress"],
      ["/r/ (+ click batched and written to D1)", "app"],
    ];
    for (const [label, key] of rows) {
      console.log(`  ${label.padEnd(72)} ${fmt(cpu(key), 3).padStart(7)} ms  ${rps(key).toFixed(2)}x`);
    }
    console.log(
      `  => routing + lookup over bare + assets: ${fmt(cpu("appNoWrite") - cpu("bareAssets"), 3)} ms; click + rate limit: ${fmt(cpu("appOneAddress") - cpu("appNoWrite"), 3)} ms; storing it (batch, JSON, SQLite): ${fmt(cpu("app") - cpu("appOneAddress"), 3)} ms`,
    );
    console.log("  (the Worker's own CPU per request, without the HTTP stack: BENCH=tracking-redirect-cpu)");
  }

  // Every 302 /r/ answered is a click that must reach D1 (or, over the limit, be counted), warm-up
  // included. wrk counts the answers it read; a request cut off when a run ended may still have
  // been answered and stored, so up to one per connection per run can be stored on top. So the
  // wrk runs are followed by an exact count: EXACT_REQUESTS sent by Node at the same concurrency,
  // every answer read, and exactly that many more clicks must be stored.
  const wrkAnswered = warm.app.ok + runs.app.reduce((s, r) => s + r.ok, 0);
  const slack = CONNECTIONS * (ROUNDS + 1);
  const exact = await sendExactly(targets.app.url, EXACT_REQUESTS);
  const answered = wrkAnswered + exact;
  let counts = { stored: 0, refused: 0 };
  const waitStart = Date.now();
  for (let stable = 0, last = -1; Date.now() - waitStart < 60_000; await sleep(500)) {
    counts = await clickCounts(servers.app.url, cookie, campaignId);
    if (counts.stored + counts.refused >= answered) break;
    stable = counts.stored === last ? stable + 1 : 0;
    last = counts.stored;
    if (stable >= 10) break;
  }
  const accounted = counts.stored + counts.refused;
  const lost = Math.max(0, answered - accounted);
  console.log(
    `clicks: ${fmt(answered)} answered with 302 (${fmt(wrkAnswered)} read by wrk, ${fmt(exact)} sent and read one by one), ${fmt(counts.stored)} stored, ${fmt(counts.refused)} refused by the rate limit, ${fmt(lost)} lost` +
      ` (${fmt(Math.max(0, accounted - answered))} more stored than answers read: requests cut off at the end of a wrk run, at most ${fmt(slack)}; all in ${((Date.now() - waitStart) / 1000).toFixed(1)} s after the load ended)`,
  );
  if (lost || accounted - answered > slack) console.log(servers.app.output.join("\n"));
  const ok = throughputRatio >= 0.8 && pathsRatio >= 0.8 && p99Ratio <= 1.5 && lost === 0 && accounted - answered <= slack;
  console.log(ok ? "PASS" : "FAIL: see the targets above");
  process.exitCode = ok ? 0 : 1;
} catch (err) {
  console.error(err);
  for (const server of Object.values(servers)) if (server.output?.length) console.error(server.output.join("\n"));
  process.exitCode = 1;
} finally {
  await cleanUp();
}
