// Benchmark: a Click Log page over one day and a conversion's click lookup, at 1,000,000 clicks in
// the day, in today's single database and in the day's shard-day objects, against the same calls
// over a day of 10,000 in one database. The figures:
//   docs/click-storage.md "Today's Click Log and lookup at a million clicks a day, measured"
//   docs/click-storage.md "The Click Log and the lookup at a million clicks a day, in the objects"
//
// Three stores, each a fresh local state under today's migrations with `wrangler dev` over it,
// signed in as its first admin:
//   1. one D1 holding 10,000 clicks of the day;
//   2. one D1 holding 1,000,000 (BENCH_CLICKS) of it;
//   3. the same count in the day's 16 shard-day objects (CLICK_SHARDS_PER_DAY=16), through
//      scripts/bench/workers/shard-sim.js, which generates each object's share inside it and gives
//      a few of its clicks real layout-1 ids (with their check) for the postback to look up.
// The days are generated in bulk by the retention benchmarks' generator (scripts/lib/click-days.mjs:
// random click ids, 40 campaigns, 40% with an exit) and rolled up by the cron's own rollup (the
// Click Log's totals read it); the Click Log's total is checked against the clicks generated. Then,
// one call at a time (latency, not throughput), BENCH_ROUNDS of each:
//   - the Click Log's first page over the day (GET /api/clicks, its totals included);
//   - its 20th page;
//   - its first page filtered to one campaign;
//   - its campaign filter's list (clicks and exits per campaign) and its visitor filters' lists;
//   - a conversion's click lookup: the CAKE postback with sub2 a stored click's id (it finds the
//     click, credits its campaign and stores the conversion), a different click each time.
// Prints p50 and p99 of each in each store, the one database's growth from 10,000 to 1,000,000 and
// the objects' figures against the one database's at 1,000,000 (the sharded store held to today's).
//
//   BENCH=click-log-scale npm run bench                           # about 5 minutes
//   BENCH=click-log-scale BENCH_CLICKS=200000 npm run bench       # a smaller large day
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { simCall } from "../lib/click-bench.mjs";
import { DAY_MS, generateClicks, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1, registerFirstAdmin } from "../lib/local-d1.mjs";
import { pct } from "../lib/percentiles.mjs";
import { applyMigrations, freePort, startServer } from "../lib/server.mjs";
import { startShardSim } from "../lib/shard-sim.mjs";
import { bundleWorker } from "../lib/worker-code.mjs";

const LARGE = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const SMALL = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 3;
/** The shard-day objects a day has in the objects' store (the design's count). */
const SHARDS = 16;
/** A bench route that takes longer: the local runtime stopped answering (docs/click-storage.md "Forty days of shard-days, simulated"). */
const CALL_TIMEOUT_MS = 300_000;
const TOKEN = "bench-postback-token-long-enough-0123456789";
// Yesterday in UTC, the report time zone's default: inside the kept days.
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
const DAY = new Date(DAY_START).toISOString().slice(0, 10);

const fmt = (ms) => `${ms.toFixed(1).padStart(7)} ms`;

/**
 * The cron's click rollup (jobs/roll-up-clicks.ts), run inside workerd over the seeded database as
 * the deployed cron runs it every 15 minutes: the Click Log's totals are read from its rows
 * (db/queries/clicks.ts). Without a time budget, so one call counts the whole day.
 */
const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-click-log-scale-code-"));
const rollupWorker = await bundleWorker(
  work,
  `import { createDb } from "@worker/middleware/database";
   import { rollUpClicks } from "@worker/jobs/roll-up-clicks";
   export default {
     async fetch(_request: Request, env: { DB: D1Database }) {
       return Response.json(await rollUpClicks(createDb(env.DB), { now: Date.now(), budgetMs: 3_600_000 }));
     },
   };`,
);

/** A fresh state folder holding `count` clicks of the day in D1, rolled up, and click ids of it for the lookups. */
async function seed(count) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), `trackyard-bench-click-log-scale-${count}-`));
  applyMigrations(stateDir, { quiet: true });
  const { mf, db } = openLocalD1(stateDir, { scriptPath: rollupWorker, quiet: true });
  try {
    const d1 = await db();
    await seedCampaigns(d1);
    let started = Date.now();
    await generateClicks(d1, { start: DAY_START, firstId: 1, count });
    const { results } = await d1
      .prepare("select click_id from clicks order by random() limit ?")
      .bind(ROUNDS + WARMUP)
      .all();
    console.log(`${count.toLocaleString("en-US")} clicks of ${DAY} generated in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    started = Date.now();
    const res = await mf.dispatchFetch("http://bench/rollup");
    if (!res.ok) throw new Error(`rollup: ${res.status} ${await res.text()}`);
    console.log(`  rolled up in ${((Date.now() - started) / 1000).toFixed(0)} s, as the cron does`);
    return { stateDir, clickIds: results.map((r) => r.click_id) };
  } finally {
    await mf.dispose();
  }
}

/** Times each kind of call against the server at `url`, whose store holds `count` clicks of the day; returns ms lists by name. */
async function measure(url, count, clickIds) {
  const cookie = await registerFirstAdmin(url);
  const { total } = await (await fetch(`${url}/api/clicks?startDate=${DAY}&endDate=${DAY}`, { headers: { cookie } })).json();
  if (total !== count) throw new Error(`the Click Log counts ${total} clicks of ${DAY}, not the ${count} generated`);
  const range = `startDate=${DAY}&endDate=${DAY}`;
  const calls = {
    "Click Log page 1": () => [`/api/clicks?${range}&page=1`, { headers: { cookie } }],
    "Click Log page 20": () => [`/api/clicks?${range}&page=20`, { headers: { cookie } }],
    "Click Log, one campaign": () => [`/api/clicks?${range}&page=1&campaignId=7`, { headers: { cookie } }],
    "Click Log's campaign list": () => [`/api/clicks/by-campaign?${range}`, { headers: { cookie } }],
    "Click Log's filter lists": () => [`/api/clicks/facets?${range}`, { headers: { cookie } }],
    "postback's click lookup": (i) => [
      `/postback/cake?token=${TOKEN}&leadid=bench-${i}&oid=1&price=12.50&s2=${clickIds[i]}`,
      { headers: { "cf-connecting-ip": `198.51.100.${(i % 200) + 1}` } },
    ],
  };
  const times = {};
  for (const [name, call] of Object.entries(calls)) {
    times[name] = [];
    for (let i = 0; i < ROUNDS + WARMUP; i++) {
      const [p, init] = call(i);
      const t0 = performance.now();
      const res = await fetch(`${url}${p}`, init);
      const body = await res.text();
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`${name}: ${p} answered ${res.status}: ${body.slice(0, 300)}`);
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  return times;
}

/** The one database holding `count` clicks of the day: seeded, served, measured. */
async function measureD1(count) {
  const seeded = await seed(count);
  try {
    const server = await startServer({ port: await freePort(), stateDir: seeded.stateDir, stdio: "pipe", vars: { POSTBACK_TOKEN: TOKEN } });
    try {
      return await measure(server.url, count, seeded.clickIds);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(seeded.stateDir, { recursive: true, force: true });
  }
}

/**
 * The day's `count` clicks in its SHARDS shard-day objects: the day's count fixed as the cron fixes
 * it, each object's share generated inside it (two objects at a time), the cron's rollup run until
 * it is not behind, a few clicks given real ids for the lookups; then measured as the database is.
 */
async function measureObjects(count) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), `trackyard-bench-click-log-scale-objects-${count}-`));
  const { server, fakes, base } = await startShardSim(stateDir, { CLICK_SHARDS_PER_DAY: String(SHARDS), POSTBACK_TOKEN: TOKEN });
  const call = (pathname) => simCall(base, pathname, CALL_TIMEOUT_MS);
  try {
    const day = Math.floor((DAY_START - Date.UTC(2020, 0, 1)) / DAY_MS);
    await call(`/__bench/sim/cron?now=${DAY_START + 60_000}`);
    let started = Date.now();
    const shards = Array.from({ length: SHARDS }, (_, shard) => shard);
    for (let i = 0; i < shards.length; i += 2) {
      await Promise.all(
        shards.slice(i, i + 2).map((shard) => {
          const share = Math.floor(count / SHARDS) + (shard < count % SHARDS ? 1 : 0);
          return call(`/__bench/sim/generate?day=${day}&shard=${shard}&count=${share}`);
        }),
      );
    }
    console.log(
      `${count.toLocaleString("en-US")} clicks of ${DAY} generated in its ${SHARDS} shard-day objects in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    started = Date.now();
    while ((await call(`/__bench/sim/cron?now=${Date.now()}`)).behind);
    console.log(`  rolled up in ${((Date.now() - started) / 1000).toFixed(0)} s, as the cron does (in passes of a few seconds)`);
    const clickIds = await call(`/__bench/sim/signed?day=${day}&count=${ROUNDS + WARMUP}`);
    const times = await measure(base, count, clickIds);
    // Each lookup found its click in its object: the postback copied every one into D1 for the attribution.
    const { copied } = await call("/__bench/sim/attributed");
    if (copied !== clickIds.length) throw new Error(`the postbacks found ${copied} of the ${clickIds.length} clicks looked up in the objects`);
    return times;
  } finally {
    await server.stop();
    await fakes.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const stores = [
  { name: `one D1, ${SMALL.toLocaleString("en-US")}`, run: () => measureD1(SMALL) },
  { name: `one D1, ${LARGE.toLocaleString("en-US")}`, run: () => measureD1(LARGE) },
  { name: `${SHARDS} objects, ${LARGE.toLocaleString("en-US")}`, run: () => measureObjects(LARGE) },
];
const results = [];
try {
  for (const store of stores) results.push(await store.run());
} finally {
  rmSync(work, { recursive: true, force: true });
}

const cell = (ms) => `${fmt(pct(ms, 50))} / ${fmt(pct(ms, 99))}`;
console.log(`\nOne call at a time, ${ROUNDS} rounds each, p50 / p99, over one day of clicks:`);
console.log(`${"".padEnd(26)}${stores.map((s) => s.name.padStart(25)).join("")}${"D1 1M / 10k".padStart(14)}${"objects / D1".padStart(14)}`);
for (const name of Object.keys(results[0])) {
  const [small, large, objects] = results.map((r) => r[name]);
  console.log(
    `${name.padEnd(26)}${[small, large, objects].map((ms) => cell(ms).padStart(25)).join("")}${`${(pct(large, 50) / pct(small, 50)).toFixed(1)}x`.padStart(14)}${`${(pct(objects, 50) / pct(large, 50)).toFixed(2)}x`.padStart(14)}`,
  );
}
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; this process's CPU ${(process.cpuUsage().user / 1e6).toFixed(1)} s user`,
);
