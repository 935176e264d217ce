import { and, asc, between, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cakeAttributedDaily, cakeConversions, cakeStats, cakeSyncStaging, campaigns, clicks, landers, syncRuns, tiktokSpend } from "../src/db/schema";
import type { Bindings } from "../src/env";
import { rebuildAttributed } from "../src/db/queries/cake";
import { writeSetting } from "../src/db/queries/settings";
import { runScheduled } from "../src/jobs";
import { cronDays } from "../src/jobs/sync-data-sources";
import { createDb } from "../src/middleware/database";
import { runSync } from "../src/sync/run-sync";
import type { FakeCakeClick, FakeCakeConversion } from "./fakes/cake-fake";
import type { FakeTikTokRow } from "./fakes/tiktok-fake";
import { db } from "./helpers";
import { ADVERTISER, configuredEnv, createFakes, fakeHttp, unconfiguredEnv, type Fakes } from "./performance-helpers";

/** Noon UTC on a day: the report time zone is UTC here, so the window ends that day. */
const noon = (date: string) => Date.parse(`${date}T12:00:00Z`);

let nextId = 1;
const conversion = (date: string, extra: Partial<FakeCakeConversion> = {}): FakeCakeConversion => ({
  conversion_id: `C${nextId++}`,
  conversion_date: `${date}T09:30:00`,
  offer_id: 11,
  offer_name: "Sweeps",
  subid_1: "mb1",
  subid_2: "",
  subid_3: "spark-a",
  price: "2.50",
  disposition: "Approved",
  ...extra,
});
const click = (date: string, extra: Partial<FakeCakeClick> = {}): FakeCakeClick => ({
  click_id: nextId++,
  click_date: `${date}T09:00:00`,
  offer_id: 11,
  offer_name: "Sweeps",
  subid_1: "mb1",
  subid_2: "",
  subid_3: "spark-a",
  ...extra,
});

function sync(fakes: Fakes, source: "cake" | "tiktok", now: number, days = 3, bindings: Bindings = configuredEnv()) {
  return runSync({ db: db(), env: bindings, http: fakeHttp(fakes), now }, { source, trigger: "manual", days });
}

const statsBetween = (start: string, end: string) =>
  db()
    .select()
    .from(cakeStats)
    .where(between(cakeStats.date, start, end))
    .orderBy(asc(cakeStats.date), asc(cakeStats.offerId), asc(cakeStats.subid1), asc(cakeStats.subid2), asc(cakeStats.subid3));

const figures = (rows: (typeof cakeStats.$inferSelect)[]) =>
  rows.map((r) => [r.date, r.offerId, r.subid1, r.subid2, r.subid3, r.clicks, r.conversions, r.revenueCents]);

describe("CAKE sync", () => {
  it("aggregates the pulled days per key, and a re-run over the same days changes nothing", async () => {
    const fakes = createFakes();
    fakes.cake.state.conversions.push(
      conversion("2025-04-08", { price: "180.000000" }),
      conversion("2025-04-08", { price: "0.29" }),
      conversion("2025-04-09", { subid_1: "mb2", subid_2: "clk-9", offer_id: 12, offer_name: "Loans", price: "12.345" }),
      conversion("2025-04-10", { disposition: "Rejected", price: "99.00" }),
      conversion("2025-04-02", { price: "5.00" }), // before the window: not asked for
    );
    fakes.cake.state.clicks.push(
      click("2025-04-08"),
      click("2025-04-08"),
      click("2025-04-08"),
      click("2025-04-09", { subid_1: "mb2", subid_2: "clk-9", offer_id: 12, offer_name: "Loans" }),
      click("2025-04-10"),
    );

    const first = await sync(fakes, "cake", noon("2025-04-10"));
    expect(first).toMatchObject({ status: "ok", windowStart: "2025-04-08", windowEnd: "2025-04-10", rowsFetched: 9, error: null });
    expect(figures(await statsBetween("2025-04-01", "2025-04-30"))).toEqual([
      ["2025-04-08", 11, "mb1", "", "spark-a", 3, 2, 18029],
      ["2025-04-09", 12, "mb2", "clk-9", "spark-a", 1, 1, 1235],
      // The rejected conversion is kept in the ledger but earns nothing.
      ["2025-04-10", 11, "mb1", "", "spark-a", 1, 0, 0],
    ]);
    expect(first.rowsUpserted).toBe(3);

    const before = await statsBetween("2025-04-01", "2025-04-30");
    const again = await sync(fakes, "cake", noon("2025-04-10"));
    expect(again).toMatchObject({ status: "ok", rowsFetched: 9, rowsUpserted: 0 });
    expect(await statsBetween("2025-04-01", "2025-04-30")).toEqual(before);
    expect(await db().select().from(cakeSyncStaging)).toEqual([]);
  });

  it("lets a late conversion, a reversal and a removal change past days inside the window only", async () => {
    const fakes = createFakes();
    const kept = conversion("2025-05-08", { subid_1: "mb3", price: "10.00" });
    const reversed = conversion("2025-05-09", { subid_1: "mb3", price: "20.00" });
    const removed = conversion("2025-05-09", { subid_1: "mb3", subid_2: "clk-gone", price: "30.00" });
    const old = conversion("2025-05-01", { subid_1: "mb3", price: "40.00" });
    fakes.cake.state.conversions.push(kept, reversed, removed, old);
    await sync(fakes, "cake", noon("2025-05-01"), 1);
    await sync(fakes, "cake", noon("2025-05-10"));
    expect(figures(await statsBetween("2025-05-01", "2025-05-31"))).toEqual([
      ["2025-05-01", 11, "mb3", "", "spark-a", 0, 1, 4000],
      ["2025-05-08", 11, "mb3", "", "spark-a", 0, 1, 1000],
      ["2025-05-09", 11, "mb3", "", "spark-a", 0, 1, 2000],
      ["2025-05-09", 11, "mb3", "clk-gone", "spark-a", 0, 1, 3000],
    ]);

    // Next morning the network approves a late conversion for the 8th, reverses one and drops
    // another; the 1st is outside the re-pulled days, and this time the network has lost it too.
    fakes.cake.state.conversions.push(conversion("2025-05-08", { subid_1: "mb3", price: "5.55" }));
    reversed.disposition = "Rejected";
    fakes.cake.state.conversions.splice(fakes.cake.state.conversions.indexOf(removed), 1);
    fakes.cake.state.conversions.splice(fakes.cake.state.conversions.indexOf(old), 1);
    const run = await sync(fakes, "cake", noon("2025-05-10"));
    expect(run.status).toBe("ok");
    expect(figures(await statsBetween("2025-05-01", "2025-05-31"))).toEqual([
      ["2025-05-01", 11, "mb3", "", "spark-a", 0, 1, 4000],
      ["2025-05-08", 11, "mb3", "", "spark-a", 0, 2, 1555],
    ]);
    expect(run.rowsUpserted).toBe(5); // the 8th's row updated; the 9th's two rows emptied, then removed
  });

  it("writes each day of the rebuild in a batch of its own: D1 failing on one leaves the newer days written and the rest as before, and the next pull writes them", async () => {
    const fakes = createFakes();
    const today = conversion("2025-06-10", { subid_1: "mb-days", price: "10.00" });
    const yesterday = conversion("2025-06-09", { subid_1: "mb-days", price: "20.00" });
    fakes.cake.state.conversions.push(today, yesterday);
    expect((await sync(fakes, "cake", noon("2025-06-10"), 2)).status).toBe("ok");
    const revenue = async () =>
      Object.fromEntries(
        (await statsBetween("2025-06-01", "2025-06-30")).filter((r) => r.subid1 === "mb-days").map((r) => [r.date, [r.conversions, r.revenueCents]]),
      );
    expect(await revenue()).toEqual({ "2025-06-10": [1, 1000], "2025-06-09": [1, 2000] });

    // The network corrects both payouts; D1 fails the second day's batch (newest first: the 9th's).
    today.price = "11.00";
    yesterday.price = "22.00";
    let statsBatches = 0;
    let writesStats = false;
    const failing = new Proxy(configuredEnv().DB, {
      get: (target, key: keyof D1Database) => {
        if (key === "prepare") {
          return (query: string) => {
            if (query.includes("insert into cake_stats")) writesStats = true;
            return target.prepare(query);
          };
        }
        if (key === "batch") {
          return (statements: D1PreparedStatement[]) => {
            const day = writesStats && ++statsBatches === 2;
            writesStats = false;
            return day ? Promise.reject(new Error("D1 overloaded")) : target.batch(statements);
          };
        }
        const value = target[key];
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const failed = await runSync(
      { db: createDb(failing), env: configuredEnv(), http: fakeHttp(fakes), now: noon("2025-06-10") },
      { source: "cake", trigger: "manual", days: 2 },
    );
    expect(statsBatches).toBe(2);
    expect(failed.status).toBe("error");
    expect(failed.error).toContain("D1 overloaded");
    expect(await revenue()).toEqual({ "2025-06-10": [1, 1100], "2025-06-09": [1, 2000] });

    expect((await sync(fakes, "cake", noon("2025-06-10"), 2)).status).toBe("ok");
    expect(await revenue()).toEqual({ "2025-06-10": [1, 1100], "2025-06-09": [1, 2200] });
    // Each day's rollup agrees with its cake_stats.
    const rollup = await db()
      .select({ date: cakeAttributedDaily.date, cents: sql<number>`sum(${cakeAttributedDaily.revenueCents})` })
      .from(cakeAttributedDaily)
      .where(and(between(cakeAttributedDaily.date, "2025-06-09", "2025-06-10"), eq(cakeAttributedDaily.subid1, "mb-days")))
      .groupBy(cakeAttributedDaily.date)
      .orderBy(asc(cakeAttributedDaily.date));
    expect(rollup).toEqual([
      { date: "2025-06-09", cents: 2200 },
      { date: "2025-06-10", cents: 1100 },
    ]);
  });

  it("attributes each row to the campaign and ad fields of the click it came from", async () => {
    const database = db();
    const [lander] = await database.insert(landers).values({ name: "L", url: "https://lander.test" }).returning();
    const [campaign] = await database.insert(campaigns).values({ name: "Spring", landerId: lander!.id }).returning();
    await database.insert(clicks).values({
      clickId: "clk-attr-1",
      campaignId: campaign!.id,
      tiktokCampaignId: "tt-c1",
      tiktokAdGroupId: "tt-ag1",
      tiktokCreativeId: "tt-ad1",
      placement: "TikTok",
      campaignName: "TT Spring",
      adGroupName: "Group",
      creativeName: "Video",
      clickedAt: noon("2025-06-10"),
    });
    const fakes = createFakes();
    fakes.cake.state.clicks.push(click("2025-06-10", { subid_2: "clk-attr-1" }), click("2025-06-10", { subid_2: "clk-unknown" }));
    fakes.cake.state.conversions.push(conversion("2025-06-10", { subid_2: "clk-attr-1", price: "7.00" }));
    await sync(fakes, "cake", noon("2025-06-10"), 1);

    const rows = await database
      .select()
      .from(cakeAttributedDaily)
      .where(eq(cakeAttributedDaily.date, "2025-06-10"))
      .orderBy(asc(cakeAttributedDaily.campaignId));
    expect(rows.map(({ id: _id, ...r }) => r)).toEqual([
      {
        date: "2025-06-10",
        campaignId: 0,
        tiktokCampaignId: "",
        tiktokAdGroupId: "",
        tiktokCreativeId: "",
        placement: "",
        campaignName: "",
        adGroupName: "",
        creativeName: "",
        offerId: 11,
        offerName: "Sweeps",
        subid1: "mb1",
        subid3: "spark-a",
        clicks: 1,
        conversions: 0,
        revenueCents: 0,
      },
      {
        date: "2025-06-10",
        campaignId: campaign!.id,
        tiktokCampaignId: "tt-c1",
        tiktokAdGroupId: "tt-ag1",
        tiktokCreativeId: "tt-ad1",
        placement: "TikTok",
        campaignName: "TT Spring",
        adGroupName: "Group",
        creativeName: "Video",
        offerId: 11,
        offerName: "Sweeps",
        subid1: "mb1",
        subid3: "spark-a",
        clicks: 1,
        conversions: 1,
        revenueCents: 700,
      },
    ]);
  });

  it("rebuilds the rollup from cake_stats rows written some other way (seeding, backfills)", async () => {
    await db()
      .insert(cakeStats)
      .values([
        { date: "2025-06-20", offerId: 5, offerName: "Seeded", subid1: "seed-mb", subid2: "", subid3: "", clicks: 4, conversions: 1, revenueCents: 300 },
        { date: "2025-06-20", offerId: 5, offerName: "Seeded", subid1: "seed-mb", subid2: "x", subid3: "", clicks: 6, conversions: 2, revenueCents: 700 },
      ]);
    await rebuildAttributed(db(), { start: "2025-06-20", end: "2025-06-20" });
    const rows = await db().select().from(cakeAttributedDaily).where(eq(cakeAttributedDaily.subid1, "seed-mb"));
    expect(rows.map((r) => [r.date, r.campaignId, r.offerId, r.offerName, r.clicks, r.conversions, r.revenueCents])).toEqual([
      ["2025-06-20", 0, 5, "Seeded", 10, 3, 1000],
    ]);
  });

  it("writes nothing when CAKE fails, and records why", async () => {
    const fakes = createFakes();
    fakes.cake.state.conversions.push(conversion("2025-07-10", { subid_1: "mb4" }));
    await sync(fakes, "cake", noon("2025-07-10"), 1);
    const before = await statsBetween("2025-07-01", "2025-07-31");
    expect(before).toHaveLength(1);

    fakes.cake.state.conversions.push(conversion("2025-07-10", { subid_1: "mb4" }));
    fakes.cake.state.apiKey = "rotated";
    const run = await sync(fakes, "cake", noon("2025-07-10"), 1);
    expect(run).toMatchObject({
      status: "error",
      rowsFetched: 0,
      rowsUpserted: 0,
      error: "CAKE refused the report: Invalid API Key (check CAKE_API_KEY and CAKE_AFFILIATE_ID)",
    });
    expect(await statsBetween("2025-07-01", "2025-07-31")).toEqual(before);
    const [stored] = await db().select().from(syncRuns).where(eq(syncRuns.id, run.id));
    expect(stored).toMatchObject({ status: "error", error: run.error, trigger: "manual", source: "cake" });
    expect(stored!.finishedAt).toBeGreaterThanOrEqual(stored!.startedAt);
  });

  it("pulls and writes a long stretch a week at a time, newest first, keeping the weeks written before a failure", async () => {
    const fakes = createFakes();
    fakes.cake.state.conversions.push(
      conversion("2025-07-22", { subid_1: "mb-weeks", price: "1.00" }),
      conversion("2025-07-29", { subid_1: "mb-weeks", price: "2.00" }),
    );
    const run = await sync(fakes, "cake", noon("2025-07-30"), 10);
    expect(run).toMatchObject({ status: "ok", windowStart: "2025-07-21", windowEnd: "2025-07-30", rowsFetched: 2 });
    const asked = fakes.cake.state.requests.filter((r) => r.path.endsWith("/Conversions")).map((r) => [r.body.start_date, r.body.end_date]);
    expect(asked).toEqual([
      ["07/28/2025 00:00:00", "07/31/2025 00:00:00"],
      ["07/21/2025 00:00:00", "07/28/2025 00:00:00"],
    ]);

    // New conversions in both weeks, and CAKE fails on the older week.
    fakes.cake.state.conversions.push(
      conversion("2025-07-23", { subid_1: "mb-weeks", price: "4.00" }),
      conversion("2025-07-29", { subid_1: "mb-weeks", price: "3.00" }),
    );
    const failOlderWeek = async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const body = await request.clone().text();
      if (body.includes('"start_date":"07/21/2025')) return new Response("<html>Server Error</html>", { status: 500 });
      return fakes.fetch(request);
    };
    const failed = await runSync(
      { db: db(), env: configuredEnv(), http: { ...fakeHttp(fakes), fetch: failOlderWeek }, now: noon("2025-07-30") },
      { source: "cake", trigger: "manual", days: 10 },
    );
    expect(failed).toMatchObject({
      status: "error",
      rowsFetched: 2,
      rowsUpserted: 1,
      error:
        "CAKE answered HTTP 500 with something that is not JSON: <html>Server Error</html> (the days from 2025-07-28 to 2025-07-30 were saved before that)",
    });
    expect(figures(await statsBetween("2025-07-21", "2025-07-30"))).toEqual([
      ["2025-07-22", 11, "mb-weeks", "", "spark-a", 0, 1, 100],
      ["2025-07-29", 11, "mb-weeks", "", "spark-a", 0, 2, 500],
    ]);
  });

  it("files a row whose instant reads outside the days asked for under the nearest of them", async () => {
    await writeSetting(db(), "report_timezone", "Asia/Tokyo");
    try {
      const fakes = createFakes();
      // 23:30 UTC on the 20th: the network (UTC here) files it on the 20th; Tokyo reads it as the 21st.
      const instant = `/Date(${Date.parse("2025-08-20T23:30:00Z")})/`;
      fakes.cake.state.conversions.push(conversion("2025-08-20", { subid_1: "mb-tz", conversion_date: instant }));
      fakes.cake.state.clicks.push(click("2025-08-20", { subid_1: "mb-tz", click_date: instant }));
      const run = await sync(fakes, "cake", noon("2025-08-20"), 1);
      expect(run).toMatchObject({ status: "ok", windowStart: "2025-08-20", windowEnd: "2025-08-20" });
      expect(figures(await statsBetween("2025-08-19", "2025-08-22"))).toEqual([["2025-08-20", 11, "mb-tz", "", "spark-a", 1, 1, 250]]);
      expect((await sync(fakes, "cake", noon("2025-08-20"), 1)).rowsUpserted).toBe(0);
    } finally {
      await writeSetting(db(), "report_timezone", "UTC");
    }
  });

  it("records a missing credential as not configured, without calling anyone", async () => {
    const fakes = createFakes();
    const run = await sync(fakes, "cake", noon("2025-08-10"), 3, configuredEnv({ CAKE_API_KEY: "", CAKE_AFFILIATE_ID: "abc" }));
    expect(run).toMatchObject({
      status: "not_configured",
      error: "CAKE is not configured: CAKE_API_KEY is not set; CAKE_AFFILIATE_ID must be a number",
      rowsFetched: 0,
    });
    const tiktok = await sync(fakes, "tiktok", noon("2025-08-10"), 3, unconfiguredEnv());
    expect(tiktok.error).toBe("TikTok is not configured: TIKTOK_ACCESS_TOKEN is not set; TIKTOK_ADVERTISER_IDS is not set");
    expect(fakes.calls).toEqual([]);
    expect(await db().select().from(syncRuns).where(eq(syncRuns.id, run.id))).toHaveLength(1);
  });

  it("skips a run while another of the same source is going, unless that one died long ago", async () => {
    const fakes = createFakes();
    const now = noon("2025-09-10");
    const [running] = await db()
      .insert(syncRuns)
      .values({ source: "cake", trigger: "cron", status: "running", startedAt: now - 60_000 })
      .returning();
    const skipped = await sync(fakes, "cake", now, 1);
    expect(skipped.status).toBe("skipped");
    expect(skipped.error).toBe(`Another CAKE sync is still running (started ${new Date(now - 60_000).toISOString()})`);
    expect(fakes.calls).toEqual([]);

    await db()
      .update(syncRuns)
      .set({ startedAt: now - 20 * 60_000 })
      .where(eq(syncRuns.id, running!.id));
    expect((await sync(fakes, "cake", now, 1)).status).toBe("ok");
  });
});

describe("TikTok sync", () => {
  const spend = (date: string, campaignId: string, extra: Partial<FakeTikTokRow> = {}): FakeTikTokRow => ({
    advertiserId: ADVERTISER,
    campaignId,
    campaignName: `Campaign ${campaignId}`,
    date,
    spend: "10.00",
    impressions: "100",
    clicks: "10",
    conversion: "1",
    ...extra,
  });
  const spendBetween = (start: string, end: string) =>
    db()
      .select()
      .from(tiktokSpend)
      .where(between(tiktokSpend.date, start, end))
      .orderBy(asc(tiktokSpend.date), asc(tiktokSpend.tiktokCampaignId));
  const spendFigures = (rows: (typeof tiktokSpend.$inferSelect)[]) =>
    rows.map((r) => [r.date, r.tiktokCampaignId, r.campaignName, r.spendCents, r.impressions, r.clicks, r.conversions]);

  it("upserts every advertiser's campaign days, and a re-run changes nothing", async () => {
    const fakes = createFakes();
    const other = "7000000000002";
    fakes.tiktok.state.advertiserIds.add(other);
    fakes.tiktok.state.rows.push(
      spend("2025-04-09", "c1", { spend: "12.34" }),
      spend("2025-04-10", "c1", { spend: "-", impressions: "-", clicks: "-", conversion: "-" }),
      spend("2025-04-10", "c2", { advertiserId: other, spend: "0.29" }),
    );
    const bindings = configuredEnv({ TIKTOK_ADVERTISER_IDS: `${ADVERTISER}, ${other}` });
    const run = await sync(fakes, "tiktok", noon("2025-04-10"), 2, bindings);
    expect(run).toMatchObject({ status: "ok", rowsFetched: 3, rowsUpserted: 3, error: null });
    expect(spendFigures(await spendBetween("2025-04-01", "2025-04-30"))).toEqual([
      ["2025-04-09", "c1", "Campaign c1", 1234, 100, 10, 1],
      ["2025-04-10", "c1", "Campaign c1", 0, 0, 0, 0],
      ["2025-04-10", "c2", "Campaign c2", 29, 100, 10, 1],
    ]);
    const before = await spendBetween("2025-04-01", "2025-04-30");
    expect(await sync(fakes, "tiktok", noon("2025-04-10"), 2, bindings)).toMatchObject({ status: "ok", rowsUpserted: 0 });
    expect(await spendBetween("2025-04-01", "2025-04-30")).toEqual(before);

    // TikTok corrects a day's spend later: the row changes in place.
    fakes.tiktok.state.rows[0]!.spend = "15.00";
    expect(await sync(fakes, "tiktok", noon("2025-04-10"), 2, bindings)).toMatchObject({ rowsUpserted: 1 });
    expect(spendFigures(await spendBetween("2025-04-09", "2025-04-09"))).toEqual([["2025-04-09", "c1", "Campaign c1", 1500, 100, 10, 1]]);
  });

  it("saves the advertisers it could read and reports the one it could not", async () => {
    const fakes = createFakes();
    fakes.tiktok.state.rows.push(spend("2025-05-10", "c5"));
    const run = await sync(fakes, "tiktok", noon("2025-05-10"), 1, configuredEnv({ TIKTOK_ADVERTISER_IDS: `${ADVERTISER},123` }));
    expect(run.status).toBe("error");
    expect(run.rowsUpserted).toBe(1);
    expect(run.error).toBe(
      "Some advertisers failed — advertiser 123: The TikTok access token has no permission to read the reports of advertiser 123 (TikTok: No permission to operate advertiser 123.)",
    );
    expect(await spendBetween("2025-05-10", "2025-05-10")).toHaveLength(1);
  });

  it("stops at an expired token and writes nothing", async () => {
    const fakes = createFakes();
    fakes.tiktok.state.rows.push(spend("2025-06-10", "c6"));
    fakes.tiktok.state.expiredTokens.add("tiktok-test-token");
    const run = await sync(fakes, "tiktok", noon("2025-06-10"), 1, configuredEnv({ TIKTOK_ADVERTISER_IDS: `${ADVERTISER},123` }));
    expect(run).toMatchObject({
      status: "error",
      rowsUpserted: 0,
      error: "The TikTok access token has expired: create a new one and update TIKTOK_ACCESS_TOKEN (TikTok: Access token has expired, please refresh it.)",
    });
    expect(fakes.tiktok.state.requests).toHaveLength(1);
    expect(await spendBetween("2025-06-10", "2025-06-10")).toEqual([]);
  });
});

describe("the cron", () => {
  it("pulls the recent days on every run and the longer stretch on the first run after midnight", () => {
    const bindings = configuredEnv({ SYNC_RECENT_DAYS: "2", SYNC_DAILY_DAYS: "10" });
    expect(cronDays(bindings, "UTC", Date.parse("2025-04-10T00:00:00Z"))).toBe(10);
    expect(cronDays(bindings, "UTC", Date.parse("2025-04-10T00:15:00Z"))).toBe(2);
    expect(cronDays(bindings, "America/New_York", Date.parse("2025-04-10T04:00:00Z"))).toBe(10);
    expect(cronDays(bindings, "America/New_York", Date.parse("2025-04-10T00:00:00Z"))).toBe(2);
    expect(cronDays(configuredEnv({ SYNC_RECENT_DAYS: "0", SYNC_DAILY_DAYS: "many" }), "UTC", Date.parse("2025-04-10T00:00:00Z"))).toBe(14);
  });

  it("records each unconfigured source once per run", async () => {
    const now = noon("2025-10-10");
    const results = await runScheduled(unconfiguredEnv(), now);
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    const runs = await db().select().from(syncRuns).where(eq(syncRuns.startedAt, now)).orderBy(asc(syncRuns.source));
    expect(runs.map((r) => [r.source, r.trigger, r.status])).toEqual([
      ["cake", "cron", "not_configured"],
      ["tiktok", "cron", "not_configured"],
    ]);
  });

  it("keeps a month of run history", async () => {
    const now = noon("2025-11-10");
    await db()
      .insert(syncRuns)
      .values([
        { source: "cake", trigger: "cron", status: "ok", startedAt: now - 31 * 86_400_000 },
        { source: "cake", trigger: "cron", status: "ok", startedAt: now - 29 * 86_400_000 },
      ]);
    await runScheduled(unconfiguredEnv(), now);
    const old = await db()
      .select()
      .from(syncRuns)
      .where(and(eq(syncRuns.source, "cake"), between(syncRuns.startedAt, now - 40 * 86_400_000, now - 86_400_000)));
    expect(old.map((r) => r.startedAt)).toEqual([now - 29 * 86_400_000]);
  });
});

describe("the conversion ledger", () => {
  it("keeps a pulled conversion once per id, with its disposition deciding whether it counts", async () => {
    const fakes = createFakes();
    const c = conversion("2025-12-10", { subid_1: "mb-ledger", disposition: "Pending" });
    fakes.cake.state.conversions.push(c, { ...c }); // the report repeats a row across pages
    await sync(fakes, "cake", noon("2025-12-10"), 1);
    const rows = await db()
      .select()
      .from(cakeConversions)
      .where(eq(cakeConversions.conversionId, String(c.conversion_id)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: "pull", counted: true, disposition: "Pending", revenueCents: 250 });
  });
});

describe("a busy window", () => {
  it("writes 30,000 clicks and 3,000 conversions in one run, and re-runs without changes", async () => {
    const fakes = createFakes();
    for (let i = 0; i < 30_000; i++) {
      const day = `2026-01-0${1 + (i % 3)}`;
      fakes.cake.state.clicks.push(click(day, { subid_1: `busy-mb${i % 7}`, subid_2: `busy-clk-${i}`, subid_3: `spark-${i % 5}` }));
      if (i % 10 === 0) fakes.cake.state.conversions.push(conversion(day, { subid_1: `busy-mb${i % 7}`, subid_2: `busy-clk-${i}`, subid_3: `spark-${i % 5}` }));
    }
    const run = await sync(fakes, "cake", noon("2026-01-03"));
    expect(run).toMatchObject({ status: "ok", rowsFetched: 33_000, rowsUpserted: 30_000, error: null });
    const totals = await db().all<{ rows: number; clicks: number; conversions: number; revenue: number }>(
      sql`select count(*) as rows, sum(clicks) as clicks, sum(conversions) as conversions, sum(revenue_cents) as revenue
          from cake_stats where date between '2026-01-01' and '2026-01-03'`,
    );
    expect(totals).toEqual([{ rows: 30_000, clicks: 30_000, conversions: 3_000, revenue: 750_000 }]);
    expect((await sync(fakes, "cake", noon("2026-01-03"))).rowsUpserted).toBe(0);
  }, 120_000);
});
