// The local fakes of CAKE, TikTok's reporting API, TikTok's Events API, Slack's incoming webhooks and
// Telegram's sendMessage (worker/test/fakes/),
// served over HTTP from one port, for `npm start` (`npm run fakes`) and the benchmarks.
// Control endpoints (JSON):
//   GET  /__fake/events            what the Events API fake received: unique events, duplicates, calls
//   POST /__fake/events/fail       [{ code, message } | { status, text }, ...]: the next calls answer these
//   POST /__fake/cake/conversions  [FakeCakeConversion, ...]: rows the CAKE fake reports from now on
//   GET  /__fake/slack             what the Slack fake received (any /services/T…/B…/… webhook is one)
//   POST /__fake/slack/fail        [404, 410, 429, 500, ...]: the next webhook calls answer these
//   GET  /__fake/telegram          what the Telegram fake received (any bot token, any chat)
//   POST /__fake/telegram/fail     [{ status: 403 } | { status: 429, retryAfter: 3 }, ...]: the next sendMessage calls answer these
//   GET  /__fake/tiktok/adgroups   the TikTok fake's ad groups: { id: { advertiserId, status } }
//   POST /__fake/tiktok/adgroups   { id: { advertiserId?, status? } }: ad groups to add or set (ENABLE / DISABLE)
//   POST /__fake/tiktok/fail       [{ code, message } | { status, text }, with an optional path]: the next
//                                  TikTok calls (to that path) answer these, e.g. 40100, 40001, 40105, 502
import path from "node:path";
import { runnerImport } from "vite";
import { serveFetch } from "./serve-fetch.mjs";
import { ROOT } from "./server.mjs";

export const FAKE_EVENTS_TOKEN = "events-test-token";
export const FAKE_ADVERTISER = "7000000000001";

/** A fake's module from worker/test/fakes/: TypeScript shared with the worker tests, loaded as it is by Vite's module runner. */
export const loadFakeModule = async (file) =>
  (await runnerImport(path.join(ROOT, "worker/test/fakes", file), { configFile: false, logLevel: "silent" })).module;

const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Starts the fakes on 127.0.0.1:`port` (0: any free port). Returns { url, cake, tiktok, events, slack, telegram, close }. */
export async function startFakes({ port = 0, eventsToken = FAKE_EVENTS_TOKEN } = {}) {
  const [{ createCakeFake }, { createTikTokFake }, { createTikTokEventsFake }, { createSlackFake }, { createTelegramFake }] = await Promise.all(
    ["cake-fake.ts", "tiktok-fake.ts", "tiktok-events-fake.ts", "slack-fake.ts", "telegram-fake.ts"].map(loadFakeModule),
  );
  const cake = createCakeFake();
  const tiktok = createTikTokFake({ advertiserIds: [FAKE_ADVERTISER] });
  const events = createTikTokEventsFake({ accessToken: eventsToken });
  const slack = createSlackFake();
  const telegram = createTelegramFake();

  async function route(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/__fake/events" && request.method === "GET") {
      const { state } = events;
      return json({ unique: state.events.size, duplicates: state.duplicates, calls: state.calls, latest: events.received().slice(-20) });
    }
    if (pathname === "/__fake/events/fail" && request.method === "POST") {
      events.failNext(...(await request.json()));
      return json({ ok: true });
    }
    if (pathname === "/__fake/cake/conversions" && request.method === "POST") {
      cake.state.conversions.push(...(await request.json()));
      return json({ ok: true, conversions: cake.state.conversions.length });
    }
    if (pathname === "/__fake/slack" && request.method === "GET") return json({ received: slack.received() });
    if (pathname === "/__fake/slack/fail" && request.method === "POST") {
      slack.failNext(...(await request.json()));
      return json({ ok: true });
    }
    if (pathname === "/__fake/telegram" && request.method === "GET") return json({ received: telegram.received() });
    if (pathname === "/__fake/telegram/fail" && request.method === "POST") {
      telegram.failNext(...(await request.json()));
      return json({ ok: true });
    }
    if (pathname.startsWith("/services/")) return slack.handle(request);
    if (pathname.startsWith("/bot")) return telegram.handle(request);
    if (pathname === "/__fake/tiktok/adgroups" && request.method === "GET") return json(Object.fromEntries(tiktok.state.adGroups));
    if (pathname === "/__fake/tiktok/adgroups" && request.method === "POST") {
      for (const [id, g] of Object.entries(await request.json())) {
        tiktok.state.adGroups.set(id, { advertiserId: g.advertiserId ?? FAKE_ADVERTISER, status: g.status ?? "ENABLE" });
      }
      return json(Object.fromEntries(tiktok.state.adGroups));
    }
    if (pathname === "/__fake/tiktok/fail" && request.method === "POST") {
      tiktok.failNext(...(await request.json()));
      return json({ ok: true });
    }
    if (pathname.startsWith("/open_api/v1.3/event/")) return events.handle(request);
    if (pathname.startsWith("/open_api/")) return tiktok.handle(request);
    return cake.handle(request);
  }

  const { url, server } = await serveFetch(route, port);
  return { url, cake, tiktok, events, slack, telegram, close: () => new Promise((resolve) => server.close(resolve)) };
}
