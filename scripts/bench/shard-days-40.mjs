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
// each day: no raw click is in D1), the objects held stop at the kept days, CAKE's click report
// adds under a fifth of the D1 rows a reported click it did before (below), and the conversions in
// D1 stop growing once they are 35 days old (worker/src/retention/conversions.ts).
//
// At a million clicks a day (BENCH_CLICKS_PER_DAY=1000000: about 90 minutes, 40 with
// BENCH_CAKE=0): the local runtime (wrangler dev 4.86.0) now and then leaves a request unanswered,
// with no CPU in use, until another request arrives; the server gets a request that does nothing
// every few seconds (scripts/lib/shard-sim.mjs), and a call still unanswered after CALL_TIMEOUT_MS
// fails with that said.
//
// CAKE comes too: each day, before its end, the CAKE sync runs as the cron runs it against the
// project's CAKE fake (scripts/lib/fakes.mjs), whose click report lists 2 in 5 of the day's clicks (sub2 = the click id,
// as the offer link sends it) and whose conversions are 1 in 20 of those. The click report rows
// go to the clicks' objects (tracking/cake-shards.ts); the bench prints what each pull added to
// D1, and at the end, as the baseline in the same run, what the same day's rows add to D1 written
// as the pull wrote them before (every row in cake_stats, every reported click copied into D1).
import os from "node:os";
import { benchDirs, fmt, simCall } from "../lib/click-bench.mjs";
import { cakeRowsOf, DAY_MS } from "../lib/click-days.mjs";
import { startShardSim } from "../lib/shard-sim.mjs";
import { loadAverage } from "../lib/wrk.mjs";

const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 16_000);
/** BENCH_CAKE=0: no CAKE pull in the simulated days (at a million clicks a day each takes about 45 s here). */
const WITH_CAKE = process.env.BENCH_CAKE !== "0";
/** A call that takes longer: the local runtime has stopped answering (see above). */
const CALL_TIMEOUT_MS = 120_000;
const DAYS = Number(process.env.BENCH_DAYS ?? 40);
const SHARDS = 16;
const RETENTION = 30;
/** Days a conversion stays in D1 at least (worker/src/retention/conversions.ts `CONVERSIONS_KEPT_DAYS`). */
const CONVERSIONS_KEPT = 35;
const IN_FLIGHT = 4;
const OBJECT_LIMIT = 10e9;
/** The first simulated day, as days since 2020-01-01 (click ids count days so). */
const FIRST = Math.floor((Date.UTC(2026, 0, 1) - Date.UTC(2020, 0, 1)) / DAY_MS);
const dayStart = (day) => Date.UTC(2020, 0, 1) + day * DAY_MS;
const isoDay = (day) => new Date(dayStart(day)).toISOString().slice(0, 10);

const { tmp, removeAll } = benchDirs("trackyard-bench-shard-days");
const stateDir = tmp("state");
const mb = (bytes) => `${fmt(bytes / 1e6, 1)} MB`;
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

const call = (base, pathname) => simCall(base, pathname, CALL_TIMEOUT_MS);

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
// The project's CAKE fake (worker/test/fakes/cake-fake.ts), served as `npm run fakes` serves it.
const { fakes, server, base, workerdCpu } = await startShardSim(stateDir, {
  CLICK_SHARDS_PER_DAY: String(SHARDS),
  CLICKS_RETENTION_DAYS: String(RETENTION),
});
const startedAt = performance.now();
const benchCpuStart = process.cpuUsage();
const rows = [];
let archived = 0;
let baseline = null;
try {
  console.log(
    "day | simulated | D1 | objects held (days) | their bytes | largest object | of 10 GB | archived | generate | CAKE rows | pull's D1 growth | conversions in D1 (in R2) | day's end",
  );
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
    // Late in the day: CAKE's report of it, pulled by the sync as the cron runs it.
    const ids = WITH_CAKE ? await call(base, `/__bench/sim/cake-ids?day=${day}`) : [];
    let pull = { before: { bytes: 0, rows: 0 }, after: { bytes: 0, rows: 0 }, objectRows: 0 };
    if (WITH_CAKE) {
      const report = cakeRowsOf(ids, isoDay(day));
      fakes.cake.state.clicks = report.clicks;
      fakes.cake.state.conversions = report.conversions;
      pull = await call(base, `/__bench/sim/cake?now=${dayStart(day) + 23 * 3_600_000}`);
      if (pull.run.status !== "ok") throw new Error(`the CAKE sync of ${isoDay(day)}: ${pull.run.status} ${pull.run.error ?? ""}`);
    }
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
      cakeRows: ids.length,
      pullBytes: pull.after.bytes - pull.before.bytes,
      pullRows: pull.after.rows - pull.before.rows,
      objectCakeRows: pull.objectRows,
      ledger: sizes.conversions.ledger,
      sends: sizes.conversions.sends,
      inR2: sizes.conversions.archived,
    };
    rows.push(row);
    console.log(
      `${row.day} | ${row.date} | ${mb(row.d1)} | ${row.heldDays} | ${mb(row.heldBytes)} | ${mb(largest)} | ${((largest / OBJECT_LIMIT) * 100).toFixed(2)}% | ${archived} | ${secs(generated)} | ${fmt(ids.length)} | ${mb(row.pullBytes)} | ${fmt(row.ledger)} (${fmt(row.inR2)}) | ${secs(ended)}`,
    );
  }
  // The baseline: the last day's rows, written as the pull wrote them before.
  if (rows.length && WITH_CAKE) baseline = await call(base, `/__bench/sim/cake-d1?day=${FIRST + DAYS - 1}&now=${dayStart(FIRST + DAYS - 1) + 23 * 3_600_000}`);
  const cpu = process.cpuUsage(benchCpuStart);
  console.log(
    `\nThis process (the load: HTTP calls only) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU in ${secs(performance.now() - startedAt)}; workerd used ${fmt(workerdCpu(), 0)} s`,
  );
} finally {
  await server.stop();
  await fakes.close();
}

// --- CAKE's click rows ----------------------------------------------------------------------------
let cakeCut = false;
if (rows.length && baseline) {
  const reported = rows.reduce((a, r) => a + r.cakeRows, 0);
  const rowsNow = rows.reduce((a, r) => a + r.pullRows, 0) / reported;
  const rowsBefore = (baseline.after.rows - baseline.before.rows) / baseline.rows;
  const bytesNow = rows.reduce((a, r) => a + r.pullBytes, 0) / reported;
  const bytesBefore = (baseline.after.bytes - baseline.before.bytes) / baseline.rows;
  console.log(
    `CAKE: ${fmt(reported)} click rows reported over ${rows.length} days, 1 in 20 converted; the objects held ${fmt(rows.at(-1).objectCakeRows)} of them at the end`,
  );
  console.log(
    `  D1 rows a reported click (cake_stats, and the copies of reported clicks in attributed_clicks): ${rowsNow.toFixed(3)} now (its conversion's), ${rowsBefore.toFixed(3)} written as before (the baseline, same run: ${fmt(baseline.rows)} rows of the last day)`,
  );
  console.log(
    "  (The generated click ids carry no signature, so neither path copies a click here: with real ids the pull before also copied every reported click, a second row in D1 for each.)",
  );
  console.log(
    `  D1's file grew ${fmt(bytesNow, 0)} bytes a reported click with the pulls, ${fmt(bytesBefore, 0)} with the baseline: at this scale mostly each day's new rollup rows, which grow with the day's combinations of campaign, ad and audience values, not with its clicks`,
  );
  cakeCut = rowsNow < rowsBefore / 5;
}

// --- What it shows ------------------------------------------------------------------------------
const first = rows.find((r) => r.day === RETENTION + 1);
const last = rows.at(-1);
if (first && last) {
  const perDay = (last.d1 - first.d1) / (last.day - first.day || 1);
  const before = (rows[RETENTION - 1].d1 - rows[0].d1) / (RETENTION - 1);
  const dayBytes = rows.reduce((a, r) => a + r.dayBytes, 0) / rows.length;
  console.log(
    `D1 grows ${mb(perDay)} a day once days are archived (days ${first.day}-${last.day}), ${mb(before)} a day before (days 1-${RETENTION}): ${WITH_CAKE ? `the rollups' rows, and the conversions' (CAKE's ledger and TikTok's send rows) until they are ${CONVERSIONS_KEPT} days old` : "the rollups' rows, kept for the report's history"}; a day's clicks take ${mb(dayBytes)} in their objects`,
  );
  // The conversions leave D1 once their clicks are archived and they are old enough.
  const kept = rows[CONVERSIONS_KEPT - 1];
  let conversionsFlat = true;
  if (WITH_CAKE && kept && last.day > kept.day) {
    const leaving = (last.d1 - kept.d1) / (last.day - kept.day);
    const keeping = (kept.d1 - first.d1) / (kept.day - first.day || 1);
    conversionsFlat = last.ledger <= kept.ledger;
    console.log(
      `Conversions: ${fmt(kept.ledger)} ledger rows in D1 after day ${kept.day}, ${fmt(last.ledger)} after day ${last.day} (${fmt(last.sends)} TikTok send rows), ${fmt(last.inR2)} gone to R2; D1 grows ${mb(leaving)} a day once they leave (days ${kept.day + 1}-${last.day}), ${mb(keeping)} while they are kept (days ${first.day}-${kept.day})`,
    );
    console.log(`At ${mb(leaving)} a day, D1's 10 GB would last ${fmt(10e9 / leaving / 365, 1)} years`);
  } else {
    console.log(`At ${mb(perDay)} a day, D1's 10 GB would last ${fmt(10e9 / perDay / 365, 1)} years`);
  }
  console.log(`Objects held after day ${last.day}: ${last.heldDays} days (the ${RETENTION} kept, and the counts fixed ahead), ${mb(last.heldBytes)}`);
  const largest = Math.max(...rows.map((r) => r.largest));
  const perClick = largest / (PER_DAY / SHARDS);
  const atTarget = perClick * (33_300_000 / SHARDS);
  console.log(
    `Largest object: ${mb(largest)} (${fmt(perClick, 0)} bytes a click with its share of the tables); at the design's 2,081,250 clicks a shard-day: ${mb(atTarget)}, ${((atTarget / OBJECT_LIMIT) * 100).toFixed(1)}% of 10 GB`,
  );
  const flat = perDay <= before * 1.1 && last.heldDays <= RETENTION + 3 && (cakeCut || !WITH_CAKE) && conversionsFlat;
  console.log(
    `${flat ? "PASS" : "FAIL"}: D1 grows no faster once days are archived (${((perDay / before) * 100).toFixed(0)}% of its growth before), the objects held stop at the kept days${WITH_CAKE ? `, CAKE's click report adds under a fifth of the rows it did to D1${kept && last.day > kept.day ? `, and the conversions in D1 stop growing after day ${CONVERSIONS_KEPT}` : ""}` : " (BENCH_CAKE=0: no CAKE pull)"}`,
  );
  if (!flat) process.exitCode = 1;
} else {
  console.log(`(${DAYS} days: under ${RETENTION + 1}, no day was archived; BENCH_DAYS=40 shows the retention at work)`);
  if (WITH_CAKE) {
    console.log(`${cakeCut ? "PASS" : "FAIL"}: CAKE's click report adds under a fifth of the rows it did to D1`);
    if (!cakeCut) process.exitCode = 1;
  }
}
removeAll();
