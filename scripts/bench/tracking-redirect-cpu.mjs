// Benchmark: the Worker's own CPU per request for /r/, against a Worker that only answers 302,
// without the HTTP stack. tracking-redirect.mjs measures /r/ under load through wrangler dev, where
// the local runtime's own per-request work (its proxy, the asset router, the HTTP parsing) and D1's
// SQLite share the two cores with the Worker; this one measures what the Worker's code costs and
// what it leaves to D1, which in production runs elsewhere.
//
// The Worker's code is bundled from worker/src and run in Node (the same V8 as workerd): app.fetch
// in a loop, its background work (click batches, refusal counts) awaited, timed with
// process.cpuUsage. CPU time rather than req/s, so the machine's other load barely moves it. The
// Rate Limiting binding is stood in for (allowing, refusing, absent); D1 is a fresh local database
// in its own workerd process, whose CPU is read from /proc for the inserts.
// BENCH_REQUESTS sets the requests per variant (default 20,000).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { URLSearchParams } from "node:url";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations } from "../lib/server.mjs";
import { bundleWorkerCode } from "../lib/worker-code.mjs";
import { cpuSeconds, descendantsNamed, loadAverage } from "../lib/wrk.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
/** Rounds of the one-path against the paths campaign, each of REQUESTS / PAIR_ROUNDS requests per campaign. */
const PAIR_ROUNDS = 40;
const AD_QUERY = "cid=1799000000000001&ad=1799000000000002&cr=1799000000000003&plc=tiktok_feed&cname=Spring%20Sale&aname=Broad%2018-34&crname=Video%20A";
const fmt = (n, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const tmpDirs = [];
const tmpDir = (name) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `trackyard-bench-${name}-`));
  tmpDirs.push(dir);
  return dir;
};

/** The Worker's code, bundled from worker/src for Node (the same V8 as workerd), and a fresh local D1. */
async function workerCode() {
  const dir = tmpDir("code");
  const code = await bundleWorkerCode(dir, {
    "app.ts": ["app"],
    "middleware/database.ts": ["createDb"],
    "db/queries/clicks.ts": ["insertClicks"],
    "lib/json-chunks.ts": ["jsonChunks"],
    "db/queries/campaigns.ts": ["findTrackedCampaign"],
    "tracking/distribution.ts": ["liveCampaign", "visitOf", "choosePath", "chooseVariants"],
  });
  applyMigrations(dir, { quiet: true });
  const local = openLocalD1(dir);
  const d1 = await local.db();
  await d1.batch([
    d1.prepare("insert into landers (id, name, url) values (1, 'L', 'https://lander.example/lp?src=tt')"),
    d1.prepare("insert into offers (id, name, url, utm_template) values (1, 'O', 'https://offer.example/go', 'sub1={clickId}&sub2={campaign}')"),
    d1.prepare("insert into campaigns (id, name, lander_id, offer_id, bh_toggle) values (1, 'C', 1, 1, 1)"),
  ]);
  await d1.batch(pathsCampaign(d1));
  const [workerd] = descendantsNamed(process.pid, "workerd");
  return { code, d1, mf: local.mf, workerd };
}

/**
 * Campaign 2: 10 rule paths of 5 landers x 5 offers each, and a default path of the same
 * (docs/traffic-distribution.md). Each rule tests country, language, a query parameter and the
 * hour; the benchmark's visitor (no request.cf, as in Node) matches none, so every rule is
 * evaluated before the default path takes it: the worst case of the rules' own cost.
 */
function pathsCampaign(d1) {
  const statements = [d1.prepare("insert into campaigns (id, name, lander_id, offer_id, bh_toggle) values (2, 'Paths', 1, 1, 1)")];
  for (let i = 0; i < 5; i++) {
    statements.push(
      d1.prepare(`insert into landers (id, name, url) values (${10 + i}, 'L${i}', 'https://lander${i}.example/lp?src=tt')`),
      d1.prepare(
        `insert into offers (id, name, url, utm_template) values (${10 + i}, 'O${i}', 'https://offer${i}.example/go', 'sub1={clickId}&sub2={campaign}')`,
      ),
    );
  }
  for (let p = 0; p <= 10; p++) {
    const isDefault = p === 10;
    const conditions = isDefault
      ? []
      : [
          {
            field: "country",
            op: "is",
            values: ["US", "CA", "GB", "AU", "NZ"].map((c, j) => (j === 0 ? c : `${c.slice(0, 1)}${String.fromCharCode(65 + ((p + j) % 26))}`)),
          },
          { field: "language", op: "is", values: ["en", "es", "de"] },
          { field: "param", param: "plc", op: "isNot", values: [`placement_${p}`] },
          {
            field: "hour",
            op: "is",
            values: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23"],
          },
        ];
    statements.push(
      d1
        .prepare("insert into campaign_paths (id, campaign_id, position, name, is_default, conditions) values (?, 2, ?, ?, ?, ?)")
        .bind(100 + p, p, isDefault ? "Default" : `Rule ${p}`, isDefault ? 1 : 0, JSON.stringify(conditions)),
    );
    for (let v = 0; v < 5; v++) {
      statements.push(
        d1.prepare("insert into path_landers (path_id, lander_id, position, weight) values (?, ?, ?, ?)").bind(100 + p, 10 + v, v, 10 + v),
        d1.prepare("insert into path_offers (path_id, offer_id, position, weight) values (?, ?, ?, ?)").bind(100 + p, 10 + v, v, 20 - v),
      );
    }
  }
  return statements;
}

/**
 * A variant ready to time: `path` on app.fetch (or `fetch` itself), warmed up (JIT, the campaign
 * cache), and `measure(n)`, the CPU per request over n requests, their background work included.
 * `limiter` stands in for the Rate Limiting binding.
 */
async function timed({ code, d1 }, name, { path: p, limiter, fetch }) {
  const env = { DB: d1, CLICK_LIMITER: limiter, SESSION_SECRET: "x".repeat(40) };
  const pending = [];
  const ctx = { waitUntil: (promise) => pending.push(promise), passThroughOnException() {}, props: {} };
  const call = fetch ?? (() => code.app.fetch(new Request(`https://trk.example${p}`, { headers: { "cf-connecting-ip": "10.1.2.3" } }), env, ctx));
  for (let i = 0; i < 2_000; i++) await call();
  await Promise.all(pending.splice(0));
  return async (requests) => {
    const started = process.cpuUsage();
    for (let i = 0; i < requests; i++) {
      const res = await call();
      if (res.status !== 302) throw new Error(`${name}: ${res.status}`);
    }
    await Promise.all(pending.splice(0));
    const used = process.cpuUsage(started);
    return (used.user + used.system) / requests;
  };
}

/**
 * The Worker's own CPU per request, in one process with no HTTP stack: app.fetch called in a loop
 * (its background work awaited), timed with process.cpuUsage. CPU time rather than req/s, so the
 * machine's other load barely moves it.
 */
async function inProcessCpu(local, variants, requests = REQUESTS) {
  const results = {};
  for (const [name, variant] of Object.entries(variants)) results[name] = await (await timed(local, name, variant))(requests);
  return results;
}

/** The q-quantile of `values`, linearly interpolated. */
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below] + (sorted[Math.min(below + 1, sorted.length - 1)] - sorted[below]) * (at - below);
};
const median = (values) => quantile(values, 0.5);

/**
 * Two variants compared in the same run: PAIR_ROUNDS rounds, each timing both back to back (which
 * goes first alternates), so the machine's other load and the heap's growth weigh on both alike.
 * Each variant's figure is its median over the rounds; the gap is the median of the rounds' gaps.
 */
async function pairedCpu(local, [nameA, a], [nameB, b], requests = REQUESTS) {
  const [measureA, measureB] = [await timed(local, nameA, a), await timed(local, nameB, b)];
  const per = Math.max(500, Math.round(requests / PAIR_ROUNDS));
  const rounds = [];
  for (let r = 0; r < PAIR_ROUNDS; r++) {
    const round = {};
    for (const [name, measure] of r % 2
      ? [
          [nameB, measureB],
          [nameA, measureA],
        ]
      : [
          [nameA, measureA],
          [nameB, measureB],
        ])
      round[name] = await measure(per);
    rounds.push(round);
  }
  const gaps = rounds.map((round) => round[nameB] - round[nameA]);
  return {
    [nameA]: median(rounds.map((round) => round[nameA])),
    [nameB]: median(rounds.map((round) => round[nameB])),
    gap: median(gaps),
    gaps,
  };
}

/**
 * The distribution step of /r/ alone (tracking/distribution.ts), on the paths campaign as the
 * campaign cache holds it: the visit built, the path chosen, a lander and an offer drawn. For the
 * benchmark's own visitor (no request.cf: every rule fails on its country) and for one that
 * reaches rule 1 through country, language, query parameter and hour (so the language and the
 * clock are worked out).
 */
async function distributionCpu({ code, d1 }, visits = 200_000) {
  const { distribution } = code.liveCampaign(await code.findTrackedCampaign(code.createDb(d1), 2));
  // Each visit's facts built as /r/ builds them, property by property (spreading a visitor into
  // them costs V8 more than the whole step).
  const visitors = {
    noCf: { country: null, acceptLanguage: null, query: new URLSearchParams(AD_QUERY) },
    rule1: { country: "US", acceptLanguage: "en-US,en;q=0.9", query: new URLSearchParams("plc=placement_0") },
  };
  const results = {};
  for (const [name, { country, acceptLanguage, query }] of Object.entries(visitors)) {
    const once = () => {
      const facts = { country, region: null, city: null, asn: null, acceptLanguage, query, userAgent: "Mozilla/5.0", at: Date.now() };
      return code.chooseVariants(code.choosePath(distribution, code.visitOf(facts, distribution.timeZone)), null);
    };
    for (let i = 0; i < 20_000; i++) once();
    if (name === "rule1" && once().path.name !== "Rule 1") throw new Error(`rule1 visitor got ${once().path.name}`);
    const started = process.cpuUsage();
    for (let i = 0; i < visits; i++) once();
    const used = process.cpuUsage(started);
    results[name] = (used.user + used.system) / visits;
  }
  return results;
}

/**
 * What storing a click costs, outside HTTP: the Worker's insert path against a fresh local D1 in
 * its own workerd process, whose CPU is read from /proc. The Worker side is building the JSON
 * tuples; the D1 side is SQLite's insert with the table's indexes.
 */
async function measureClickWrites({ code, d1, workerd }, { clicks = 20_000, batch = 1_000 } = {}) {
  const db = code.createDb(d1);
  const row = (i) => ({
    clickId: randomUUID(),
    campaignId: 1,
    tiktokCampaignId: "1799000000000001",
    tiktokAdGroupId: "1799000000000002",
    tiktokCreativeId: "1799000000000003",
    placement: "tiktok_feed",
    campaignName: "Spring Sale",
    adGroupName: "Broad 18-34",
    creativeName: "Video A",
    ipAddress: `10.0.${(i >> 8) & 255}.${i & 255}`,
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0",
    clickedAt: Date.now(),
  });
  const batches = Array.from({ length: clicks / batch }, (_, b) => Array.from({ length: batch }, (_, i) => row(b * batch + i)));
  const json = process.cpuUsage();
  for (const rows of batches) code.jsonChunks(rows.map((r) => Object.values(r)));
  const jsonCpu = process.cpuUsage(json);
  const cpuBefore = cpuSeconds(workerd);
  const started = performance.now();
  for (const rows of batches) await code.insertClicks(db, rows);
  const wall = performance.now() - started;
  const d1Cpu = cpuSeconds(workerd) - cpuBefore;
  return {
    clicks,
    batch,
    jsonUsPerClick: (jsonCpu.user + jsonCpu.system) / clicks,
    d1UsPerClick: (d1Cpu * 1e6) / clicks,
    wallUsPerClick: (wall * 1000) / clicks,
  };
}

console.log(`load average ${loadAverage().join(" ")}; ${fmt(REQUESTS)} requests per variant`);
const local = await workerCode();
try {
  const allow = { limit: async () => ({ success: true }) };
  const refuse = { limit: async () => ({ success: false }) };
  const bare = new Response(null, { status: 302, headers: { Location: "https://lander.example/" } });
  const us = await inProcessCpu(local, {
    bare: { fetch: async () => bare.clone() },
    exitNoClick: { path: "/click?clickId=none&cid=1" },
    refused: { path: `/r/1?${AD_QUERY}`, limiter: refuse },
    noLimiter: { path: `/r/1?${AD_QUERY}` },
  });
  const paired = await pairedCpu(local, ["recorded", { path: `/r/1?${AD_QUERY}`, limiter: allow }], ["paths", { path: `/r/2?${AD_QUERY}`, limiter: allow }]);
  Object.assign(us, paired);
  console.log(
    "\nThe Worker's own CPU per request, in one process without the HTTP stack (Node's V8, the Worker's code bundled, its background work included):",
  );
  const lines = [
    ["a constant 302 Response (the bare Worker's work)", "bare"],
    ["exit, no click: Hono routing, the campaign from the cache, a 302", "exitNoClick"],
    ["/r/ with the rate limit refusing: + click id, query values, limit asked, counted", "refused"],
    ["/r/ without a rate limit binding: + the click batched and written", "noLimiter"],
    ["/r/ as deployed: rate limit asked, click batched and written", "recorded"],
    ["/r/ as deployed, 10 rule paths x 5 landers x 5 offers (every rule tried, then weights)", "paths"],
  ];
  for (const [label, key] of lines) console.log(`  ${label.padEnd(84)} ${fmt(us[key], 1).padStart(6)} us`);
  console.log(
    `  the paths campaign against the one-path campaign: ${fmt(paired.gap, 1)} us per request (the aim: within 10 us), ` +
      `the median of ${PAIR_ROUNDS} back-to-back rounds' gaps (their middle half ${fmt(quantile(paired.gaps, 0.25), 1)} to ${fmt(quantile(paired.gaps, 0.75), 1)} us); load average ${loadAverage().join(" ")}`,
  );
  const step = await distributionCpu(local);
  console.log(
    `  of which the distribution step (visit, path, lander and offer; tracking/distribution.ts): ${fmt(step.noCf, 2)} us for this visitor, ` +
      `${fmt(step.rule1, 2)} us for one reaching rule 1 through country, language, parameter and hour`,
  );
  const write = await measureClickWrites(local);
  console.log(
    `  storing clicks, ${fmt(write.clicks)} in batches of ${fmt(write.batch)}: JSON tuples ${fmt(write.jsonUsPerClick, 1)} us/click on the Worker's side; ` +
      `the insert ${fmt(write.d1UsPerClick, 1)} us/click of CPU in D1's process (SQLite, clicks' 4 indexes), ${fmt(write.wallUsPerClick, 1)} us/click wall`,
  );
} finally {
  await local.mf.dispose();
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
}
