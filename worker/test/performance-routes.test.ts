import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { campaigns, clicks, landers, userSubid1Assignments } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { runSync } from "../src/sync/run-sync";
import { bodyOf, call, client, db, makeAdmin, makeUser } from "./helpers";
import { ADVERTISER, callWith, clientWith, configuredEnv, createFakes, fakeHttp, unconfiguredEnv, type Fakes } from "./performance-helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The route runs the sync with the runtime's own fetch: the fakes stand in for it there. */
function routeFetchTo(fakes: Fakes) {
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => fakes.fetch(input as Request | string | URL, init));
}

describe("GET /api/sync/status", () => {
  it("shows each source as not configured, with what is missing, when no secret is set", async () => {
    const admin = await makeAdmin();
    const body = await bodyOf(await clientWith(unconfiguredEnv(), admin).sync.status.$get(), 200);
    expect(body.reportTimezone).toBe("UTC");
    expect(body.schedule).toEqual({ everyMinutes: 15, recent: 3, daily: 14 });
    expect(body.sources).toEqual([
      expect.objectContaining({
        source: "cake",
        label: "CAKE",
        configured: false,
        problems: ["CAKE_BASE_URL is not set", "CAKE_API_KEY is not set", "CAKE_AFFILIATE_ID is not set"],
      }),
      expect.objectContaining({
        source: "tiktok",
        label: "TikTok",
        configured: false,
        problems: ["TIKTOK_ACCESS_TOKEN is not set", "TIKTOK_ADVERTISER_IDS is not set"],
      }),
    ]);
    // Each problem's setting, where it lives and what goes in it, for the card to say how to fix it.
    expect(body.sources.map((s) => s.fix)).toEqual([
      [
        { name: "CAKE_BASE_URL", secret: true, what: expect.stringContaining("https://"), problem: "CAKE_BASE_URL is not set" },
        { name: "CAKE_API_KEY", secret: true, what: expect.stringContaining("API key"), problem: "CAKE_API_KEY is not set" },
        { name: "CAKE_AFFILIATE_ID", secret: true, what: expect.stringContaining("affiliate id"), problem: "CAKE_AFFILIATE_ID is not set" },
      ],
      [
        { name: "TIKTOK_ACCESS_TOKEN", secret: true, what: expect.any(String), problem: "TIKTOK_ACCESS_TOKEN is not set" },
        { name: "TIKTOK_ADVERTISER_IDS", secret: true, what: expect.any(String), problem: "TIKTOK_ADVERTISER_IDS is not set" },
      ],
    ]);
    expect(body.postback).toEqual({
      configured: false,
      problems: ["POSTBACK_TOKEN is not set"],
      lastReceivedAt: null,
      url: "https://trackyard.test/postback/cake?token=YOUR_POSTBACK_TOKEN&leadid=#leadid#&oid=#oid#&price=#price#&s1=#s1#&s2=#s2#&s3=#s3#",
    });
  });

  it("names a malformed setting with its problem, and a var as a var", async () => {
    const admin = await makeAdmin();
    const body = await bodyOf(await clientWith(configuredEnv({ CAKE_AFFILIATE_ID: "aff-7", TIKTOK_BASE_URL: "ftp://nope" }), admin).sync.status.$get(), 200);
    expect(body.sources.map((s) => [s.source, s.configured, s.fix.map((f) => [f.name, f.secret, f.problem])])).toEqual([
      ["cake", false, [["CAKE_AFFILIATE_ID", true, "CAKE_AFFILIATE_ID must be a number"]]],
      ["tiktok", false, [["TIKTOK_BASE_URL", false, "TIKTOK_BASE_URL must be an https:// address (plain http only for a local stand-in on 127.0.0.1)"]]],
    ]);
  });

  it("refuses a plain http:// address for CAKE and TikTok, where the keys would travel in clear text, except on this machine", async () => {
    const admin = await makeAdmin();
    const fakes = createFakes();
    routeFetchTo(fakes);
    const cleartext = configuredEnv({ CAKE_BASE_URL: "http://login.network.example", TIKTOK_BASE_URL: "http://business-api.tiktok.com" });
    const refusal = (name: string) => `${name} must be an https:// address (plain http only for a local stand-in on 127.0.0.1)`;

    // The data sources card: each source not configured, the setting to fix named with the reason.
    const status = await bodyOf(await clientWith(cleartext, admin).sync.status.$get(), 200);
    expect(status.sources.map((s) => [s.source, s.configured, s.fix.map((f) => [f.name, f.problem])])).toEqual([
      ["cake", false, [["CAKE_BASE_URL", refusal("CAKE_BASE_URL")]]],
      ["tiktok", false, [["TIKTOK_BASE_URL", refusal("TIKTOK_BASE_URL")]]],
    ]);
    // The sync's error says the same, and nothing is called.
    const run = await callWith(cleartext, "/api/sync/run", { cookie: admin.cookie, json: { source: "cake" } });
    expect(run.status).toBe(409);
    expect(await run.json()).toEqual({ error: `CAKE is not configured: ${refusal("CAKE_BASE_URL")}` });
    // Conversions sent to TikTok use the same address: not configured either.
    const events = await bodyOf(await clientWith(cleartext, admin)["tiktok-events"].$get(), 200);
    expect(events.problems).toContain(refusal("TIKTOK_BASE_URL"));
    expect(fakes.calls).toEqual([]);

    // A local stand-in (the fakes of `npm run fakes`) may speak plain http.
    for (const host of ["127.0.0.1:8790", "localhost:8790", "[::1]:8790"]) {
      const local = configuredEnv({ CAKE_BASE_URL: `http://${host}`, TIKTOK_BASE_URL: `http://${host}/` });
      const body = await bodyOf(await clientWith(local, admin).sync.status.$get(), 200);
      expect(
        body.sources.map((s) => [s.source, s.configured]),
        host,
      ).toEqual([
        ["cake", true],
        ["tiktok", true],
      ]);
    }
  });

  it("shows the last run of each source and when it last succeeded", async () => {
    const admin = await makeAdmin();
    const fakes = createFakes();
    fakes.tiktok.state.rows.push({
      advertiserId: ADVERTISER,
      campaignId: "st-1",
      campaignName: "S",
      date: "2026-02-10",
      spend: "1.00",
      impressions: "1",
      clicks: "1",
      conversion: "0",
    });
    const now = Date.parse("2026-02-10T12:00:00Z");
    const ok = await runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now }, { source: "tiktok", trigger: "cron", days: 1 });
    fakes.tiktok.state.expiredTokens.add("tiktok-test-token");
    const failed = await runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: now + 1000 }, { source: "tiktok", trigger: "cron", days: 1 });

    const body = await bodyOf(await clientWith(configuredEnv(), admin).sync.status.$get(), 200);
    const tiktok = body.sources.find((s) => s.source === "tiktok")!;
    expect(tiktok.configured).toBe(true);
    expect(tiktok.lastRun).toEqual({
      id: failed.id,
      source: "tiktok",
      trigger: "cron",
      status: "error",
      startedAt: new Date(now + 1000).toISOString(),
      finishedAt: expect.stringMatching(/Z$/),
      windowStart: "2026-02-10",
      windowEnd: "2026-02-10",
      rowsFetched: 0,
      rowsUpserted: 0,
      error: failed.error,
    });
    expect(tiktok.lastSuccessAt).toBe(new Date(ok.finishedAt!).toISOString());
  });
});

describe("POST /api/sync/run", () => {
  it("runs a source now and answers with its outcome", async () => {
    const admin = await makeAdmin();
    const fakes = createFakes();
    routeFetchTo(fakes);
    const { outcomes } = await bodyOf(await clientWith(configuredEnv(), admin).sync.run.$post({ json: { source: "cake", days: 2 } }), 200);
    expect(outcomes).toEqual([expect.objectContaining({ source: "cake", trigger: "manual", status: "ok", error: null })]);
    const windowDays = (Date.parse(String(outcomes[0]!.windowEnd)) - Date.parse(String(outcomes[0]!.windowStart))) / 86_400_000;
    expect(windowDays).toBe(1);
    expect(fakes.cake.state.requests.length).toBeGreaterThan(0);
  });

  it("answers 502 with the external message when a source's API fails", async () => {
    const admin = await makeAdmin();
    const fakes = createFakes();
    fakes.tiktok.state.expiredTokens.add("tiktok-test-token");
    routeFetchTo(fakes);
    const res = await callWith(configuredEnv(), "/api/sync/run", { cookie: admin.cookie, json: { source: "all" } });
    expect(res.status).toBe(502);
    const body = await res.json<ApiErrorBody>();
    expect(body.error).toBe(
      "The TikTok sync failed: The TikTok access token has expired: create a new one and update TIKTOK_ACCESS_TOKEN (TikTok: Access token has expired, please refresh it.)",
    );
    expect(body.details).toHaveLength(2);
    expect(body.details?.[0]).toMatch(/^CAKE: ok, 0 rows fetched, 0 rows written \(\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}\)$/);
    expect(body.details?.[1]).toMatch(/^TikTok: error — The TikTok access token has expired/);
  });

  it("refuses to run one source that is not configured, but reports it within 'all'", async () => {
    const admin = await makeAdmin();
    const one = await callWith(unconfiguredEnv(), "/api/sync/run", { cookie: admin.cookie, json: { source: "tiktok" } });
    expect(one.status).toBe(409);
    expect(await one.json()).toEqual({
      error: "TikTok is not configured: TIKTOK_ACCESS_TOKEN is not set; TIKTOK_ADVERTISER_IDS is not set",
    });
    const { outcomes } = await bodyOf(await clientWith(unconfiguredEnv(), admin).sync.run.$post({ json: { source: "all" } }), 200);
    expect(outcomes.map((o) => o.status)).toEqual(["not_configured", "not_configured"]);
  });

  it("validates the request", async () => {
    const admin = await makeAdmin();
    const cases: [unknown, string][] = [
      [{ source: "facebook" }, 'source must be "cake", "tiktok" or "all"'],
      [{}, 'source must be "cake", "tiktok" or "all"'],
      [{ source: "all", days: 0 }, "days must be at least 1"],
      [{ source: "all", days: 91 }, "days must be at most 90"],
      [{ source: "all", days: 1.5 }, "days must be a whole number of days"],
    ];
    for (const [json, error] of cases) {
      const res = await call("/api/sync/run", { cookie: admin.cookie, json });
      expect(res.status, error).toBe(400);
      expect((await res.json<ApiErrorBody>()).error).toBe(error);
    }
  });
});

describe("the performance reads", () => {
  const DAY = "2026-03-10";
  let campaignId = 0;

  beforeAll(async () => {
    const database = db();
    const [lander] = await database.insert(landers).values({ name: "L", url: "https://lander.test" }).returning();
    const [campaign] = await database.insert(campaigns).values({ name: "C", landerId: lander!.id }).returning();
    campaignId = campaign!.id;
    const clickedAt = Date.parse(`${DAY}T10:00:00Z`);
    await database.insert(clicks).values([
      { clickId: "rd-a1", campaignId, tiktokCampaignId: "tt-a", clickedAt },
      { clickId: "rd-b1", campaignId, tiktokCampaignId: "tt-b", clickedAt },
    ]);
    const fakes = createFakes();
    const cakeClick = (id: number, subid1: string, subid2: string, offer: number) => ({
      click_id: id,
      click_date: `${DAY}T10:00:01`,
      offer_id: offer,
      offer_name: `Offer ${offer}`,
      subid_1: subid1,
      subid_2: subid2,
    });
    fakes.cake.state.clicks.push(cakeClick(1, "rd-mb-a", "rd-a1", 21), cakeClick(2, "rd-mb-a", "", 21), cakeClick(3, "rd-mb-b", "rd-b1", 22));
    const conversion = (id: string, subid1: string, subid2: string, offer: number, price: string) => ({
      conversion_id: id,
      conversion_date: `${DAY}T11:00:00`,
      offer_id: offer,
      offer_name: `Offer ${offer}`,
      subid_1: subid1,
      subid_2: subid2,
      price,
      disposition: "Approved",
    });
    fakes.cake.state.conversions.push(conversion("rd-1", "rd-mb-a", "rd-a1", 21, "3.00"), conversion("rd-2", "rd-mb-b", "rd-b1", 22, "10.00"));
    const spend = (campaign: string, amount: string) => ({
      advertiserId: ADVERTISER,
      campaignId: campaign,
      campaignName: `TT ${campaign}`,
      date: DAY,
      spend: amount,
      impressions: "500",
      clicks: "20",
      conversion: "1",
    });
    fakes.tiktok.state.rows.push(spend("tt-a", "7.50"), spend("tt-b", "2.25"));
    const now = Date.parse(`${DAY}T20:00:00Z`);
    for (const source of ["cake", "tiktok"] as const) {
      const run = await runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now }, { source, trigger: "manual", days: 1 });
      expect(run.status).toBe("ok");
    }
  });

  async function member(features: ("dashboard" | "offers")[], buyers: string[]) {
    const user = await makeUser("user", features);
    if (buyers.length)
      await db()
        .insert(userSubid1Assignments)
        .values(buyers.map((subid1) => ({ userId: user.id, subid1 })));
    return user;
  }

  it("gives offer performance with revenue as a decimal string and EPC (per CAKE click) to 3 decimals, as Stats gives EPV", async () => {
    const admin = await makeAdmin();
    const res = await call(`/api/cake/offers?startDate=${DAY}&endDate=${DAY}`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { offerId: 22, offerName: "Offer 22", clicks: 1, conversions: 1, revenue: "10.00", epc: "10.000" },
      { offerId: 21, offerName: "Offer 21", clicks: 2, conversions: 1, revenue: "3.00", epc: "1.500" },
    ]);
    expect(await (await call("/api/cake/offers?startDate=2026-03-11&endDate=2026-03-31", { cookie: admin.cookie })).json()).toEqual([]);
  });

  it("shows a member only their media buyers' offers, and nothing without one", async () => {
    const a = await member(["offers"], ["rd-mb-a"]);
    expect(await (await call(`/api/cake/offers?startDate=${DAY}&endDate=${DAY}`, { cookie: a.cookie })).json()).toEqual([
      { offerId: 21, offerName: "Offer 21", clicks: 2, conversions: 1, revenue: "3.00", epc: "1.500" },
    ]);
    const none = await member(["offers"], []);
    expect(await (await call(`/api/cake/offers?startDate=${DAY}&endDate=${DAY}`, { cookie: none.cookie })).json()).toEqual([]);
  });

  it("gives spend rows, and a member only the ad campaigns that carried their buyers' clicks", async () => {
    const admin = await makeAdmin();
    const all = await bodyOf(await client(admin).tiktok.spend.$get({ query: { startDate: DAY, endDate: DAY } }), 200);
    expect(all).toEqual([
      {
        date: DAY,
        tiktokCampaignId: "tt-a",
        campaignName: "TT tt-a",
        spend: "7.50",
        impressions: 500,
        clicks: 20,
        conversions: 1,
        syncedAt: expect.stringMatching(/Z$/),
      },
      expect.objectContaining({ tiktokCampaignId: "tt-b", spend: "2.25" }),
    ]);
    const b = await member(["dashboard"], ["rd-mb-b"]);
    const mine = await bodyOf(await client(b).tiktok.spend.$get({ query: { startDate: DAY, endDate: DAY } }), 200);
    expect(mine.map((r) => r.tiktokCampaignId)).toEqual(["tt-b"]);
  });

  it("refuses bad date ranges with 400", async () => {
    const admin = await makeAdmin();
    const cases: [string, string][] = [
      ["", "Invalid query: startDate is required"],
      ["startDate=2026-03-01", "endDate is required"],
      ["startDate=2026-02-30&endDate=2026-03-01", "startDate must be a real date written YYYY-MM-DD"],
      ["startDate=2026-03-02&endDate=2026-03-01", "startDate must not be after endDate"],
      ["startDate=2025-01-01&endDate=2026-03-01", "The date range can cover at most 366 days"],
    ];
    for (const path of ["/api/cake/offers", "/api/tiktok/spend"]) {
      for (const [query, error] of cases) {
        const res = await call(`${path}?${query}`, { cookie: admin.cookie });
        expect(res.status, `${path}?${query}`).toBe(400);
        expect((await res.json<ApiErrorBody>()).error, `${path}?${query}`).toBe(error);
      }
    }
  });
});

describe("the report time zone setting", () => {
  it("defaults to UTC and takes IANA names only, stored in their canonical spelling", async () => {
    const admin = await makeAdmin();
    const list = await (await call("/api/settings", { cookie: admin.cookie })).json();
    expect(list).toEqual(expect.arrayContaining([{ key: "report_timezone", value: "UTC" }]));
    const save = (value: unknown) => call("/api/settings", { cookie: admin.cookie, json: { key: "report_timezone", value } });
    expect(await (await save("america/new_york")).json()).toEqual({ key: "report_timezone", value: "America/New_York" });
    for (const bad of ["Mars/Olympus", "", "+05:00", "UTC+5", "../etc"]) {
      const res = await save(bad);
      expect(res.status, bad).toBe(400);
    }
    expect((await (await save("Mars/Olympus")).json<ApiErrorBody>()).error).toBe("Report time zone must be an IANA name such as UTC or America/New_York");
    await save("UTC");
  });
});
