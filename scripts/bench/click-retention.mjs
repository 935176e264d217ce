// Benchmark: a click store that never fills up (docs/data.md "Retention and archives").
//
// Simulates BENCH_DAYS days (default 400) of BENCH_CLICKS_PER_DAY clicks (default 1,000,000) on the
// local D1 file `wrangler dev` uses, with retention on (BENCH_RETENTION_DAYS, default 90). Each
// simulated day, in bounded time:
//   1. its clicks are generated straight into D1 in bulk (SQL, 100,000 rows a statement; random
//      UUID click ids like /r/'s; 40% exit, each exit with its lander_clicks row), with CAKE rows
//      for 1% of them and a day of TikTok spend;
//   2. the cron's own code runs, bundled from worker/src: the CAKE attribution rebuild for the day,
//      then, inside workerd as in the Worker, the click rollup and the retention job, whose runs
//      of the archive Workflow (retention/workflow.ts, in Miniflare's local Workflows engine)
//      archive to a local R2 bucket and delete, until it has nothing left to start;
//   3. D1's own size figure (meta.size_after) is read.
// Before a day's raw clicks go, its figures are taken from them the naive way (clicks, exits and
// CAKE revenue per campaign, from raw rows); at the end the one-year report (the stats' own SQL
// over the rollups) must give exactly those figures, and the same report computed 35 days before
// the end (before the last 35 days of deletes) must equal it to the cent.
// It prints: bytes per click in D1 (table + indexes, from the size D1 reports), the size every few
// days (flat after the retention), the retention's time per day deleted, the archive's bytes per
// click, days until 10 GB at 100,000 and 1,000,000 clicks a day with and without retention.
//
// Scale: 400 days x 1,000,000 clicks is 400 million clicks; with 90 days kept the table holds about
// 90 million rows (tens of GB on disk). BENCH_CLICKS_PER_DAY=1000 smoke-tests it in minutes.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DAY_MS, generateClicks, seedCampaigns, TT_CAMPAIGNS } from "../lib/click-days.mjs";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations } from "../lib/server.mjs";
import { bundleWorker, bundleWorkerCode } from "../lib/worker-code.mjs";

const DAYS = Number(process.env.BENCH_DAYS ?? 400);
const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 1_000_000);
const RETENTION = Number(process.env.BENCH_RETENTION_DAYS ?? 90);
/** The report compared before and after: the first year of the simulation. */
const YEAR = Math.min(365, DAYS - 1);
/** Its first computation: this many days before the end, so that many days' deletes lie between. */
const BEFORE_END = Math.min(35, DAYS - YEAR);
const CAKE_SHARE = 100; // one CAKE row per 100 clicks
const GB = 1024 ** 3;
const D1_LIMIT = 10 * GB;

const fmt = (n, d = 0) => Number(n).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const FIRST_DAY_MS = Date.parse("2024-01-01T00:00:00Z");
const dayStart = (k) => FIRST_DAY_MS + k * DAY_MS;

const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-retention-"));
const stateDir = path.join(work, "state");

/** Day k's CAKE rows (one per CAKE_SHARE clicks, sub2 = the click id) and TikTok spend. */
async function generateCakeAndSpend(d1, k, firstId, last) {
  const date = dayOf(dayStart(k));
  await d1.batch([
    d1
      .prepare(
        `insert into cake_stats (date, offer_id, offer_name, subid1, subid2, subid3, clicks, conversions, revenue_cents)
       select ?3, 100 + (id % ${TT_CAMPAIGNS}) % 30, 'Offer ' || (id % 30), 'mb' || (id % 12), click_id,
         case when id % 4 = 0 then '' else 'sp' || (id % 50) end, 1, id % 10 = 0, case when id % 10 = 0 then 100 + id % 4000 else 0 end
       from clicks where id between ?1 and ?2 and id % ${CAKE_SHARE} = 0`,
      )
      .bind(firstId, last, date),
    d1
      .prepare(
        `with recursive c(n) as (select 0 union all select n + 1 from c where n < ${TT_CAMPAIGNS - 1})
       insert into tiktok_spend (date, tiktok_campaign_id, campaign_name, spend_cents, impressions, clicks, conversions)
       select ?1, '17990000' || n, 'Spring sale ' || n, 500 + (?2 * 7 + n * 13) % 20000, 1000 + n, 100 + n, n % 5 from c`,
      )
      .bind(date, k),
  ]);
}

/** The day's figures the naive way, from its raw rows: what the report must still say later. */
async function naiveDay(d1, k) {
  const start = dayStart(k);
  const [ours, cake] = await d1.batch([
    d1
      // People only, as the report counts by default (bot-flagged clicks are shown apart).
      .prepare(
        `select campaign_id as c, sum(bot = 0) as clicks, count(case when bot = 0 then exited_at end) as exits
         from clicks where clicked_at >= ?1 and clicked_at < ?2 group by campaign_id`,
      )
      .bind(start, start + DAY_MS),
    d1
      .prepare(
        `select k.campaign_id as c, sum(s.revenue_cents) as revenue, sum(s.conversions) as conversions
         from cake_stats s join clicks k on k.click_id = s.subid2 where s.date = ?1 group by k.campaign_id`,
      )
      .bind(dayOf(start)),
  ]);
  const byCampaign = new Map(ours.results.map((r) => [r.c, { ...r, revenue: 0, conversions: 0 }]));
  for (const r of cake.results) Object.assign(byCampaign.get(r.c), { revenue: r.revenue, conversions: r.conversions });
  return [...byCampaign.values()];
}

const sizeOf = async (d1) => (await d1.prepare("select 1").run()).meta.size_after;
const count = async (d1, table) => (await d1.prepare(`select count(*) as n from ${table}`).first()).n;

const code = await bundleWorkerCode(work, {
  "middleware/database.ts": ["createDb"],
  "db/queries/cake.ts": ["rebuildAttributed"],
  "db/queries/stats.ts": ["reportStatement"],
  "lib/calendar-days.ts": ["zoneDayRange"],
  "stats/report.ts": ["buildReport"],
  "drizzle-orm/sqlite-core": ["SQLiteAsyncDialect"],
});
/**
 * The cron's jobs run inside workerd, as in the Worker: D1 and R2 in the same runtime, not through
 * Node's proxy to it (which copies every row read and costs more than the jobs themselves), and
 * the archive Workflow in Miniflare's local Workflows engine, as under `wrangler dev`.
 */
const cronWorker = await bundleWorker(
  work,
  `import { createDb } from "@worker/middleware/database";
   import { rollUpClicks } from "@worker/jobs/roll-up-clicks";
   import { runRetention } from "@worker/retention/run-retention";
   export { ClickArchiveWorkflow } from "@worker/retention/workflow";
   export default {
     async fetch(request: Request, env: { DB: D1Database; ARCHIVE: R2Bucket; ARCHIVE_WORKFLOW: Workflow<never> }) {
       const url = new URL(request.url);
       const now = Number(url.searchParams.get("now"));
       const db = createDb(env.DB);
       if (url.pathname === "/status") {
         const instance = await env.ARCHIVE_WORKFLOW.get(url.searchParams.get("id") ?? "");
         return Response.json(await instance.status());
       }
       const started = Date.now();
       const result = url.pathname === "/rollup"
         ? await rollUpClicks(db, { now, budgetMs: 3_600_000 })
         : await runRetention(db, env as never, { now, days: Number(url.searchParams.get("days")) });
       return Response.json({ ...result, ms: Date.now() - started });
     },
   };`,
);
applyMigrations(stateDir, { quiet: true });
const local = openLocalD1(stateDir, { scriptPath: cronWorker, workflow: true, quiet: true });
const cron = async (job, now) => {
  const res = await local.mf.dispatchFetch(`http://bench/${job}?now=${now}&days=${RETENTION}`);
  if (!res.ok) throw new Error(`${job}: ${res.status} ${await res.text()}`);
  return res.json();
};
/** A run of the archive Workflow, waited for: its output once it is complete. */
async function settled(id) {
  for (;;) {
    const res = await local.mf.dispatchFetch(`http://bench/status?id=${id}`);
    const status = await res.json();
    if (status.status === "complete") return status.output;
    if (status.status === "errored" || status.status === "terminated") throw new Error(`archive run ${id} ${status.status}: ${status.error?.message}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
try {
  const d1 = await local.db();
  const db = code.createDb(d1);
  const dialect = new code.SQLiteAsyncDialect();
  await seedCampaigns(d1);

  /** The one-year report (several groupings) as the stats screen computes it. */
  const yearReport = async () => {
    const startDate = dayOf(dayStart(0));
    const endDate = dayOf(dayStart(YEAR - 1));
    const out = {};
    for (const groupBy of ["campaign", "offer", "placement", "mediaBuyer"]) {
      const q = { range: { startDate, endDate, timeZone: "UTC", ...code.zoneDayRange(startDate, endDate, "UTC") }, groupBy, filters: {} };
      const query = dialect.sqlToQuery(code.reportStatement(q));
      const [result] = await d1.batch([d1.prepare(query.sql).bind(...query.params)]);
      const report = code.buildReport(q, { rows: result.results, names: new Map(), lastSync: { cake: null, tiktok: null } }, { member: false });
      out[groupBy] = { rows: report.rows, totals: report.totals, daily: report.daily };
    }
    return out;
  };

  console.log(`${fmt(DAYS)} days x ${fmt(PER_DAY)} clicks, retention ${RETENTION} days; one-year report over days 1-${YEAR}`);
  const empty = await sizeOf(d1);
  let nextId = 1;
  const naive = new Map();
  const perDay = [];
  let yearBefore = null;
  let bytesPerClick = null;
  let bytesPerCakeRow = 0;
  const started = performance.now();
  for (let k = 0; k < DAYS; k++) {
    const day = { k, date: dayOf(dayStart(k)) };
    let t = performance.now();
    const sizeBefore = await sizeOf(d1);
    const firstId = nextId;
    nextId = await generateClicks(d1, { start: dayStart(k), firstId, count: PER_DAY });
    const sizeClicks = await sizeOf(d1);
    await generateCakeAndSpend(d1, k, firstId, nextId - 1);
    await code.rebuildAttributed(db, { start: day.date, end: day.date });
    day.generateMs = performance.now() - t;
    if (k === 0) {
      // D1's own figures: the database's growth for the first day's clicks with their exits'
      // lander_clicks rows and all their indexes, per click; and per CAKE row.
      bytesPerClick = (sizeClicks - sizeBefore) / PER_DAY;
      const cakeRows = await count(d1, "cake_stats");
      const sizeCake = await sizeOf(d1);
      await code.rebuildAttributed(db, { start: day.date, end: day.date });
      bytesPerCakeRow = cakeRows ? (sizeCake - sizeClicks) / cakeRows : 0;
    }
    if (k < YEAR) {
      for (const r of await naiveDay(d1, k)) {
        const acc = naive.get(r.c) ?? { clicks: 0, exits: 0, revenue: 0, conversions: 0 };
        for (const f of ["clicks", "exits", "revenue", "conversions"]) acc[f] += r[f];
        naive.set(r.c, acc);
      }
    }
    // The cron, 10 minutes after the day ended.
    const now = dayStart(k + 1) + 10 * 60_000;
    t = performance.now();
    await cron("rollup", now);
    day.rollupMs = performance.now() - t;
    if (k === DAYS - BEFORE_END) yearBefore = await yearReport();
    t = performance.now();
    day.archived = [];
    day.deleted = 0;
    day.runs = 0;
    day.archiveMs = 0;
    day.deleteMs = 0;
    // The cron's retention job, once per run (one day a run): the run waited for, then the next.
    for (;;) {
      const tick = await cron("retention", now);
      const id = tick.started ?? tick.running;
      if (!id) {
        if (tick.waiting) throw new Error(`day ${day.date}: retention stuck: ${tick.waiting}`);
        break;
      }
      const run = await settled(id);
      day.runs++;
      if (run.archived) day.archived.push({ day: run.day, rows: run.archived.rows, bytes: run.archived.bytes });
      day.deleted += run.deleted;
      day.archiveMs += run.ms.export + run.ms.complete + run.ms.verify;
      day.deleteMs += run.ms.delete;
      if (!run.finished) throw new Error(`day ${day.date}: retention stuck: ${run.waiting}`);
    }
    day.retentionMs = performance.now() - t;
    day.size = await sizeOf(d1);
    perDay.push(day);
    if (k === 2 || k === RETENTION + 2) {
      const perDayMs = (performance.now() - started) / (k + 1);
      console.log(
        `(at ${secs(perDayMs)} a day so far, the run takes about ${fmt((perDayMs * DAYS) / 3_600_000, 1)} hours; the days past the retention take longer)`,
      );
    }
    if (k % 10 === 0 || k === DAYS - 1 || day.archived.length) {
      const last = k % 10 === 0 || k === DAYS - 1;
      if (last) {
        const archived = day.archived.map((a) => `${a.day} (${fmt(a.rows)} clicks, ${fmt(a.bytes / a.rows, 1)} B/click)`).join(", ");
        console.log(
          `day ${String(k + 1).padStart(3)} ${day.date}: D1 ${fmt(day.size / 1024 ** 2, 1)} MB; generated ${secs(day.generateMs)}, rollup ${secs(day.rollupMs)}, ` +
            `retention ${secs(day.retentionMs)} (${day.runs} runs, ${fmt(day.deleted)} rows deleted${archived ? `; archived ${archived}` : ""}); ${secs(performance.now() - started)} so far`,
        );
      }
    }
  }

  // Sizes: flat after the retention?
  const steady = perDay.filter((d) => d.k >= RETENTION + 1);
  const sizes = steady.map((d) => d.size);
  const clicksLeft = await count(d1, "clicks");
  console.log(
    `\nD1 size: ${fmt(empty / 1024 ** 2, 1)} MB empty; after day ${RETENTION + 1} it stays between ${fmt(Math.min(...sizes) / 1024 ** 2, 1)} and ${fmt(Math.max(...sizes) / 1024 ** 2, 1)} MB ` +
      `(${fmt(clicksLeft)} raw clicks kept at the end, ${RETENTION + 1} days' worth at most)`,
  );
  const deleting = perDay.filter((d) => d.archived.length);
  const archivedDays = deleting.flatMap((d) => d.archived);
  const retentionMs = deleting.reduce((s, d) => s + d.retentionMs, 0);
  const archiveMs = deleting.reduce((s, d) => s + d.archiveMs, 0);
  const deleteMs = deleting.reduce((s, d) => s + d.deleteMs, 0);
  const archivedRows = archivedDays.reduce((s, a) => s + a.rows, 0);
  const archivedBytes = archivedDays.reduce((s, a) => s + a.bytes, 0);
  if (archivedDays.length) {
    console.log(
      `retention: ${archivedDays.length} days archived and deleted, ${secs(retentionMs / archivedDays.length)} per day of ${fmt(PER_DAY)} clicks ` +
        `(archive written and read back ${secs(archiveMs / archivedDays.length)}, rows deleted ${secs(deleteMs / archivedDays.length)}; the Workflow's steps), ${fmt((retentionMs / archivedRows) * 1000, 1)} us per click`,
    );
    console.log(
      `archive: ${fmt(archivedBytes / archivedRows, 1)} bytes per click gzipped (${fmt(archivedBytes / archivedDays.length / 1024 ** 2, 2)} MB per day)`,
    );
  }

  // Growth that retention does not remove: the rollups, spend and CAKE's rows. The rollups follow
  // the day's distinct campaign/ad combinations, not its clicks; cake_stats has a row per click
  // that reached the offer (sub2 = the click id) and is not part of this retention.
  const tail = steady.slice(-Math.min(60, steady.length));
  const slope = tail.length > 10 ? (tail.at(-1).size - tail[0].size) / (tail.length - 1) : null;
  const cakeRowsPerDay = PER_DAY / CAKE_SHARE;
  const rollupsPerDay = slope === null ? null : Math.max(0, slope - cakeRowsPerDay * bytesPerCakeRow);
  console.log(
    `\nbytes per click in D1 (the clicks row, its exit's lander_clicks row when it has one, and every index; D1's own size figure): ${fmt(bytesPerClick)} B`,
  );
  console.log(`bytes per cake_stats row (CAKE's click report, one row per click that reached the offer): ${fmt(bytesPerCakeRow)} B`);
  if (slope !== null) {
    console.log(
      `growth per day once the retention runs: ${fmt(slope / 1024 ** 2, 2)} MB (growth per day before it: ${fmt((perDay[Math.min(RETENTION, perDay.length - 1)].size - perDay[0].size) / Math.min(RETENTION, perDay.length - 1) / 1024 ** 2, 2)} MB); ` +
        `of that, rollups and spend ${fmt(rollupsPerDay / 1024 ** 2, 2)} MB (they follow the day's ${fmt((await count(d1, "click_daily_stats")) / DAYS)} ad combinations, not its clicks)`,
    );
  }
  if (cakeRowsPerDay < 10_000) {
    console.log(
      `(D1's size moves in 4 KB pages: with ${fmt(cakeRowsPerDay)} CAKE rows a day the per-row figures are rough; BENCH_CLICKS_PER_DAY >= 1000000 makes them exact)`,
    );
  }
  const EXIT_SHARE = 0.4;
  for (const rate of [100_000, 1_000_000]) {
    const rawPerDay = rate * bytesPerClick;
    const cakePerDay = rate * EXIT_SHARE * bytesPerCakeRow;
    const other = (rollupsPerDay ?? 0) + cakePerDay;
    const kept = RETENTION * rawPerDay;
    const without = D1_LIMIT / (rawPerDay + other);
    const withRetention =
      kept >= D1_LIMIT
        ? `never: ${RETENTION} days of raw clicks alone are ${fmt(kept / GB, 1)} GB (${Math.floor(D1_LIMIT / rawPerDay)} days of raw clicks fit in 10 GB)`
        : `${fmt(RETENTION + (D1_LIMIT - kept) / other)} days (raw clicks steady at ${fmt(kept / GB, 1)} GB; cake_stats grows ${fmt(cakePerDay / 1024 ** 2)} MB a day, rollups ${fmt((rollupsPerDay ?? 0) / 1024 ** 2, 1)} MB)`;
    const rawOnly = kept >= D1_LIMIT ? "" : `; the raw clicks alone never reach it`;
    console.log(
      `${fmt(rate)} clicks a day (${EXIT_SHARE * 100}% reaching the offer): 10 GB in ${fmt(without)} days without retention; with ${RETENTION} days: ${withRetention}${rawOnly}`,
    );
  }

  // The year's report: the same before the last deletes and after them, and what the raw rows said.
  const yearAfter = await yearReport();
  const same = JSON.stringify(yearBefore) === JSON.stringify(yearAfter);
  const rows = yearAfter.campaign.rows.filter((r) => r.campaignId !== null);
  let mismatches = 0;
  for (const [c, n] of naive) {
    const r = rows.find((x) => x.campaignId === c);
    const revenue = Math.round(Number(r?.revenue ?? 0) * 100);
    if (!r || r.linkClicks !== n.clicks || r.exitClicks !== n.exits || revenue !== n.revenue || r.conversions !== n.conversions) mismatches++;
  }
  const totals = [...naive.values()].reduce((s, n) => ({ clicks: s.clicks + n.clicks, exits: s.exits + n.exits, revenue: s.revenue + n.revenue }), {
    clicks: 0,
    exits: 0,
    revenue: 0,
  });
  console.log(
    `\none-year report (days 1-${YEAR}, 4 groupings): computed ${BEFORE_END} days before the end and again at the end: ${same ? "identical" : "DIFFERENT"}; ` +
      `against the raw rows counted before each day was deleted (${fmt(totals.clicks)} clicks, ${fmt(totals.exits)} exits, $${fmt(totals.revenue / 100, 2)} revenue over ${naive.size} campaigns): ` +
      `${mismatches ? `${mismatches} campaigns DIFFER` : "every campaign's clicks, exits, conversions and revenue match"}`,
  );
  console.log(`total ${secs(performance.now() - started)}`);
  process.exitCode = same && mismatches === 0 ? 0 : 1;
} finally {
  await local.mf.dispose();
  rmSync(work, { recursive: true, force: true });
}
