// Benchmark: the stats report at the target scale (docs/data.md "Performance stats", "Speed and scale").
//
// One run, same machine, local D1 (the SQLite file `wrangler dev` uses):
//   seed      1,000,000 of our clicks, 300,000 cake_stats rows and ~20,000 tiktok_spend rows over
//             90 days, generated inside SQLite; cake_attributed_daily built by the CAKE sync's own
//             SQL and click_daily_stats by the cron's own rollup job (both bundled from
//             worker/src with esbuild and run against the same database file)
//   report    GET /api/stats/report for each grouping over the last 30 days on `wrangler dev`:
//             p50 over HTTP (target: at most 250 ms)
//   baseline  the same report's statements run two ways on the same database, p50 time and the
//             rows_read D1 reports: as the report runs them (rollups + the live tail), and the
//             naive way (CAKE rows joined to raw clicks, our clicks grouped from raw clicks); the
//             two must give the same report. Ratios naive / rollup.
//   tail      2,000 clicks arriving after the cron ran: what the live tail adds to rows read
// BENCH_CLICKS, BENCH_CAKE_ROWS, BENCH_REPEAT scale it down.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLocalD1, registerFirstAdmin } from "../lib/local-d1.mjs";
import { applyMigrations, startServer } from "../lib/server.mjs";
import { bundleWorkerCode } from "../lib/worker-code.mjs";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const CAKE_ROWS = Number(process.env.BENCH_CAKE_ROWS ?? 300_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 11);
/** The naive computation takes seconds a run: fewer repeats keep the benchmark near 3 minutes. */
const NAIVE_REPEAT = Math.min(REPEAT, 3);
const DAYS = 90;
const REPORT_DAYS = 30;
/** TikTok campaigns spending every day: 90 x 222 = 19,980 spend rows. */
const TT_CAMPAIGNS = 222;
const OUR_CAMPAIGNS = 40;
const TAIL_CLICKS = 2_000;
const PORT = 8971;
const TARGET_P50_MS = 250;
const DAY_MS = 86_400_000;

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const today = dayOf(Date.now());
const firstDayMs = Date.parse(`${today}T00:00:00Z`) - (DAYS - 1) * DAY_MS;
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n) => `${n.toFixed(1)} ms`;
const int = (n) => Math.round(n).toLocaleString("en-US");

const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-stats-"));
const stateDir = path.join(work, "state");

/** The worker code the benchmark runs itself: the same SQL the Worker runs. */
const bundleCode = () =>
  bundleWorkerCode(work, {
    "middleware/database.ts": ["createDb"],
    "db/queries/cake.ts": ["rebuildAttributed"],
    "jobs/roll-up-clicks.ts": ["rollUpClicks"],
    "db/queries/stats.ts": ["reportStatement"],
    "db/raw-batch.ts": ["rawBatch"],
    "lib/calendar-days.ts": ["zoneDayRange"],
    "stats/report.ts": ["buildReport"],
    "schemas/stats.ts": ["STATS_GROUPINGS"],
    "db/queries/click-rollup.ts": ["AUDIENCE_VALUE"],
    "drizzle-orm/sqlite-core": ["SQLiteAsyncDialect"],
  });

/**
 * Who clicked (docs/integrations.md "Conversions sent to TikTok"): 12 countries (1 in 50 clicks without one), mostly phones, 5 systems, 6
 * browsers, and 1 click in 20 a bot.
 */
const AUDIENCE_SEED = `
  case when i % 50 = 1 then null else substr('USGBDECAFRAUBRMXESITNLJP', 1 + 2 * ((i / 7) % 12), 2) end,
  case when i % 10 < 8 then 'Mobile' when i % 10 = 8 then 'Tablet' else 'Desktop' end,
  case i % 10 when 0 then 'Windows' when 9 then 'Mac OS' when 8 then 'iOS' else case when i % 3 = 0 then 'iOS' else 'Android' end end,
  case (i / 11) % 6 when 0 then 'TikTok' when 1 then 'Mobile Safari' when 2 then 'Chrome' when 3 then 'Chrome WebView'
    when 4 then 'Facebook' else 'Instagram' end,
  i % 20 = 0, case when i % 20 = 0 then 'ad review: TikTok landing-page preloader' end`;

/** cake_audience_daily's rows for a dimension, computed from the raw rows (the naive way) with the click's value as the rollup reads it. */
const rawAudienceCake = (dim, valueOf) =>
  `(select s.date, coalesce(k.campaign_id, 0) as campaign_id, coalesce(k.tiktok_campaign_id, '') as tiktok_campaign_id,
      ${valueOf("k")} as value, s.subid1, s.subid3, s.clicks, s.conversions, s.revenue_cents, null as offer_name
    from cake_stats s left join clicks k on s.subid2 <> '' and k.click_id = s.subid2) r`;

/**
 * An account shaped like a real one: 222 TikTok campaigns (each 2 ad groups of 2 ads, shown in 2
 * placements) sending to 40 of our campaigns on 10 landers; 40% of visitors exit to the offer.
 * A day then has under 1,800 combinations of ad fields however many clicks it has: the size the
 * click rollup follows. CAKE saw every 3.3rd click (sub2 = its click id), a tenth of those
 * converted; 12 media buyers, 50 sparks (a quarter of the rows without one), 30 offers.
 */
async function seed(d1) {
  const span = DAYS * DAY_MS - 60_000;
  const clickedAt = (i) => `(${firstDayMs} + ((${i}) - 1) * ${span} / ${CLICKS})`;
  await d1.batch([
    ...Array.from({ length: 10 }, (_, i) =>
      d1.prepare("insert into landers (id, name, url) values (?, ?, 'https://lander.test')").bind(i + 1, `Lander ${i + 1}`),
    ),
    ...Array.from({ length: OUR_CAMPAIGNS }, (_, i) =>
      d1.prepare("insert into campaigns (id, name, lander_id) values (?, ?, ?)").bind(i + 1, `Campaign ${i + 1}`, (i % 10) + 1),
    ),
  ]);
  const CHUNK = 100_000;
  for (let from = 1; from <= CLICKS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, CLICKS);
    await d1
      .prepare(
        `with recursive n(i) as (select cast(?1 as integer) union all select i + 1 from n where i < ?2)
         insert into clicks (id, click_id, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement,
           campaign_name, ad_group_name, creative_name, ip_address, user_agent, clicked_at, exited_at,
           country, device_type, os, browser, bot, bot_reason)
         select i, 'k' || i, (i % ${TT_CAMPAIGNS}) % ${OUR_CAMPAIGNS} + 1, 'tt' || (i % ${TT_CAMPAIGNS}),
           'ag' || (i % ${TT_CAMPAIGNS}) || '-' || (i / ${TT_CAMPAIGNS} % 2),
           'cr' || (i % ${TT_CAMPAIGNS}) || '-' || (i / ${TT_CAMPAIGNS} % 2) || '-' || (i / ${TT_CAMPAIGNS * 2} % 2),
           case i / ${TT_CAMPAIGNS * 4} % 2 when 0 then 'tiktok_feed' else 'pangle' end,
           'TT campaign ' || (i % ${TT_CAMPAIGNS}), 'Group ' || (i % ${TT_CAMPAIGNS}) || '-' || (i / ${TT_CAMPAIGNS} % 2),
           'Ad ' || (i % ${TT_CAMPAIGNS}) || '-' || (i / ${TT_CAMPAIGNS} % 2) || '-' || (i / ${TT_CAMPAIGNS * 2} % 2),
           '203.0.113.' || (i % 250), 'Mozilla/5.0 (bench)', ${clickedAt("i")},
           case when i % 5 < 2 then ${clickedAt("i")} + 45000 end,
           ${AUDIENCE_SEED}
         from n`,
      )
      .bind(from, to)
      .run();
  }
  for (let from = 1; from <= CAKE_ROWS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, CAKE_ROWS);
    const click = `(1 + (j - 1) * ${CLICKS} / ${CAKE_ROWS})`;
    await d1
      .prepare(
        `with recursive n(j) as (select cast(?1 as integer) union all select j + 1 from n where j < ?2)
         insert into cake_stats (date, offer_id, offer_name, subid1, subid2, subid3, clicks, conversions, revenue_cents)
         select date(${clickedAt(click)} / 1000, 'unixepoch'), 100 + (${click} % ${TT_CAMPAIGNS}) % 30,
           'Offer ' || (100 + (${click} % ${TT_CAMPAIGNS}) % 30), 'mb' || ((${click} % ${TT_CAMPAIGNS}) % 12), 'k' || ${click},
           case when ${click} % 4 = 0 then '' else 'sp' || ((${click} % ${TT_CAMPAIGNS}) % 50) end,
           1, j % 10 = 0, case when j % 10 = 0 then 100 + j % 4000 else 0 end
         from n`,
      )
      .bind(from, to)
      .run();
  }
  await d1
    .prepare(
      `with recursive d(n) as (select 0 union all select n + 1 from d where n < ${DAYS - 1}),
         c(n) as (select 0 union all select n + 1 from c where n < ${TT_CAMPAIGNS - 1})
       insert into tiktok_spend (date, tiktok_campaign_id, campaign_name, spend_cents, impressions, clicks, conversions)
       select date(${firstDayMs / 1000} + d.n * 86400, 'unixepoch'), 'tt' || c.n, 'TT campaign ' || c.n,
         500 + (d.n * 7 + c.n * 13) % 20000, 1000 + c.n, 100 + c.n, c.n % 5
       from d cross join c`,
    )
    .run();
}

async function measure(fn, repeat = REPEAT) {
  await fn();
  const times = [];
  let last;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    last = await fn();
    times.push(performance.now() - t);
  }
  return { p50: p50(times), last };
}

let server;
try {
  const code = await bundleCode();
  applyMigrations(stateDir, { quiet: true });
  const { mf, db: getD1 } = openLocalD1(stateDir);
  const d1 = await getD1();
  const GROUPINGS = code.STATS_GROUPINGS;
  const db = code.createDb(d1);
  const dialect = new code.SQLiteAsyncDialect();

  let t = performance.now();
  await seed(d1);
  const sizes = async () =>
    d1
      .prepare(
        `select (select count(*) from clicks) as clicks, (select count(*) from cake_stats) as cake,
           (select count(*) from tiktok_spend) as spend, (select count(*) from cake_attributed_daily) as cakeRollup,
           (select count(*) from click_daily_stats) as clickRollup, (select count(*) from cake_audience_daily) as cakeAudience,
           (select count(*) from click_audience_daily) as clickAudience`,
      )
      .first();
  console.log(`seeded in ${ms(performance.now() - t)}`);
  t = performance.now();
  await code.rebuildAttributed(db, { start: dayOf(firstDayMs), end: today });
  console.log(`cake_attributed_daily built by the sync's SQL in ${ms(performance.now() - t)}`);
  t = performance.now();
  const run = await code.rollUpClicks(db, { now: Date.now(), budgetMs: 600_000 });
  const rollupMs = performance.now() - t;
  const s = await sizes();
  console.log(`click rollup job, first run over ${int(s.clicks)} clicks: ${ms(rollupMs)} in ${run.steps} steps (${run.behind ? "BEHIND" : "caught up"})`);
  console.log(
    `sizes: clicks ${int(s.clicks)}, cake_stats ${int(s.cake)}, tiktok_spend ${int(s.spend)} -> cake_attributed_daily ${int(s.cakeRollup)}, click_daily_stats ${int(s.clickRollup)}, cake_audience_daily ${int(s.cakeAudience)}, click_audience_daily ${int(s.clickAudience)}`,
  );

  const startDate = dayOf(Date.parse(`${today}T00:00:00Z`) - (REPORT_DAYS - 1) * DAY_MS);
  const rawCake = `(select s.date, coalesce(k.campaign_id, 0) as campaign_id, coalesce(k.tiktok_campaign_id, '') as tiktok_campaign_id,
      coalesce(k.tiktok_ad_group_id, '') as tiktok_ad_group_id, coalesce(k.tiktok_creative_id, '') as tiktok_creative_id,
      coalesce(k.placement, '') as placement, coalesce(k.campaign_name, '') as campaign_name, coalesce(k.ad_group_name, '') as ad_group_name,
      coalesce(k.creative_name, '') as creative_name, s.offer_id, s.offer_name, s.subid1, s.subid3, s.clicks, s.conversions, s.revenue_cents
    from cake_stats s left join clicks k on s.subid2 <> '' and k.click_id = s.subid2) r`;
  /** The report's statement for a grouping; `naive`: over raw rows instead of the rollups. */
  const statements = (d1, groupBy, naive) => {
    // "Etc/UTC" has UTC's days but not the rollup's zone name: the report then reads our clicks raw.
    const timeZone = naive ? "Etc/UTC" : "UTC";
    const q = { range: { startDate, endDate: today, timeZone, ...code.zoneDayRange(startDate, today, "UTC") }, groupBy, filters: {} };
    const prepared = [code.reportStatement(q)].map((st) => {
      const query = dialect.sqlToQuery(st);
      let text = naive ? query.sql.replaceAll("cake_attributed_daily r", rawCake) : query.sql;
      for (const [dim, valueOf] of Object.entries(code.AUDIENCE_VALUE)) {
        if (naive) text = text.replaceAll(`(select *, null as offer_name from cake_audience_daily where dim = '${dim}') r`, rawAudienceCake(dim, valueOf));
      }
      return d1.prepare(text).bind(...query.params);
    });
    return { q, prepared };
  };
  const runSql = async (groupBy, naive) => {
    const { q, prepared } = statements(d1, groupBy, naive);
    const results = await d1.batch(prepared);
    const data = { rows: results[0].results, names: new Map(), lastSync: { cake: null, tiktok: null } };
    return { rowsRead: results.reduce((sum, r) => sum + r.meta.rows_read, 0), report: code.buildReport(q, data, { member: false }) };
  };

  const sqlFigures = [];
  for (const groupBy of GROUPINGS) {
    const rollup = await measure(() => runSql(groupBy, false));
    const naive = await measure(() => runSql(groupBy, true), NAIVE_REPEAT);
    const strip = (r) => JSON.stringify({ rows: r.rows, totals: r.totals, daily: r.daily });
    sqlFigures.push({ groupBy, rollup, naive, same: strip(rollup.last.report) === strip(naive.last.report), rows: rollup.last.report.rows.length });
  }
  await mf.dispose();

  server = await startServer({ port: PORT, stateDir, stdio: "pipe" });
  const cookie = await registerFirstAdmin(server.url);
  const api = {};
  for (const groupBy of GROUPINGS) {
    const { p50: time } = await measure(async () => {
      const res = await fetch(`${server.url}/api/stats/report?startDate=${startDate}&endDate=${today}&groupBy=${groupBy}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`${groupBy}: ${res.status} ${await res.text()}`);
      return res.json();
    });
    api[groupBy] = time;
  }
  await server.stop();
  server = undefined;

  console.log(`\n30-day report (${startDate} to ${today}), p50 of ${REPEAT} (naive: ${NAIVE_REPEAT}); SQL timed on the same D1 file outside the Worker:`);
  console.log("grouping          rows | API p50  target | rollup SQL p50, rows read | naive SQL p50, rows read | naive/rollup time, rows | same report");
  let missed = 0;
  let different = 0;
  for (const f of sqlFigures) {
    const ok = api[f.groupBy] <= TARGET_P50_MS;
    if (!ok) missed++;
    if (!f.same) different++;
    console.log(
      `${f.groupBy.padEnd(17)} ${String(f.rows).padStart(4)} | ${ms(api[f.groupBy]).padStart(8)} ${ok ? "met   " : "MISSED"} | ${ms(f.rollup.p50).padStart(9)}, ${int(f.rollup.last.rowsRead).padStart(9)}    | ${ms(f.naive.p50).padStart(9)}, ${int(f.naive.last.rowsRead).padStart(10)}  | ${(f.naive.p50 / f.rollup.p50).toFixed(1).padStart(6)}x, ${(f.naive.last.rowsRead / f.rollup.last.rowsRead).toFixed(1).padStart(6)}x | ${f.same ? "yes" : "NO"}`,
    );
  }

  // The live tail: clicks that came after the cron ran are read from clicks, a few rows each.
  const again = openLocalD1(stateDir);
  const d1b = await again.db();
  const before = await (async () => {
    const { prepared } = statements(d1b, "campaign", false);
    return (await d1b.batch(prepared)).reduce((sum, r) => sum + r.meta.rows_read, 0);
  })();
  const maxId = (await d1b.prepare("select max(id) as id from clicks").first()).id;
  const now = Date.now();
  await d1b
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${TAIL_CLICKS})
       insert into clicks (id, click_id, campaign_id, tiktok_campaign_id, placement, clicked_at, exited_at)
       select ${maxId} + i, 'tail' || i, (i % ${TT_CAMPAIGNS}) % ${OUR_CAMPAIGNS} + 1, 'tt' || (i % ${TT_CAMPAIGNS}), 'pangle',
         ${now} - i * 10, case when i % 2 = 0 then ${now} end from n`,
    )
    .run();
  const { prepared } = statements(d1b, "campaign", false);
  const after = (await d1b.batch(prepared)).reduce((sum, r) => sum + r.meta.rows_read, 0);
  const db2 = code.createDb(d1b);
  t = performance.now();
  const incremental = await code.rollUpClicks(db2, { now: Date.now() + 10 * 60_000 });
  const incrementalMs = performance.now() - t;
  const rolledUp = (await d1b.batch(statements(d1b, "campaign", false).prepared)).reduce((sum, r) => sum + r.meta.rows_read, 0);
  await again.mf.dispose();
  console.log(
    `\nlive tail: ${int(TAIL_CLICKS)} clicks after the cron ran add ${int(after - before)} rows read to the campaign report (${int(before)} -> ${int(after)});`,
  );
  console.log(`the next cron run rolls them up in ${ms(incrementalMs)} (${incremental.steps} step), and the report reads ${int(rolledUp)} rows again.`);
  if (missed) console.log(`\n${missed} grouping(s) missed the ${TARGET_P50_MS} ms target`);
  if (different) {
    console.log(`\n${different} grouping(s) gave a different report from the naive computation`);
    process.exitCode = 1;
  }
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
