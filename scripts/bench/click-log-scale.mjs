// Benchmark: today's single-database figures for a Click Log page over one day and a conversion's
// click lookup, at 1,000,000 clicks in the day against the same calls over a day of 10,000
// (docs/click-storage.md "Today's Click Log and lookup at a million clicks a day, measured").
//
// Each size gets a fresh local D1 under today's migrations, its day of clicks generated in bulk by
// the retention benchmarks' generator (scripts/lib/click-days.mjs: random click ids, 40 campaigns,
// 40% with an exit), rolled up by the cron's own rollup (the Click Log's totals read it), and
// `wrangler dev` over it, signed in as its first admin; the Click Log's total is checked against
// the clicks generated. Then, one call at a time (latency, not throughput), BENCH_ROUNDS of each:
//   - the Click Log's first page over the day (GET /api/clicks, its totals included);
//   - its 20th page;
//   - its first page filtered to one campaign;
//   - its campaign filter's list (clicks and exits per campaign) and its visitor filters' lists;
//   - a conversion's click lookup: the CAKE postback with sub2 a stored click's id (it finds the
//     click, credits its campaign and stores the conversion), a different click each time.
// Prints p50 and p99 of each at both sizes and the ratio. These are the figures the sharded store
// of docs/click-storage.md is to be held to.
//
//   BENCH=click-log-scale npm run bench                           # about 2 minutes
//   BENCH=click-log-scale BENCH_CLICKS=200000 npm run bench       # a smaller large day
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DAY_MS, generateClicks, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1, registerFirstAdmin } from "../lib/local-d1.mjs";
import { pct } from "../lib/percentiles.mjs";
import { applyMigrations, freePort, startServer } from "../lib/server.mjs";
import { bundleWorker } from "../lib/worker-code.mjs";

const LARGE = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const SMALL = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 3;
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

/** A fresh state folder holding `count` clicks of the day, rolled up, and click ids of it for the lookups. */
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

/** Times each kind of call against a server over `stateDir`; returns ms lists by name. */
async function measure({ stateDir, clickIds }, count) {
  const server = await startServer({ port: await freePort(), stateDir, stdio: "pipe", vars: { POSTBACK_TOKEN: TOKEN } });
  try {
    const url = server.url;
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
  } finally {
    await server.stop();
  }
}

const results = {};
try {
  for (const count of [SMALL, LARGE]) {
    const seeded = await seed(count);
    try {
      results[count] = await measure(seeded, count);
    } finally {
      rmSync(seeded.stateDir, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`\nOne call at a time, ${ROUNDS} rounds each, over one day in one D1 database (today's store):`);
console.log(
  `${"".padEnd(26)}${`${SMALL.toLocaleString("en-US")} clicks p50 / p99`.padStart(34)}${`${LARGE.toLocaleString("en-US")} clicks p50 / p99`.padStart(36)}  ratio (p50)`,
);
for (const name of Object.keys(results[SMALL])) {
  const small = results[SMALL][name];
  const large = results[LARGE][name];
  console.log(
    `${name.padEnd(26)}${fmt(pct(small, 50))} / ${fmt(pct(small, 99))}      ${fmt(pct(large, 50))} / ${fmt(pct(large, 99))}      ${(pct(large, 50) / pct(small, 50)).toFixed(1)}x`,
  );
}
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; this process's CPU ${(process.cpuUsage().user / 1e6).toFixed(1)} s user`,
);
