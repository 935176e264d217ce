// Benchmark: conversions sent to TikTok's Events API through the Cloudflare Queue (docs/integrations.md "Conversions sent to TikTok").
//
// Trackyard on `wrangler dev` (its queue, producer and consumer running locally) against the
// local fakes (scripts/lib/fakes.mjs) served over HTTP:
//   seed      BENCH_EVENTS (10,000) clicks with a ttclid, straight into the local D1
//   run       the CAKE fake reports one approved conversion per click; "Sync now" pulls them,
//             claims each for TikTok and enqueues them (1,000 ids a message); the Worker's queue
//             consumer sends them in calls of up to 1,000. The Events API fake fails the first
//             call once (code 50002, retried after TIKTOK_EVENTS_RETRY_SECONDS=1).
//   check     every conversion received exactly once (unique event_ids = conversions, no
//             duplicate), and the Worker's own count of sent rows agrees
//   baseline  the same events posted by this script straight to the fake in calls of 1,000: the
//             floor no queue can beat. Printed: time, ratio, and this process's CPU use.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FAKE_EVENTS_TOKEN, startFakes } from "../lib/fakes.mjs";
import { openLocalD1, registerFirstAdmin } from "../lib/local-d1.mjs";
import { applyMigrations, startServer } from "../lib/server.mjs";

const COUNT = Number(process.env.BENCH_EVENTS ?? 10_000);
const PORT = Number(process.env.BENCH_PORT ?? 8972);
const TIMEOUT_MS = 300_000;
const PIXEL = "CBENCHPIXEL000000001";

const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-events-"));
const stateDir = path.join(work, "state");
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const int = (n) => n.toLocaleString("en-US");
const today = new Date().toISOString().slice(0, 10);
const cpuStart = process.cpuUsage();
const wallStart = performance.now();

async function seed() {
  applyMigrations(stateDir, { quiet: true });
  const { mf, db } = openLocalD1(stateDir);
  const d1 = await db();
  const now = Date.now();
  await d1.batch([
    d1.prepare("insert into landers (id, name, url) values (1, 'Bench lander', 'https://lander.example/lp')"),
    d1.prepare("insert into campaigns (id, name, lander_id, bh_toggle) values (1, 'Bench campaign', 1, 1)"),
    d1
      .prepare(
        `insert into clicks (click_id, campaign_id, tiktok_campaign_id, ttclid, ip_address, user_agent, clicked_at)
       with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       select 'bench-click-' || i, 1, '1799', 'E.C.P.bench-' || i, '198.51.100.' || (i % 250), 'Mozilla/5.0 (iPhone) musical_ly_34.1.0', ?2 - i * 1000
       from n`,
      )
      .bind(COUNT, now - 60_000),
  ]);
  await mf.dispose();
}

const conversions = () =>
  Array.from({ length: COUNT }, (_, i) => ({
    conversion_id: `bench-conv-${i + 1}`,
    conversion_date: `${today}T00:00:01`,
    offer_id: 7,
    offer_name: "Bench offer",
    subid_1: "mb",
    subid_2: `bench-click-${i + 1}`,
    subid_3: "",
    price: "12.50",
    disposition: "Approved",
  }));

let server;
let fakes;
try {
  fakes = await startFakes();
  await seed();
  server = await startServer({
    port: PORT,
    stateDir,
    stdio: "pipe",
    vars: {
      CAKE_BASE_URL: fakes.url,
      CAKE_API_KEY: fakes.cake.state.apiKey,
      CAKE_AFFILIATE_ID: fakes.cake.state.affiliateId,
      TIKTOK_BASE_URL: fakes.url,
      TIKTOK_EVENTS_ACCESS_TOKEN: FAKE_EVENTS_TOKEN,
      TIKTOK_EVENTS_RETRY_SECONDS: "1",
    },
  });
  const cookie = await registerFirstAdmin(server.url);
  const api = async (method, p, body) => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { cookie, origin: server.url, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  await api("PUT", "/api/tiktok-events/settings", { pixelCode: PIXEL, testEventCode: "", pendingEvent: "", currency: "USD" });
  fakes.cake.state.conversions.push(...conversions());
  fakes.events.failNext({ code: 50002, message: "Internal error (benchmark: fails once)" });

  const t0 = performance.now();
  const sync = await api("POST", "/api/sync/run", { source: "cake", days: 1 });
  const queuedAt = performance.now();
  console.log(`sync pulled and queued ${int(COUNT)} conversions in ${s(queuedAt - t0)} (${sync.outcomes[0].status})`);
  const deadline = Date.now() + TIMEOUT_MS;
  while (fakes.events.state.events.size < COUNT && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const delivered = performance.now();
  // A moment more: anything sent twice would show now.
  await new Promise((r) => setTimeout(r, 3000));
  const { state } = fakes.events;
  const status = await api("GET", "/api/tiktok-events");
  const calls = state.calls.map((c) => `${c.events}:${c.code ?? c.status}`).join(" ");

  // Baseline: the same events straight to the fake, 1,000 a call, from this process.
  const baselineFake = await startFakes();
  const events = conversions().map((c, i) => ({
    event: "CompletePayment",
    event_time: Math.floor(Date.now() / 1000) - 60,
    event_id: c.conversion_id,
    user: { ttclid: `E.C.P.bench-${i + 1}`, ip: "198.51.100.1", user_agent: "Mozilla/5.0" },
    properties: { value: 12.5, currency: "USD" },
  }));
  const b0 = performance.now();
  for (let i = 0; i < events.length; i += 1000) {
    await fetch(`${baselineFake.url}/open_api/v1.3/event/track/`, {
      method: "POST",
      headers: { "Access-Token": FAKE_EVENTS_TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ event_source: "web", event_source_id: PIXEL, data: events.slice(i, i + 1000) }),
    });
  }
  const baselineMs = performance.now() - b0;
  await baselineFake.close();

  const ok = state.events.size === COUNT && state.duplicates === 0 && status.today.sent === COUNT && status.today.failed === 0 && status.today.waiting === 0;
  console.log(
    `delivered: ${int(state.events.size)} unique events of ${int(COUNT)}, ${int(state.duplicates)} duplicates; Worker: ${int(status.today.sent)} sent, ${int(status.today.failed)} failed, ${int(status.today.waiting)} waiting`,
  );
  console.log(`calls (events:code): ${calls}`);
  console.log(`time from "Sync now" to the last event at the fake: ${s(delivered - t0)} (from queued: ${s(delivered - queuedAt)})`);
  console.log(
    `baseline, the same events posted straight to the fake 1,000 a call: ${s(baselineMs)}; queue path / baseline: ${((delivered - t0) / baselineMs).toFixed(1)}x`,
  );
  const cpu = process.cpuUsage(cpuStart);
  console.log(`this process (fakes and load): ${s((cpu.user + cpu.system) / 1000)} CPU over ${s(performance.now() - wallStart)} wall`);
  console.log(ok ? "PASS: every conversion delivered exactly once, with one failed call retried" : "FAIL: see the counts above");
  process.exitCode = ok ? 0 : 1;
} finally {
  await server?.stop();
  await fakes?.close();
  rmSync(work, { recursive: true, force: true });
}
