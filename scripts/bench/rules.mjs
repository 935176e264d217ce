// Benchmark: the rules' cron evaluation at the target scale (docs/rules.md "Speed").
//
// One run, local D1 (the SQLite file `wrangler dev` uses), the evaluator bundled from worker/src:
//   seed      30 days of rollups for 1,000,000 clicks a day, generated straight into
//             click_daily_stats and cake_attributed_daily (not raw clicks: the evaluation never
//             reads them), plus tiktok_spend: 222 TikTok campaigns, each 2 ad groups of 2 ads in 2
//             placements, sending to 40 campaigns; 50 sparks, 30 offers
//   rules     200 enabled rules: windows of 6 and 24 hours and 1, 3, 7, 14 and 30 days; scopes all
//             campaigns, lists of campaigns, ad groups, sparks and offers; 1-3 conditions and a guard
//   measure   evaluateRules as the cron runs it (p50 of BENCH_REPEAT runs, the claims finding every
//             firing already made after the first), the rows D1 says it read (meta.rows_read), and
//             the same with 10,000 clicks a day: rows read must not change with the click count.
// Printed against the cron's CPU limit (30 s per invocation, docs/data.md).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations } from "../lib/server.mjs";
import { bundleWorkerCode } from "../lib/worker-code.mjs";

const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const DAYS = 30;
const RULES = 200;
const TT_CAMPAIGNS = 222;
const OUR_CAMPAIGNS = 40;
const CRON_CPU_LIMIT_MS = 30_000;
const DAY_MS = 86_400_000;

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const int = (n) => Math.round(n).toLocaleString("en-US");
const ms = (n) => `${n.toFixed(1)} ms`;

const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-rules-"));

const code = await bundleWorkerCode(work, {
  "middleware/database.ts": ["createDb"],
  "rules/evaluate.ts": ["evaluateRules"],
});

/**
 * The rollups of `clicksPerDay` clicks a day: each day's clicks spread evenly over the 1,776
 * (ad campaign, ad group, ad, placement) combinations, 40% exiting, 1 in 20 a bot; CAKE saw every
 * 3.3rd click, a tenth converted, each combination under one offer, media buyer and spark.
 */
async function seed(d1, clicksPerDay) {
  const combos = TT_CAMPAIGNS * 8;
  const per = Math.floor(clicksPerDay / combos);
  const first = Date.parse(`${dayOf(Date.now())}T00:00:00Z`) - (DAYS - 1) * DAY_MS;
  await d1.batch([d1.prepare("delete from click_daily_stats"), d1.prepare("delete from cake_attributed_daily"), d1.prepare("delete from tiktok_spend")]);
  const days = `with recursive d(n) as (select 0 union all select n + 1 from d where n < ${DAYS - 1}),
      c(n) as (select 0 union all select n + 1 from c where n < ${combos - 1})`;
  const fields = `date(${first / 1000} + d.n * 86400, 'unixepoch'), (c.n % ${TT_CAMPAIGNS}) % ${OUR_CAMPAIGNS} + 1, 'tt' || (c.n % ${TT_CAMPAIGNS}),
      'ag' || (c.n % ${TT_CAMPAIGNS}) || '-' || (c.n / ${TT_CAMPAIGNS} % 2), 'cr' || c.n, case c.n / ${TT_CAMPAIGNS * 4} when 0 then 'feed' else 'pangle' end`;
  await d1
    .prepare(
      `${days} insert into click_daily_stats (date, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement, bot, clicks, exits)
       select ${fields}, b.bot, case b.bot when 1 then ${per} / 20 else ${per} - ${per} / 20 end, case b.bot when 1 then 0 else (${per} - ${per} / 20) * 2 / 5 end
       from d cross join c cross join (select 0 as bot union all select 1) b`,
    )
    .run();
  await d1
    .prepare(
      `${days} insert into cake_attributed_daily (date, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement,
         offer_id, offer_name, subid1, subid3, clicks, conversions, revenue_cents)
       select ${fields}, 100 + (c.n % ${TT_CAMPAIGNS}) % 30, 'Offer', 'mb' || (c.n % 12), 'sp' || (c.n % 50),
         ${per} * 10 / 33, ${per} * 10 / 33 / 10 * ((d.n + c.n) % 3), ${per} * 10 / 33 / 10 * ((d.n + c.n) % 3) * 180
       from d cross join c`,
    )
    .run();
  await d1
    .prepare(
      `with recursive d(n) as (select 0 union all select n + 1 from d where n < ${DAYS - 1}),
         c(n) as (select 0 union all select n + 1 from c where n < ${TT_CAMPAIGNS - 1})
       insert into tiktok_spend (date, tiktok_campaign_id, campaign_name, spend_cents)
       select date(${first / 1000} + d.n * 86400, 'unixepoch'), 'tt' || c.n, 'TT ' || c.n, ${Math.round(clicksPerDay / 100)} + (d.n * 7 + c.n * 13) % 20000
       from d cross join c`,
    )
    .run();
}

const WINDOWS = [
  [6, "hours"],
  [24, "hours"],
  [1, "days"],
  [3, "days"],
  [7, "days"],
  [14, "days"],
  [30, "days"],
];
const METRICS = ["roi", "cpa", "epv", "cr", "ctr", "botShare", "profit"];

/** 200 rules of every shape; thresholds so that a few items match. */
function rule(i) {
  const [amount, unit] = WINDOWS[i % WINDOWS.length];
  const kind = ["all", "campaigns", "adGroups", "sparks", "offers"][i % 5];
  const values =
    kind === "all"
      ? []
      : kind === "campaigns"
        ? Array.from({ length: 5 }, (_, j) => String(((i + j) % OUR_CAMPAIGNS) + 1))
        : kind === "adGroups"
          ? Array.from({ length: 10 }, (_, j) => `ag${(i * 7 + j) % TT_CAMPAIGNS}-${j % 2}`)
          : kind === "sparks"
            ? Array.from({ length: 3 }, (_, j) => String(((i + j) % 50) + 1))
            : Array.from({ length: 3 }, (_, j) => String(((i + j) % 30) + 1));
  const conditions = Array.from({ length: 1 + (i % 3) }, (_, j) => ({
    metric: METRICS[(i + j) % METRICS.length],
    op: j % 2 ? ">" : "<",
    value: j % 2 ? -1e9 : 1e9,
  }));
  return {
    name: `Rule ${i + 1}`,
    scope: JSON.stringify({ kind, values }),
    window_amount: amount,
    window_unit: unit,
    conditions: JSON.stringify(conditions),
    // Only a tenth of the rules pass their guard: a run that fires everywhere is not the common case.
    guard: JSON.stringify({ metric: "spend", op: ">=", value: i % 10 === 0 ? 0 : 1e12 }),
  };
}

try {
  applyMigrations(path.join(work, "state"), { quiet: true });
  const { mf, db: getD1 } = openLocalD1(path.join(work, "state"));
  const d1 = await getD1();
  const db = code.createDb(d1);
  await d1.batch([
    d1.prepare("insert into landers (id, name, url) values (1, 'Lander', 'https://lander.test')"),
    ...Array.from({ length: 30 }, (_, i) =>
      d1.prepare("insert into offers (id, name, url, utm_template) values (?, ?, 'https://o.test', 'sub2={clickId}')").bind(i + 1, `Offer ${i + 1}`),
    ),
    ...Array.from({ length: 50 }, (_, i) =>
      d1.prepare("insert into sparks (id, name, code, spark_id) values (?, ?, '', ?)").bind(i + 1, `Spark ${i + 1}`, `sp${i}`),
    ),
    ...Array.from({ length: OUR_CAMPAIGNS }, (_, i) =>
      d1
        .prepare("insert into campaigns (id, name, lander_id, offer_id, spark_id) values (?, ?, 1, ?, ?)")
        .bind(i + 1, `Campaign ${i + 1}`, (i % 30) + 1, (i % 50) + 1),
    ),
  ]);
  for (let i = 0; i < RULES; i++) {
    const r = rule(i);
    await d1
      .prepare(
        `insert into rules (name, enabled, scope, window_amount, window_unit, conditions, guard, cooldown_minutes, action, act, target)
         values (?, 1, ?, ?, ?, ?, ?, 240, 'alert', null, '{"channelIds":[],"admins":true}')`,
      )
      .bind(r.name, r.scope, r.window_amount, r.window_unit, r.conditions, r.guard)
      .run();
  }
  const deps = { deliver: async () => [], tiktok: null };

  const results = [];
  for (const clicksPerDay of [1_000_000, 10_000]) {
    await seed(d1, clicksPerDay);
    await d1.prepare("delete from rule_firings").run();
    const rows = await d1.prepare("select (select count(*) from click_daily_stats) as c, (select count(*) from cake_attributed_daily) as k").first();
    const times = [];
    let first;
    let last;
    for (let i = 0; i < REPEAT; i++) {
      const t = performance.now();
      last = await code.evaluateRules(db, Date.now(), deps);
      times.push(performance.now() - t);
      first ??= { ...last, ms: times[0] };
    }
    results.push({ clicksPerDay, rows, first, last, p50: p50(times) });
  }
  await mf.dispose();

  console.log(
    `${RULES} rules over ${DAYS} days of rollups; time is this process (the evaluator's JS) plus local D1, against the cron's ${CRON_CPU_LIMIT_MS / 1000} s CPU limit:`,
  );
  console.log("clicks a day | click_daily_stats, cake_attributed_daily rows | first run (fires)     | p50 of later runs | rows read | share of CPU limit");
  for (const r of results) {
    console.log(
      `${int(r.clicksPerDay).padStart(12)} | ${int(r.rows.c).padStart(17)}, ${int(r.rows.k).padStart(21)}    | ${ms(r.first.ms).padStart(10)} (${String(r.first.fired).padStart(4)} fired) | ${ms(r.p50).padStart(17)} | ${int(r.last.rowsRead).padStart(9)} | ${((r.p50 / CRON_CPU_LIMIT_MS) * 100).toFixed(1)}%`,
    );
  }
  const [big, small] = results;
  const same = big.last.rowsRead === small.last.rowsRead;
  console.log(
    `rows read ${same ? "do not change" : "CHANGE"} with the click count (${int(big.last.rowsRead)} at 1,000,000 a day, ${int(small.last.rowsRead)} at 10,000).`,
  );
  if (!same || big.first.ms > CRON_CPU_LIMIT_MS) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
