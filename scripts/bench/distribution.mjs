// Benchmark: the traffic optimiser and the split-test verdict, by simulation
// (the methods: docs/traffic-distribution-statistics.md). Seeded: the same figures every run.
//
// 1. Five landers with true conversion rates 0.8%, 1.0%, 1.2%, 1.5% and 2.0%; 20,000 visits a day
//    for 30 days; each conversion arrives after a lognormal delay (median 6 h, a tenth after more
//    than a day, one in a hundred after 4 days): the optimiser sees only conversions that have
//    arrived, credited to the hour of their click. Weights are recomputed every hour from the last
//    7 days, as the cron would. Three ways of splitting the traffic:
//      even      20% each, never changed;
//      formula   Binom-style: weights proportional to the smoothed rate (conversions + 1) / (visits
//                + 100), for revenue (revenue + the pooled payout) / (visits + 100), with a 5% floor;
//      thompson  thompsonWeights (worker/src/distribution/bandit.ts), floor 5%, 200 visits minimum.
//    Prints the conversions each earned, the share of each day's traffic on the best lander, and
//    how many hourly recomputations left a variant below its 5% floor (must be 0).
// 2. The same with revenue: five offers whose payouts differ (CR 2.0% at $10, 1.5% at $15, 1.2% at
//    $20, 1.0% at $30, 0.8% at $35; each conversion's amount lognormal around the offer's payout), in
//    "epv" mode. The best by revenue per visit is the 1.0% offer, not the 2.0% one.
// 3. A/A: split tests between two identical landers (1% each, 1,000 visits each a day), the verdict
//    read every day for 30 days; counts the tests in which it ever named a winner (must be ≤ 5%), and
//    in which a 95% probability of being best alone would have; again on revenue per visit, with
//    payouts spread wider than the verdict's model assumes.
//    And A/B with 1.0% against 1.3%: how often and how soon it names the right one.
//
//   BENCH=distribution npm run bench           # about 30 s of CPU: a minute on an idle 2-core machine
//   BENCH_SEED=7 BENCH=distribution npm run bench
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bundleWorkerCode } from "../lib/worker-code.mjs";

const SEED = Number(process.env.BENCH_SEED ?? 21);
const DAYS = 30;
const VISITS_PER_DAY = 20_000;
const WINDOW_HOURS = 7 * 24;
const FLOOR = 5;
const DELAY_MEDIAN_HOURS = 6;
const DELAY_SIGMA = 1.2;
const AA_TESTS = Number(process.env.BENCH_AA_TESTS ?? 300);

const dir = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-distribution-"));
const code = await bundleWorkerCode(dir, {
  "distribution/bandit.ts": ["thompsonWeights", "applyFloor"],
  "lib/largest-remainder.ts": ["largestRemainder"],
  "distribution/split-test.ts": ["splitTestVerdict"],
  "distribution/random.ts": ["mulberry32", "normal"],
});
rmSync(dir, { recursive: true, force: true });
const { thompsonWeights, applyFloor, largestRemainder, splitTestVerdict, mulberry32, normal } = code;

const fmt = (n, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const pad = (s, w) => String(s).padStart(w);

/** Binom-style fixed formula: weights proportional to a smoothed rate, raised to the floor. */
function formulaWeights(window, mode) {
  const conversions = window.reduce((s, v) => s + v.conversions, 0);
  const pooled = conversions > 0 ? window.reduce((s, v) => s + v.revenue, 0) / conversions : 1;
  const scores = window.map((v) => (mode === "cr" ? (v.conversions + 1) / (v.visits + 100) : (v.revenue + pooled) / (v.visits + 100)));
  return largestRemainder(applyFloor(scores, FLOOR, 100), 100);
}

/**
 * One 30-day run. `arms` hold each variant's true rate and payout; `strategy` is even, formula or
 * thompson. The traffic's random stream is seeded the same for every strategy.
 */
function simulate(arms, strategy, mode, seed) {
  const n = arms.length;
  const hours = DAYS * 24;
  const rng = mulberry32(seed);
  const banditRng = mulberry32(seed ^ 0x5bd1e995);
  let weights = arms.map(() => 100 / n);
  const visitsAt = new Float64Array(hours * n);
  const arrivedConv = new Float64Array(hours * n);
  const arrivedRev = new Float64Array(hours * n);
  const arrivals = Array.from({ length: hours }, () => []);
  const window = arms.map(() => ({ visits: 0, conversions: 0, revenue: 0 }));
  const total = { visits: 0, conversions: 0, revenue: 0 };
  const best = arms.reduce((b, a, i) => (a.cr * a.payout > arms[b].cr * arms[b].payout ? i : b), 0);
  const bestShareByDay = new Array(DAYS).fill(0);
  let belowFloor = 0;
  let recomputations = 0;
  let moves = 0;
  for (let h = 0; h < hours; h++) {
    const visits = Math.floor(VISITS_PER_DAY / 24) + (h % 3 === 0 ? 1 : 0); // 20,000 a day
    const cumulative = [];
    weights.reduce((s, w, i) => (cumulative[i] = s + w), 0);
    for (let k = 0; k < visits; k++) {
      const u = rng() * 100;
      let v = 0;
      while (v < n - 1 && u >= cumulative[v]) v++;
      visitsAt[h * n + v]++;
      window[v].visits++;
      total.visits++;
      if (v === best) bestShareByDay[Math.floor(h / 24)] += 1 / VISITS_PER_DAY;
      if (rng() < arms[v].cr) {
        const revenue = arms[v].payout * Math.exp(0.5 * normal(rng) - 0.125); // mean = the payout
        total.conversions++;
        total.revenue += revenue;
        const arrival = Math.floor(h + rng() + DELAY_MEDIAN_HOURS * Math.exp(DELAY_SIGMA * normal(rng)));
        if (arrival < hours) arrivals[arrival].push({ click: h, v, revenue });
      }
    }
    // The hour ends: conversions that arrived during it are seen, the oldest hour leaves the window.
    for (const a of arrivals[h]) {
      arrivedConv[a.click * n + a.v]++;
      arrivedRev[a.click * n + a.v] += a.revenue;
      if (a.click > h - WINDOW_HOURS) {
        window[a.v].conversions++;
        window[a.v].revenue += a.revenue;
      }
    }
    arrivals[h] = null;
    const leaving = h + 1 - WINDOW_HOURS;
    if (leaving >= 0) {
      for (let v = 0; v < n; v++) {
        window[v].visits -= visitsAt[leaving * n + v];
        window[v].conversions -= arrivedConv[leaving * n + v];
        window[v].revenue -= arrivedRev[leaving * n + v];
      }
    }
    if (strategy === "even") continue;
    recomputations++;
    if (strategy === "formula") weights = formulaWeights(window, mode);
    else {
      const result = thompsonWeights(
        window.map((w, i) => ({ id: `v${i}`, visits: w.visits, conversions: w.conversions, revenue: w.revenue, paused: false, weight: weights[i] })),
        { mode, floorPercent: FLOOR, minVisits: 200, samples: 10_000, rng: banditRng },
      );
      if (result.moved) moves++;
      weights = result.weights.map((w) => w.percent);
    }
    if (weights.some((w) => w < FLOOR)) belowFloor++;
  }
  return { total, bestShareByDay, belowFloor, recomputations, moves, finalWeights: weights };
}

function scenario(title, arms, mode) {
  console.log(`\n${title}`);
  const started = performance.now();
  const runs = {};
  for (const strategy of ["even", "formula", "thompson"]) runs[strategy] = simulate(arms, strategy, mode, SEED);
  const even = runs.even.total;
  console.log(
    `strategy   ${pad("visits", 9)} ${pad("conversions", 12)} ${pad("vs even", 8)} ${pad("revenue $", 10)} ${pad("vs even", 8)}  below floor   final weights %`,
  );
  for (const [name, r] of Object.entries(runs)) {
    const t = r.total;
    const vsC = `${t.conversions >= even.conversions ? "+" : ""}${fmt((t.conversions / even.conversions - 1) * 100, 1)}%`;
    const vsR = `${t.revenue >= even.revenue ? "+" : ""}${fmt((t.revenue / even.revenue - 1) * 100, 1)}%`;
    const floor = name === "even" ? "n/a" : `${r.belowFloor} of ${r.recomputations}`;
    console.log(
      `${name.padEnd(10)} ${pad(fmt(t.visits), 9)} ${pad(fmt(t.conversions), 12)} ${pad(vsC, 8)} ${pad(fmt(t.revenue), 10)} ${pad(vsR, 8)}  ${floor.padEnd(12)}  ${r.finalWeights.map((w) => Math.round(w)).join(" / ")}`,
    );
  }
  console.log(`\nshare of each day's traffic on the best variant (${mode === "cr" ? "2.0% lander" : "1.0% at $30 offer"})`);
  console.log(`day   ${pad("even", 6)} ${pad("formula", 8)} ${pad("thompson", 9)}`);
  for (let d = 0; d < DAYS; d++) {
    const cell = (s) => `${fmt(runs[s].bestShareByDay[d] * 100, 1)}%`;
    console.log(`${pad(d + 1, 3)}   ${pad(cell("even"), 6)} ${pad(cell("formula"), 8)} ${pad(cell("thompson"), 9)}`);
  }
  const t = runs.thompson.total;
  const metric = mode === "cr" ? "conversions" : "revenue";
  const beats = ["even", "formula"].every((s) => t[metric] > runs[s].total[metric]);
  const floorsKept = runs.thompson.belowFloor === 0 && runs.formula.belowFloor === 0;
  console.log(
    `\nthompson beats even and formula on ${metric}: ${beats ? "yes" : "NO"}; no variant below its floor: ${floorsKept ? "yes" : "NO"}; ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  return beats && floorsKept;
}

/**
 * `tests` sequential split tests, the verdict read daily on `metric`: how many named a winner, and
 * when. Each conversion pays $20 in "cr"; in "epv" an amount spread wider than the verdict's model
 * assumes (lognormal, sigma 1: the standard deviation 1.3 times the mean), to check it stays honest.
 */
function splitTests(rates, tests, seed, metric = "cr") {
  const rng = mulberry32(seed);
  let winners = 0;
  let right = 0;
  let daysToDecide = 0;
  let naive = 0; // tests in which a 95% probability of being best alone would have named a winner
  for (let t = 0; t < tests; t++) {
    let naiveWinner = false;
    const arms = rates.map((cr, i) => ({ id: `v${i}`, name: `Lander ${"AB"[i]}`, visits: 0, conversions: 0, revenue: 0, cr }));
    for (let day = 1; day <= DAYS; day++) {
      for (const a of arms) {
        for (let k = 0; k < 1_000; k++) {
          if (rng() >= a.cr) continue;
          a.conversions++;
          a.revenue += metric === "cr" ? 2_000 : Math.round(2_000 * Math.exp(normal(rng) - 0.5));
        }
        a.visits += 1_000;
      }
      const verdict = splitTestVerdict(arms, { metric, samples: 1_000, rng });
      naiveWinner ||= verdict.variants.some((v) => v.probabilityBest >= 0.95);
      if (verdict.winner) {
        winners++;
        if (verdict.winner === "v1") right++;
        daysToDecide += day;
        break;
      }
    }
    if (naiveWinner) naive++;
  }
  return { winners, right, daysToDecide, naive };
}

const started = performance.now();
const ok = [
  scenario(
    "Scenario 1: conversion rate (5 landers: 0.8%, 1.0%, 1.2%, 1.5%, 2.0%), 20,000 visits a day for 30 days",
    [0.008, 0.01, 0.012, 0.015, 0.02].map((cr) => ({ cr, payout: 1 })),
    "cr",
  ),
  scenario(
    "Scenario 2: revenue per visit (5 offers: 2.0% at $10, 1.5% at $15, 1.2% at $20, 1.0% at $30, 0.8% at $35), epv mode",
    [
      { cr: 0.02, payout: 10 },
      { cr: 0.015, payout: 15 },
      { cr: 0.012, payout: 20 },
      { cr: 0.01, payout: 30 },
      { cr: 0.008, payout: 35 },
    ],
    "epv",
  ),
];

const aaStarted = performance.now();
const aa = splitTests([0.01, 0.01], AA_TESTS, SEED + 1);
const aaRevenue = splitTests([0.01, 0.01], AA_TESTS, SEED + 3, "epv");
const ab = splitTests([0.01, 0.013], AA_TESTS / 4, SEED + 2);
console.log(`\nA/A: ${AA_TESTS} split tests of two identical landers (1%), 1,000 visits each a day, verdict read daily for ${DAYS} days`);
console.log(`  a winner named in ${aa.winners} of ${AA_TESTS} (${fmt((aa.winners / AA_TESTS) * 100, 1)}%; must be ≤ 5%)`);
console.log(
  `  (a 95% probability of being best alone, without the sequential test, would have named one in ${aa.naive}: ${fmt((aa.naive / AA_TESTS) * 100, 1)}%)`,
);
console.log(`A/A on revenue per visit (payouts spread: standard deviation 1.3 times the mean), ${AA_TESTS} tests`);
console.log(`  a winner named in ${aaRevenue.winners} of ${AA_TESTS} (${fmt((aaRevenue.winners / AA_TESTS) * 100, 1)}%; must be ≤ 5%)`);
console.log(`A/B: ${AA_TESTS / 4} tests of 1.0% against 1.3%, same traffic`);
console.log(
  `  a winner named in ${ab.winners} (${ab.right} the right one), after ${ab.winners ? fmt(ab.daysToDecide / ab.winners, 1) : "-"} days on average; ${fmt((performance.now() - aaStarted) / 1000, 1)} s`,
);
ok.push(aa.winners / AA_TESTS <= 0.05, aaRevenue.winners / AA_TESTS <= 0.05);
const cpu = process.cpuUsage();
console.log(`\nTotal ${fmt((performance.now() - started) / 1000, 1)} s (${fmt((cpu.user + cpu.system) / 1e6, 1)} s of CPU), seed ${SEED}.`);
process.exit(ok.every(Boolean) ? 0 : 1);
