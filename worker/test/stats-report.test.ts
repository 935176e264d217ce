import { beforeAll, describe, expect, it } from "vitest";
import { userSubid1Assignments } from "../src/db/schema";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { STATS_GROUPINGS, type StatsReport } from "../src/schemas/stats";
import { bodyOf, call, client, db, makeAdmin, makeUser, type TestUser } from "./helpers";
import type { ApiErrorBody } from "../src/lib/errors";
import { cents, report, rowByKey, seedCake, seedCampaign, seedClicks, seedLander, seedOffer, seedSpend } from "./stats-helpers";

/** Every row's money adds up to the totals, to the cent, and so do the days. */
function expectAddsUp(r: StatsReport) {
  expect(cents(r.rows.map((x) => x.revenue))).toBe(cents([r.totals.revenue]));
  expect(cents(r.rows.map((x) => x.spend))).toBe(cents([r.totals.spend]));
  expect(cents(r.rows.map((x) => x.profit))).toBe(cents([r.totals.profit]));
  expect(r.rows.reduce((s, x) => s + x.visits, 0)).toBe(r.totals.visits);
  expect(r.rows.reduce((s, x) => s + x.conversions, 0)).toBe(r.totals.conversions);
  expect(cents(r.daily.map((d) => d.spend))).toBe(cents([r.totals.spend]));
  expect(cents(r.daily.map((d) => d.revenue))).toBe(cents([r.totals.revenue]));
}

/**
 * One day (2024-03-10, UTC) of a small account:
 * - our campaigns C1 (lander L1, our offer O1) and C2 (lander L2);
 * - TikTok campaign t1 sent 3 clicks to C1 (one exited) and 1 to C2; t2 sent 2 clicks to C2;
 * - CAKE: C1's first click converted for $10.00 (offer 501, media buyer mb1, spark sp1); one of
 *   C2's t2 clicks reached offer 501 for mb2 without converting; 2 clicks under a sub2 we never
 *   issued converted once for $5.00 (offer 502, mb1): Direct;
 * - spend: t1 $10.00, t2 $3.00, t3 $2.00 (t3 sent us no click).
 */
const DAY = "2024-03-10";
const RANGE = { startDate: DAY, endDate: DAY };
let admin: TestUser;
let ids: { c1: number; c2: number; l1: number; l2: number; o1: number };

beforeAll(async () => {
  admin = await makeAdmin();
  const l1 = await seedLander("Lander One");
  const l2 = await seedLander("Lander Two");
  const o1 = await seedOffer("Offer config One");
  const c1 = await seedCampaign({ name: "Campaign One", landerId: l1, offerId: o1 });
  const c2 = await seedCampaign({ name: "Campaign Two", landerId: l2 });
  ids = { c1, c2, l1, l2, o1 };
  const t1 = { tt: "t1", adGroup: "ag1", creative: "cr1", placement: "feed", cname: "TT One", aname: "Group One", crname: "Ad One" };
  const t2 = { tt: "t2", adGroup: "ag2", creative: "cr2", placement: "pangle", cname: "TT Two", aname: "Group Two", crname: "Ad Two" };
  const [k1, , , , k5] = await seedClicks([
    { campaignId: c1, at: `${DAY}T01:00:00Z`, exitedAt: `${DAY}T01:01:00Z`, ...t1 },
    { campaignId: c1, at: `${DAY}T02:00:00Z`, ...t1 },
    { campaignId: c1, at: `${DAY}T03:00:00Z`, ...t1 },
    { campaignId: c2, at: `${DAY}T04:00:00Z`, ...t1 },
    { campaignId: c2, at: `${DAY}T05:00:00Z`, ...t2 },
    { campaignId: c2, at: `${DAY}T06:00:00Z`, ...t2 },
  ]);
  await seedCake([
    { date: DAY, offerId: 501, offerName: "Offer A", subid1: "mb1", subid2: k1, subid3: "sp1", clicks: 1, conversions: 1, revenueCents: 1000 },
    { date: DAY, offerId: 501, offerName: "Offer A", subid1: "mb2", subid2: k5, clicks: 1 },
    { date: DAY, offerId: 502, offerName: "Offer B", subid1: "mb1", subid2: "not-our-click", clicks: 2, conversions: 1, revenueCents: 500 },
  ]);
  await seedSpend([
    { date: DAY, tt: "t1", cents: 1000 },
    { date: DAY, tt: "t2", cents: 300 },
    { date: DAY, tt: "t3", cents: 200 },
  ]);
  await rollUpClicks(db(), { now: Date.parse("2024-03-11T00:00:00Z") });
});

describe("GET /api/stats/report: campaign grouping", () => {
  it("credits each TikTok campaign's spend to our campaigns by click share, with Direct and the unattributed row", async () => {
    const r = await report(admin.cookie, RANGE);
    expect(r).toMatchObject({ startDate: DAY, endDate: DAY, timeZone: "UTC", groupBy: "campaign" });
    expect(r.rows.map((x) => x.key)).toEqual([String(ids.c1), "direct", String(ids.c2), "unattributed-spend"]);
    expect(rowByKey(r, String(ids.c1))).toEqual({
      key: String(ids.c1),
      name: "Campaign One",
      campaignId: ids.c1,
      spendMethod: "attributed",
      visits: 1,
      conversions: 1,
      revenue: "10.00",
      spend: "7.50", // 3 of t1's 4 clicks
      profit: "2.50",
      roi: (250 / 750) * 100,
      roas: 1000 / 750,
      cr: 100,
      epv: "10.000",
      cpv: "7.500",
      linkClicks: 3,
      exitClicks: 1,
      landerCtr: (1 / 3) * 100,
      botShare: 0,
    });
    expect(rowByKey(r, String(ids.c2))).toMatchObject({
      name: "Campaign Two",
      campaignId: ids.c2,
      spend: "5.50", // 1 of t1's 4 clicks ($2.50) and all of t2's ($3.00)
      revenue: "0.00",
      profit: "-5.50",
      roi: -100,
      roas: 0,
      visits: 1,
      cr: 0,
      epv: "0.000",
      cpv: "5.500",
      linkClicks: 3,
      exitClicks: 0,
      landerCtr: 0,
    });
    expect(rowByKey(r, "direct")).toMatchObject({
      name: "Direct",
      campaignId: null,
      spendMethod: "none",
      visits: 2,
      conversions: 1,
      revenue: "5.00",
      spend: "0.00",
      roi: 0,
      roas: 0,
      cr: 50,
      linkClicks: null,
      exitClicks: null,
      landerCtr: null,
    });
    expect(rowByKey(r, "unattributed-spend")).toMatchObject({
      name: "Unattributed spend",
      campaignId: null,
      spendMethod: "none",
      visits: 0,
      revenue: "0.00",
      spend: "2.00",
      profit: "-2.00",
      linkClicks: null,
    });
    expect(r.totals).toEqual({
      visits: 4,
      conversions: 2,
      revenue: "15.00",
      spend: "15.00",
      profit: "0.00",
      roi: 0,
      roas: 1,
      cr: 50,
      epv: "3.750",
      cpv: "3.750",
      linkClicks: 6,
      exitClicks: 1,
      landerCtr: (1 / 6) * 100,
      botShare: 0,
    });
    expect(r.daily).toEqual([{ date: DAY, revenue: "15.00", spend: "15.00", profit: "0.00" }]);
    expect(r.spendNote).toContain("$2.00");
    expect(r.spendNote).toContain("Unattributed spend");
    expect(r.lastSync).toEqual({ cake: null, tiktok: null });
    expectAddsUp(r);
  });

  it("narrows to one campaign: its rows and its share of spend only, saying what was left out", async () => {
    const r = await report(admin.cookie, { ...RANGE, campaignId: ids.c2 });
    expect(r.rows.map((x) => x.key)).toEqual([String(ids.c2)]);
    expect(r.rows[0]).toMatchObject({ spend: "5.50", linkClicks: 3, visits: 1 });
    expect(r.spendNote).toBe("Only the spend linked by clicks to these rows is counted: $9.50 of the $15.00 spent in these days is left out.");
    expectAddsUp(r);
  });

  it("filters by our offer through the campaigns sending to it", async () => {
    const r = await report(admin.cookie, { ...RANGE, offerId: ids.o1 });
    expect(r.rows.map((x) => x.key)).toEqual([String(ids.c1)]);
    expect(r.rows[0]).toMatchObject({ revenue: "10.00", spend: "7.50", linkClicks: 3 });
    expectAddsUp(r);
  });

  it("filters by media buyer: spend follows the buyer's share of each TikTok campaign's CAKE clicks", async () => {
    const r = await report(admin.cookie, { ...RANGE, mediaBuyer: "mb1" });
    // t1's only CAKE click is mb1's: all of t1's $10.00 goes to the campaign that click came through.
    expect(r.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([
      [String(ids.c1), "10.00", "10.00"],
      ["direct", "5.00", "0.00"],
    ]);
    expect(rowByKey(r, String(ids.c1)).linkClicks).toBe(3);
    expectAddsUp(r);
  });

  it("filters by spark, and by No Spark", async () => {
    const sp1 = await report(admin.cookie, { ...RANGE, sparkId: "sp1" });
    expect(sp1.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([[String(ids.c1), "10.00", "10.00"]]);
    const none = await report(admin.cookie, { ...RANGE, sparkId: "none" });
    expect(none.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([
      ["direct", "5.00", "0.00"],
      [String(ids.c2), "0.00", "3.00"],
    ]);
  });

  it("shows a member only their media buyers' rows and the spend linked to them", async () => {
    const member = await makeUser("user", ["dashboard"]);
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: "mb2" });
    const r = await report(member.cookie, RANGE);
    expect(r.rows.map((x) => [x.key, x.visits, x.revenue, x.spend])).toEqual([[String(ids.c2), 1, "0.00", "3.00"]]);
    expect(r.spendNote).toBe("Only the spend linked by clicks to your media buyers' traffic is counted.");
    expect(r.daily).toEqual([{ date: DAY, revenue: "0.00", spend: "3.00", profit: "-3.00" }]);

    const unassigned = await makeUser("user", ["dashboard"]);
    const empty = await report(unassigned.cookie, RANGE);
    expect(empty.rows).toEqual([]);
    expect(empty.totals).toMatchObject({ visits: 0, revenue: "0.00", spend: "0.00", roi: 0, roas: 0, cr: 0, epv: "0.000" });
  });
});

describe("GET /api/stats/report: our own traffic", () => {
  let member: TestUser;
  beforeAll(async () => {
    member = await makeUser("user", ["dashboard"]);
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: "mb2" });
  });

  it("gives the day's link clicks, exits and lander CTR", async () => {
    expect((await report(admin.cookie, RANGE)).traffic).toEqual({ linkClicks: 6, exitClicks: 1, landerCtr: (1 / 6) * 100 });
  });

  // One test per view, each a report call per grouping: one test of them all made about 120
  // calls and outlasted its time on a loaded machine.
  const views: { view: string; who: () => TestUser; filters: () => Record<string, string | number> }[] = [
    { view: "everything", who: () => admin, filters: () => ({}) },
    { view: "one campaign", who: () => admin, filters: () => ({ campaignId: ids.c2 }) },
    { view: "our offer", who: () => admin, filters: () => ({ offerId: ids.o1 }) },
    { view: "a media buyer", who: () => admin, filters: () => ({ mediaBuyer: "mb1" }) },
    { view: "a spark", who: () => admin, filters: () => ({ sparkId: "sp1" }) },
    { view: "No Spark", who: () => admin, filters: () => ({ sparkId: "none" }) },
    { view: "a member's own media buyers", who: () => member, filters: () => ({}) },
  ];
  it.each(views)("gives the campaign grouping's Link Clicks and exits in every grouping, under the same filters: $view", async ({ who, filters }) => {
    const { cookie } = who();
    const byCampaign = await report(cookie, { ...RANGE, ...filters() });
    const linkClicks = byCampaign.rows.reduce((s, x) => s + (x.linkClicks ?? 0), 0);
    const exitClicks = byCampaign.rows.reduce((s, x) => s + (x.exitClicks ?? 0), 0);
    for (const groupBy of STATS_GROUPINGS) {
      const r = await report(cookie, { ...RANGE, ...filters(), groupBy });
      expect([groupBy, r.traffic.linkClicks, r.traffic.exitClicks]).toEqual([groupBy, linkClicks, exitClicks]);
    }
  });

  it("narrows the traffic with the view: one campaign, mb1's (C1 only), the member's mb2 (C2 only)", async () => {
    expect((await report(admin.cookie, { ...RANGE, campaignId: ids.c2, groupBy: "spark" })).traffic.linkClicks).toBe(3);
    expect((await report(admin.cookie, { ...RANGE, mediaBuyer: "mb1", groupBy: "offer" })).traffic).toEqual({
      linkClicks: 3,
      exitClicks: 1,
      landerCtr: (1 / 3) * 100,
    });
    expect((await report(member.cookie, { ...RANGE, groupBy: "mediaBuyer" })).traffic.linkClicks).toBe(3);
  });

  it("counts a click the cron has not rolled up yet, in every grouping, on a day without CAKE data", async () => {
    const day = "2024-03-12";
    const campaignId = await seedCampaign({ name: "Fresh" });
    await seedClicks([{ campaignId, at: `${day}T09:00:00Z`, exitedAt: `${day}T09:00:05Z` }]);
    for (const groupBy of STATS_GROUPINGS) {
      const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy });
      expect([groupBy, r.traffic]).toEqual([groupBy, { linkClicks: 1, exitClicks: 1, landerCtr: 100 }]);
      expect(r.totals.visits).toBe(0);
    }
  });
});

describe("GET /api/stats/report: other groupings", () => {
  it("groups by lander through the campaign, with each lander's own clicks", async () => {
    const r = await report(admin.cookie, { ...RANGE, groupBy: "lander" });
    expect(r.rows.map((x) => [x.key, x.name, x.revenue, x.spend, x.linkClicks])).toEqual([
      [String(ids.l1), "Lander One", "10.00", "7.50", 3],
      ["direct", "Not attributed to a click", "5.00", "0.00", null],
      [String(ids.l2), "Lander Two", "0.00", "5.50", 3],
      ["unattributed-spend", "Unattributed spend", "0.00", "2.00", null],
    ]);
    expect(r.totals.linkClicks).toBe(6);
    expectAddsUp(r);
  });

  it("groups by a tracking field our clicks record (placement)", async () => {
    const r = await report(admin.cookie, { ...RANGE, groupBy: "placement" });
    expect(r.rows.map((x) => [x.key, x.name, x.visits, x.revenue, x.spend, x.spendMethod])).toEqual([
      ["feed", "feed", 1, "10.00", "10.00", "attributed"],
      ["direct", "Not attributed to a click", 2, "5.00", "0.00", "none"],
      ["pangle", "pangle", 1, "0.00", "3.00", "attributed"],
      ["unattributed-spend", "Unattributed spend", 0, "0.00", "2.00", "none"],
    ]);
    expectAddsUp(r);
  });

  it("groups by TikTok campaign id: each campaign's spend is its own, clicks or not", async () => {
    const r = await report(admin.cookie, { ...RANGE, groupBy: "tiktokCampaignId" });
    expect(r.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([
      ["t1", "10.00", "10.00"],
      ["direct", "5.00", "0.00"],
      ["t2", "0.00", "3.00"],
      ["t3", "0.00", "2.00"],
    ]);
    expect(r.spendNote).toBeNull();
    expectAddsUp(r);
    // Narrowed to C1, t1 keeps only C1's share of its clicks.
    const c1 = await report(admin.cookie, { ...RANGE, groupBy: "tiktokCampaignId", campaignId: ids.c1 });
    expect(c1.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([["t1", "10.00", "7.50"]]);
  });

  it.each([
    ["campaignName", "TT One", "TT Two"],
    ["tiktokAdGroupId", "ag1", "ag2"],
    ["adGroupName", "Group One", "Group Two"],
    ["tiktokCreativeId", "cr1", "cr2"],
    ["creativeName", "Ad One", "Ad Two"],
  ])("groups by %s", async (groupBy, first, second) => {
    const r = await report(admin.cookie, { ...RANGE, groupBy });
    expect(r.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([
      [first, "10.00", "10.00"],
      ["direct", "5.00", "0.00"],
      [second, "0.00", "3.00"],
      ["unattributed-spend", "0.00", "2.00"],
    ]);
  });

  it("groups by spark: spend through the CAKE clicks of our clicks, the unlinked rest split evenly", async () => {
    const r = await report(admin.cookie, { ...RANGE, groupBy: "spark" });
    // t1 -> sp1 ($10.00), t2 -> No Spark ($3.00); t3's $2.00 has no CAKE click: $1.00 to each group.
    expect(r.rows.map((x) => [x.key, x.name, x.revenue, x.spend, x.spendMethod])).toEqual([
      ["sp1", "sp1", "10.00", "11.00", "even"],
      ["none", "No Spark", "5.00", "4.00", "even"],
    ]);
    expect(r.spendNote).toBe(
      "$2.00 of the spend is split evenly across the 2 groups: none of its TikTok campaigns' clicks reached CAKE, so nothing links it to a spark.",
    );
    expectAddsUp(r);
  });

  it("groups by offer (the network's) and by media buyer", async () => {
    const offers = await report(admin.cookie, { ...RANGE, groupBy: "offer" });
    expect(offers.rows.map((x) => [x.key, x.name, x.visits, x.revenue, x.spend])).toEqual([
      ["501", "Offer A", 2, "10.00", "14.00"], // t1 + t2 through offer 501's CAKE clicks, + $1.00 even
      ["502", "Offer B", 2, "5.00", "1.00"],
    ]);
    expectAddsUp(offers);
    const buyers = await report(admin.cookie, { ...RANGE, groupBy: "mediaBuyer" });
    expect(buyers.rows.map((x) => [x.key, x.revenue, x.spend])).toEqual([
      ["mb1", "15.00", "11.00"],
      ["mb2", "0.00", "4.00"],
    ]);
    expectAddsUp(buyers);
  });
});

describe("GET /api/stats/report: maths and rounding", () => {
  it("rounds shared-out spend to cents that add up, and EPV/CPV to three places", async () => {
    const day = "2024-04-02";
    const camps = [await seedCampaign({ name: "R1" }), await seedCampaign({ name: "R2" }), await seedCampaign({ name: "R3" })];
    const clickIds = await seedClicks(camps.map((campaignId) => ({ campaignId, at: `${day}T12:00:00Z`, tt: "round-t" })));
    await seedSpend([{ date: day, tt: "round-t", cents: 100 }]);
    await seedCake([
      { date: day, offerId: 9, subid2: clickIds[0], clicks: 3, conversions: 1, revenueCents: 1000 },
      { date: day, offerId: 9, subid2: clickIds[1], clicks: 3, revenueCents: 2 },
    ]);
    await rollUpClicks(db(), { now: Date.parse("2024-04-03T00:00:00Z") });
    const r = await report(admin.cookie, { startDate: day, endDate: day });
    const spends = r.rows.map((x) => x.spend).sort();
    expect(spends).toEqual(["0.33", "0.33", "0.34"]);
    expect(r.totals.spend).toBe("1.00");
    const r1 = rowByKey(r, String(camps[0]));
    expect(r1.epv).toBe("3.333"); // $10.00 / 3
    expect(r1.cr).toBeCloseTo(100 / 3, 10);
    const r2 = rowByKey(r, String(camps[1]));
    expect(r2.epv).toBe("0.007"); // $0.02 / 3 = 0.00667
    expect(r2.cpv).toBe(r2.spend === "0.34" ? "0.113" : "0.110");
    expectAddsUp(r);
  });

  it("zero-fills every day of the range and dates spend by TikTok's day", async () => {
    await seedSpend([{ date: "2024-04-12", tt: "fill-t", cents: 1234 }]);
    const r = await report(admin.cookie, { startDate: "2024-04-10", endDate: "2024-04-13" });
    expect(r.daily).toEqual([
      { date: "2024-04-10", revenue: "0.00", spend: "0.00", profit: "0.00" },
      { date: "2024-04-11", revenue: "0.00", spend: "0.00", profit: "0.00" },
      { date: "2024-04-12", revenue: "0.00", spend: "12.34", profit: "-12.34" },
      { date: "2024-04-13", revenue: "0.00", spend: "0.00", profit: "0.00" },
    ]);
    expect(r.rows.map((x) => [x.key, x.spend])).toEqual([["unattributed-spend", "12.34"]]);
  });

  it("shares each TikTok campaign's spend by its clicks over the whole range, days without clicks included", async () => {
    const a = await seedCampaign({ name: "Share A" });
    const b = await seedCampaign({ name: "Share B" });
    await seedClicks([
      { campaignId: a, at: "2024-04-20T10:00:00Z", tt: "range-t" },
      { campaignId: b, at: "2024-04-20T11:00:00Z", tt: "range-t" },
      { campaignId: b, at: "2024-04-20T12:00:00Z", tt: "range-t" },
      { campaignId: a, at: "2024-04-21T10:00:00Z", tt: "range-t" },
    ]);
    // 2 clicks each over the range: half of the $13.00 each, day 22 (no click) included.
    await seedSpend([
      { date: "2024-04-21", tt: "range-t", cents: 500 },
      { date: "2024-04-22", tt: "range-t", cents: 800 },
    ]);
    await rollUpClicks(db(), { now: Date.parse("2024-04-23T00:00:00Z") });
    const range = { startDate: "2024-04-20", endDate: "2024-04-22" };
    const r = await report(admin.cookie, range);
    expect(r.rows.map((x) => [x.key, x.spend]).sort()).toEqual([
      [String(a), "6.50"],
      [String(b), "6.50"],
    ]);
    expect(r.spendNote).toBeNull();
    expectAddsUp(r);
    // Narrowed to A, each day keeps A's share of that day's spend.
    const onlyA = await report(admin.cookie, { ...range, campaignId: a });
    expect(onlyA.daily.map((d) => [d.date, d.spend])).toEqual([
      ["2024-04-20", "0.00"],
      ["2024-04-21", "2.50"],
      ["2024-04-22", "4.00"],
    ]);
    expectAddsUp(onlyA);
    // One day alone: that day's clicks decide (day 21's only click is A's).
    const day21 = await report(admin.cookie, { startDate: "2024-04-21", endDate: "2024-04-21" });
    expect(day21.rows.map((x) => [x.key, x.spend])).toEqual([[String(a), "5.00"]]);
  });
});

describe("GET /api/stats/report: input", () => {
  it.each([
    ["startDate=2024-01-01", "endDate"],
    ["startDate=2024-02-30&endDate=2024-03-01", "startDate"],
    ["startDate=2024-03-02&endDate=2024-03-01", "startDate must not be after endDate"],
    ["startDate=2024-01-01&endDate=2025-01-01", "at most 366 days"],
    ["startDate=2024-01-01&endDate=2024-01-02&groupBy=city", "groupBy must be one of"],
    ["startDate=2024-01-01&endDate=2024-01-02&offerId=abc", "offerId must be a whole number"],
    ["startDate=2024-01-01&endDate=2024-01-02&campaignId=-3", "campaignId must be a whole number"],
  ])("refuses %s with 400", async (query, message) => {
    const res = await call(`/api/stats/report?${query}`, { cookie: admin.cookie });
    expect(res.status).toBe(400);
    const body = await res.json<ApiErrorBody>();
    expect([body.error, ...(body.details ?? [])].join(" | ")).toContain(message);
  });

  it("takes a 366-day range and empty filters as no filter", async () => {
    const r = await report(admin.cookie, { startDate: "2024-01-01", endDate: "2024-12-31", offerId: "", sparkId: "", groupBy: "offer" });
    expect(r.daily).toHaveLength(366);
    expectAddsUp(r);
  });
});

describe("GET /api/stats/filters", () => {
  it("lists the media buyers with stats in the days to an admin, and a member's own to a member", async () => {
    const res = await call(`/api/stats/filters?startDate=${DAY}&endDate=${DAY}`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ mediaBuyers: ["mb1", "mb2"] });
    const member = await makeUser("user", ["dashboard"]);
    await db()
      .insert(userSubid1Assignments)
      .values([
        { userId: member.id, subid1: "mb9" },
        { userId: member.id, subid1: "mb2" },
      ]);
    const mine = await call(`/api/stats/filters?startDate=${DAY}&endDate=${DAY}`, { cookie: member.cookie });
    expect(await mine.json()).toEqual({ mediaBuyers: ["mb2", "mb9"] });
    const bad = await call(`/api/stats/filters?startDate=${DAY}`, { cookie: admin.cookie });
    expect(bad.status).toBe(400);
  });
});

describe("GET /api/cake/stats", () => {
  it("answers CAKE's figures per day, offer, media buyer and spark, summed over clicks", async () => {
    const day = "2024-05-20";
    await seedCake([
      { date: day, offerId: 7, offerName: "Seven", subid1: "mbx", subid2: "k-a", subid3: "spx", clicks: 1, conversions: 1, revenueCents: 250 },
      { date: day, offerId: 7, offerName: "Seven", subid1: "mbx", subid2: "k-b", subid3: "spx", clicks: 1, conversions: 1, revenueCents: 125 },
      { date: day, offerId: 7, offerName: "Seven", subid1: "mby", subid2: "k-c", clicks: 4 },
    ]);
    const res = await call(`/api/cake/stats?startDate=${day}&endDate=${day}`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { date: day, offerId: 7, offerName: "Seven", subid1: "mbx", subid3: "spx", clicks: 2, conversions: 2, revenue: "3.75" },
      { date: day, offerId: 7, offerName: "Seven", subid1: "mby", subid3: "", clicks: 4, conversions: 0, revenue: "0.00" },
    ]);
    const member = await makeUser("user", ["dashboard"]);
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: "mby" });
    const mine = await bodyOf(await client(member).cake.stats.$get({ query: { startDate: day, endDate: day } }), 200);
    expect(mine.map((r) => r.subid1)).toEqual(["mby"]);
  });
});
