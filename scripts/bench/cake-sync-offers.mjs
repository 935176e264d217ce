// Benchmark: the CAKE sync at the target scale, and the offers report it feeds (docs/data.md "Performance stats", Speed).
//
// One run, same machine, local D1 under `wrangler dev`:
//   seed      1,000,000 of our clicks over 90 days (written straight into the local D1 file)
//   sync      POST /api/sync/run {source: "cake", days: 90} against a CAKE stand-in served here,
//             answering 300,000 click rows (one per click id, as sub2 makes them) and 30,000
//             conversions in the documented JSON shape and paging; then the same run again,
//             which must change nothing
//   offers    GET /api/cake/offers over the last 30 days, p50 over 30 calls
//   baseline  the same 30-day offer report computed the naive way, grouping cake_stats' raw rows,
//             against the rollup it really reads (cake_attributed_daily), on the same database:
//             p50 time and D1's rows_read for each, and the ratios
// Targets (docs/data.md "Performance stats"): a 30-day report within 250 ms p50, and rows read that do not grow with clicks.
// BENCH_CLICKS / BENCH_CAKE_ROWS scale it down.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { openLocalD1, registerFirstAdmin } from "../lib/local-d1.mjs";
import { applyMigrations, startServer } from "../lib/server.mjs";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const CAKE_ROWS = Number(process.env.BENCH_CAKE_ROWS ?? 300_000);
const DAYS = 90;
const APP_PORT = 8961;
const CAKE_PORT = 8962;
const TARGET_P50_MS = 250;
const DAY_MS = 86_400_000;

const today = new Date().toISOString().slice(0, 10);
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const firstDayMs = Date.parse(`${today}T00:00:00Z`) - (DAYS - 1) * DAY_MS;
/** Click i's instant: spread evenly over the 90 days, today's included. */
const clickedAt = (i) => firstDayMs + Math.floor((i / CLICKS) * DAYS * DAY_MS * 0.999);
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n) => `${n.toFixed(1)} ms`;

/**
 * Which ad a click came from, shaped like a real account: 120 ads in 40 ad groups in 12 TikTok
 * campaigns, each TikTok campaign sending to one of our campaigns and working one offer for one
 * media buyer, each ad group one spark; 4 placements. A day then has at most 480 combinations of
 * ad fields, offer, buyer and spark however many clicks it has: what the rollup's size follows.
 */
const PLACEMENTS = ["tiktok_feed", "pangle", "global_app_bundle", "search"];
function ad(i) {
  const creative = i % 120;
  const adGroup = Math.floor(creative / 3);
  const ttCampaign = Math.floor(adGroup / 4) + 2 * (Math.floor(i / 7) % 2);
  return {
    creative,
    adGroup,
    ttCampaign,
    campaign: 1 + (ttCampaign % 20),
    placement: PLACEMENTS[Math.floor(i / 3) % 4],
    offer: 100 + (ttCampaign % 9),
    buyer: `mb${ttCampaign % 6}`,
    spark: `sp${adGroup % 20}`,
  };
}

async function seedClicks(stateDir) {
  const { mf, db } = openLocalD1(stateDir);
  const d1 = await db();
  await d1.batch([
    d1.prepare("insert into landers (id, name, url) values (1, 'Lander', 'https://lander.test')"),
    ...Array.from({ length: 20 }, (_, i) => d1.prepare("insert into campaigns (id, name, lander_id) values (?, ?, 1)").bind(i + 1, `Campaign ${i + 1}`)),
  ]);
  const CHUNK = 5_000;
  for (let start = 0; start < CLICKS; start += CHUNK * 10) {
    const statements = [];
    for (let s = start; s < Math.min(start + CHUNK * 10, CLICKS); s += CHUNK) {
      const rows = [];
      for (let i = s; i < Math.min(s + CHUNK, CLICKS); i++) {
        const a = ad(i);
        rows.push([
          `k${i}`,
          a.campaign,
          `tt${a.ttCampaign}`,
          `ag${a.adGroup}`,
          `cr${a.creative}`,
          a.placement,
          `TT ${a.ttCampaign}`,
          `Group ${a.adGroup}`,
          `Ad ${a.creative}`,
          clickedAt(i),
        ]);
      }
      statements.push(
        d1
          .prepare(
            `insert into clicks (click_id, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement,
               campaign_name, ad_group_name, creative_name, clicked_at)
             select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
               json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'),
               json_extract(value, '$[8]'), json_extract(value, '$[9]') from json_each(?)`,
          )
          .bind(JSON.stringify(rows)),
      );
    }
    await d1.batch(statements);
  }
  await mf.dispose();
}

/** CAKE's rows for our data: one click row per click id (sub2), a conversion for every tenth. */
function cakeRows() {
  const clicks = new Map();
  const conversions = new Map();
  const push = (map, day, row) => (map.get(day) ?? map.set(day, []).get(day)).push(row);
  for (let i = 0; i < CAKE_ROWS; i++) {
    const j = Math.floor((i * CLICKS) / CAKE_ROWS);
    const at = clickedAt(j);
    const day = dayOf(at);
    const time = new Date(at).toISOString().slice(0, 19);
    const a = ad(j);
    const common = { offer_id: a.offer, offer_name: `Offer ${a.offer}`, subid_1: a.buyer, subid_2: `k${j}`, subid_3: a.spark };
    push(clicks, day, { click_id: i, click_date: time, ...common });
    if (i % 10 === 0) {
      push(conversions, day, {
        conversion_id: `cv${i}`,
        conversion_date: time,
        ...common,
        price: `${1 + (i % 40)}.${String(i % 100).padStart(2, "0")}0000`,
        disposition: "Approved",
      });
    }
  }
  return { clicks, conversions };
}

/** A CAKE network's reports API, as documented: JSON POST, {"d": ...}, exclusive end, paging. */
function serveCake(data) {
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const report = req.url.endsWith("/reports.asmx/Conversions") ? "conversions" : req.url.endsWith("/reports.asmx/Clicks") ? "clicks" : null;
      const body = JSON.parse(text || "{}");
      const day = (v) => `${v.slice(6, 10)}-${v.slice(0, 2)}-${v.slice(3, 5)}`;
      const rows = [];
      for (let d = day(body.start_date); d < day(body.end_date); d = dayOf(Date.parse(`${d}T00:00:00Z`) + DAY_MS)) {
        rows.push(...(data[report]?.get(d) ?? []));
      }
      const page = rows.slice(body.start_at_row - 1, body.start_at_row - 1 + body.row_limit);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ d: { success: true, message: "", row_count: rows.length, [report]: page } }));
    });
  });
  return new Promise((resolve) => server.listen(CAKE_PORT, "127.0.0.1", () => resolve(server)));
}

/**
 * One "sync now". `wrangler dev` restarts the Worker when a source file changes under it; the
 * interrupted run then holds the CAKE run slot until it counts as dead (15 minutes), so the
 * benchmark stops and says so instead of measuring something else.
 */
async function syncNow(url, cookie) {
  const started = performance.now();
  const res = await fetch(`${url}/api/sync/run`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url, cookie },
    body: JSON.stringify({ source: "cake", days: DAYS }),
  });
  const text = await res.text();
  if (res.status === 503 && text.includes("restarted mid-request")) {
    throw new Error("a source file changed while the sync ran and wrangler dev restarted the Worker; run the benchmark again");
  }
  if (!res.ok) throw new Error(`sync: ${res.status} ${text.slice(0, 2000)}`);
  return { ms: performance.now() - started, outcome: JSON.parse(text).outcomes[0] };
}

async function measureSql(stateDir, start, end) {
  const { mf, db } = openLocalD1(stateDir);
  const d1 = await db();
  const report = (table) =>
    `select offer_id, max(offer_name) as offer_name, sum(clicks) as clicks, sum(conversions) as conversions,
       sum(revenue_cents) as revenue_cents from ${table} where date between ? and ? group by offer_id order by revenue_cents desc`;
  const run = async (table) => {
    const times = [];
    let rowsRead = 0;
    let result;
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      result = await d1.prepare(report(table)).bind(start, end).all();
      times.push(performance.now() - t);
      rowsRead = result.meta.rows_read;
    }
    return { p50: p50(times), rowsRead, rows: result.results };
  };
  const rollup = await run("cake_attributed_daily");
  const naive = await run("cake_stats");
  const sizes = await d1.prepare("select (select count(*) from cake_stats) as stats, (select count(*) from cake_attributed_daily) as rollup").first();
  await mf.dispose();
  return { rollup, naive, sizes };
}

const stateDir = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-cake-"));
let server;
let cake;
try {
  applyMigrations(stateDir);
  let t = performance.now();
  await seedClicks(stateDir);
  console.log(`seeded ${CLICKS.toLocaleString()} clicks over ${DAYS} days in ${ms(performance.now() - t)}`);
  t = performance.now();
  cake = await serveCake(cakeRows());
  console.log(`CAKE stand-in: ${CAKE_ROWS.toLocaleString()} click rows, ${(CAKE_ROWS / 10).toLocaleString()} conversions (${ms(performance.now() - t)})`);

  server = await startServer({
    port: APP_PORT,
    stateDir,
    stdio: "pipe",
    vars: { CAKE_BASE_URL: `http://127.0.0.1:${CAKE_PORT}`, CAKE_API_KEY: "bench-key", CAKE_AFFILIATE_ID: "1" },
  });
  const cookie = await registerFirstAdmin(server.url);

  const first = await syncNow(server.url, cookie);
  console.log(
    `sync, ${DAYS} days: ${ms(first.ms)} — ${first.outcome.rowsFetched.toLocaleString()} rows fetched, ${first.outcome.rowsUpserted.toLocaleString()} cake_stats rows written (${first.outcome.status})`,
  );
  const again = await syncNow(server.url, cookie);
  console.log(`same sync again: ${ms(again.ms)} — ${again.outcome.rowsUpserted} rows written (must be 0), ${(again.ms / first.ms).toFixed(2)}x the first`);

  const start = dayOf(Date.parse(`${today}T00:00:00Z`) - 29 * DAY_MS);
  const times = [];
  let offers = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/cake/offers?startDate=${start}&endDate=${today}`, { headers: { cookie } });
    offers = await res.json();
    times.push(performance.now() - t0);
  }
  const api = p50(times);
  await server.stop();
  server = undefined;

  const { rollup, naive, sizes } = await measureSql(stateDir, start, today);
  const same = JSON.stringify(rollup.rows) === JSON.stringify(naive.rows);
  console.log(`\n30-day offers report (${start} to ${today}), cake_stats ${sizes.stats.toLocaleString()} rows, rollup ${sizes.rollup.toLocaleString()} rows:`);
  console.log(
    `  GET /api/cake/offers   p50 ${ms(api)} over HTTP (${offers.length} offers)   target <= ${TARGET_P50_MS} ms: ${api <= TARGET_P50_MS ? "met" : "MISSED"}`,
  );
  console.log(`  rollup query           p50 ${ms(rollup.p50)}, rows read ${rollup.rowsRead.toLocaleString()}`);
  console.log(`  naive (raw cake_stats) p50 ${ms(naive.p50)}, rows read ${naive.rowsRead.toLocaleString()}`);
  console.log(`  ratio naive / rollup:  time ${(naive.p50 / rollup.p50).toFixed(1)}x, rows read ${(naive.rowsRead / rollup.rowsRead).toFixed(1)}x`);
  console.log(`  same figures both ways: ${same ? "yes" : "NO"}`);
  if (!same || again.outcome.rowsUpserted !== 0 || first.outcome.status !== "ok") process.exitCode = 1;
} finally {
  await server?.stop();
  cake?.close();
  rmSync(stateDir, { recursive: true, force: true });
}
