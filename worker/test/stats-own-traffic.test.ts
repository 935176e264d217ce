/**
 * Our own traffic (link clicks, exits, lander CTR, bot share) on every grouping's rows, and a row
 * for every group our traffic reached, revenue and spend or not. Each test seeds its own day.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { userSubid1Assignments } from "../src/db/schema";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { NO_CAKE_KEY, type StatsReport } from "../src/schemas/stats";
import { call, db, makeAdmin, makeUser, type TestUser } from "./helpers";
import { report, rowByKey, seedCake, seedCampaign, seedClicks, seedLander, seedSpend } from "./stats-helpers";

let admin: TestUser;
beforeAll(async () => {
  admin = await makeAdmin();
});

const own = (r: StatsReport) => Object.fromEntries(r.rows.map((x) => [x.key, [x.name, x.linkClicks, x.exitClicks]]));
const rowsSum = (r: StatsReport) => r.rows.reduce((s, x) => s + (x.linkClicks ?? 0), 0);

describe("our own traffic in the groupings our clicks record", () => {
  it(
    "shows desktop traffic without conversions on Device, and each grouping's groups with their clicks, exits and bot share",
    { timeout: 60_000 },
    async () => {
      // 2024-06-05: campaign M got two people's clicks from iPhones in the US (one went on to the
      // offer and converted) and TikTok's preloader; campaign D got four desktop clicks from Germany
      // (one went on), which never reached CAKE. A CAKE row under a sub2 we never issued: $4.00.
      // Spend: only M's TikTok campaign, $6.00.
      const day = "2024-06-05";
      const lm = await seedLander("Lander Mobile");
      const ld = await seedLander("Lander Desktop");
      const m = await seedCampaign({ name: "Mobile buys", landerId: lm });
      const d = await seedCampaign({ name: "Desktop test", landerId: ld });
      const phone = { tt: "own-m", placement: "feed", country: "US", deviceType: "Mobile", os: "iOS", browser: "TikTok" };
      const desktop = { tt: "own-d", placement: "search", country: "DE", deviceType: "Desktop", os: "Windows", browser: "Chrome" };
      const [k1] = await seedClicks([
        { campaignId: m, at: `${day}T01:00:00Z`, exitedAt: `${day}T01:00:20Z`, ...phone },
        { campaignId: m, at: `${day}T02:00:00Z`, ...phone },
        { campaignId: m, at: `${day}T02:30:00Z`, tt: "own-m", placement: "feed", country: "US", bot: true },
        { campaignId: d, at: `${day}T03:00:00Z`, exitedAt: `${day}T03:00:10Z`, ...desktop },
        { campaignId: d, at: `${day}T04:00:00Z`, ...desktop },
        { campaignId: d, at: `${day}T05:00:00Z`, ...desktop },
        { campaignId: d, at: `${day}T06:00:00Z`, ...desktop },
      ]);
      await seedCake([
        { date: day, offerId: 70, subid2: k1, clicks: 1, conversions: 1, revenueCents: 1200 },
        { date: day, offerId: 70, subid2: "never-ours", clicks: 1, conversions: 1, revenueCents: 400 },
      ]);
      await seedSpend([{ date: day, tt: "own-m", cents: 600 }]);
      const get = (groupBy: string, extra: Record<string, string> = {}) => report(admin.cookie, { startDate: day, endDate: day, groupBy, ...extra });

      const check = async () => {
        const devices = await get("device");
        expect(rowByKey(devices, "Desktop")).toMatchObject({
          name: "Desktop",
          visits: 0,
          conversions: 0,
          revenue: "0.00",
          spend: "0.00",
          spendMethod: "none",
          linkClicks: 4,
          exitClicks: 1,
          landerCtr: 25,
          botShare: 0,
        });
        expect(rowByKey(devices, "Mobile")).toMatchObject({ visits: 1, revenue: "12.00", spend: "6.00", linkClicks: 2, exitClicks: 1, landerCtr: 50 });
        // The preloader's user agent names no device: its row has only bot clicks.
        expect(rowByKey(devices, "")).toMatchObject({ name: "Unknown device", linkClicks: 0, exitClicks: 0, botShare: 100 });
        expect(rowByKey(devices, "direct")).toMatchObject({ name: "Not attributed to a click", revenue: "4.00", linkClicks: null, botShare: null });
        expect(devices.totals).toMatchObject({ linkClicks: 6, exitClicks: 2, landerCtr: (2 / 6) * 100, botShare: (1 / 7) * 100 });
        expect(devices.traffic).toEqual({ linkClicks: 6, exitClicks: 2, landerCtr: (2 / 6) * 100 });

        // Every grouping our clicks record has D's group, and its rows add up to our traffic.
        const desktopGroup: [string, string, string][] = [
          ["campaign", String(d), "Desktop test"],
          ["lander", String(ld), "Lander Desktop"],
          ["country", "DE", "Germany (DE)"],
          ["os", "Windows", "Windows"],
          ["browser", "Chrome", "Chrome"],
          ["placement", "search", "search"],
          ["tiktokCampaignId", "own-d", "own-d"],
        ];
        for (const [groupBy, key, name] of desktopGroup) {
          const r = await get(groupBy);
          expect([groupBy, own(r)[key]]).toEqual([groupBy, [name, 4, 1]]);
          expect([groupBy, rowsSum(r), r.totals.linkClicks]).toEqual([groupBy, 6, 6]);
        }
        const countries = await get("country");
        expect(own(countries)).toEqual({ US: ["United States (US)", 2, 1], DE: ["Germany (DE)", 4, 1], direct: ["Not attributed to a click", null, null] });
        expect(rowByKey(countries, "US").botShare).toBeCloseTo((1 / 3) * 100, 10);

        // With bot clicks counted, the preloader is a link click of its device's row.
        const withBots = await get("device", { includeBots: "true" });
        expect(rowByKey(withBots, "")).toMatchObject({ linkClicks: 1, botShare: 100 });
        expect(withBots.totals).toMatchObject({ linkClicks: 7, botShare: (1 / 7) * 100 });
        return Promise.all(["device", "country", "lander", "placement"].map((g) => get(g)));
      };

      // From raw clicks (the cron has not run), then from the rollup: the same answer.
      const before = await check();
      await rollUpClicks(db(), { now: Date.parse("2024-06-06T00:00:00Z") });
      const after = await check();
      expect(after.map((r) => r.rows)).toEqual(before.map((r) => r.rows));
    },
  );
});

describe("our own traffic in the groupings only CAKE's rows know (offer, media buyer, spark)", () => {
  const day = "2024-06-07";
  let p: number;
  let q: number;

  // 2024-06-07, all from TikTok campaign e1 except R's click (e2):
  // - P (2 clicks): p1 reached offer 81 for ana with spark spA and converted ($10.00);
  // - Q (3 clicks): q1 reached offer 81 for bo, q2 offer 82 for bo and converted ($3.00);
  // - R (1 click): its visitor never reached CAKE;
  // - CAKE also has a sub2 we never issued: offer 82 for ana, $2.00. Spend: e1 $5.00, e2 $1.00.
  beforeAll(async () => {
    p = await seedCampaign({ name: "Placed P" });
    q = await seedCampaign({ name: "Placed Q" });
    const r = await seedCampaign({ name: "Unplaced R" });
    const [p1, , q1, q2] = await seedClicks([
      { campaignId: p, at: `${day}T01:00:00Z`, exitedAt: `${day}T01:00:09Z`, tt: "e1" },
      { campaignId: p, at: `${day}T02:00:00Z`, tt: "e1" },
      { campaignId: q, at: `${day}T03:00:00Z`, exitedAt: `${day}T03:00:09Z`, tt: "e1" },
      { campaignId: q, at: `${day}T04:00:00Z`, exitedAt: `${day}T04:00:09Z`, tt: "e1" },
      { campaignId: q, at: `${day}T05:00:00Z`, tt: "e1" },
      { campaignId: r, at: `${day}T06:00:00Z`, tt: "e2" },
    ]);
    await seedCake([
      { date: day, offerId: 81, offerName: "Offer 81", subid1: "ana", subid2: p1, subid3: "spA", clicks: 1, conversions: 1, revenueCents: 1000 },
      { date: day, offerId: 81, offerName: "Offer 81", subid1: "bo", subid2: q1, clicks: 1 },
      { date: day, offerId: 82, offerName: "Offer 82", subid1: "bo", subid2: q2, clicks: 1, conversions: 1, revenueCents: 300 },
      { date: day, offerId: 82, offerName: "Offer 82", subid1: "ana", subid2: "never-ours", clicks: 1, conversions: 1, revenueCents: 200 },
    ]);
    await seedSpend([
      { date: day, tt: "e1", cents: 500 },
      { date: day, tt: "e2", cents: 100 },
    ]);
    await rollUpClicks(db(), { now: Date.parse("2024-06-08T00:00:00Z") });
  });

  const get = (cookie: string, groupBy: string, extra: Record<string, string> = {}) => report(cookie, { startDate: day, endDate: day, groupBy, ...extra });

  it("counts each campaign's clicks in the groups CAKE places it in, and the unplaced ones in a row of their own", { timeout: 60_000 }, async () => {
    const offers = await get(admin.cookie, "offer");
    // Q reached both offers: its clicks count in both rows; the totals count each click once.
    expect(own(offers)).toEqual({ "81": ["Offer 81", 5, 3], "82": ["Offer 82", 3, 2], [NO_CAKE_KEY]: ["No visit reached CAKE", 1, 0] });
    expect(offers.totals).toMatchObject({ linkClicks: 6, exitClicks: 3 });
    expect(offers.traffic.linkClicks).toBe(6);
    // The unplaced campaigns' row is no offer: the spend nothing links is split over the offers only.
    expect(rowByKey(offers, NO_CAKE_KEY)).toMatchObject({ visits: 0, revenue: "0.00", spend: "0.00", spendMethod: "none" });
    expect(offers.totals.spend).toBe("6.00");

    expect(own(await get(admin.cookie, "mediaBuyer"))).toEqual({ ana: ["ana", 2, 1], bo: ["bo", 3, 2], [NO_CAKE_KEY]: ["No visit reached CAKE", 1, 0] });
    expect(own(await get(admin.cookie, "spark"))).toEqual({
      spA: ["spA", 2, 1],
      none: ["No Spark", 3, 2],
      [NO_CAKE_KEY]: ["No visit reached CAKE", 1, 0],
    });
  });

  it("keeps to the campaigns CAKE places in a narrowed view: a media buyer, a member's buyers", { timeout: 60_000 }, async () => {
    const bo = await get(admin.cookie, "offer", { mediaBuyer: "bo" });
    expect(own(bo)).toEqual({ "81": ["Offer 81", 3, 2], "82": ["Offer 82", 3, 2] });
    expect(bo.traffic.linkClicks).toBe(3);

    const member = await makeUser("user", ["dashboard"]);
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: "ana" });
    const mine = await get(member.cookie, "offer");
    // ana's offer 82 row is the CAKE row no click of ours came from: no clicks of hers there.
    expect(own(mine)).toEqual({ "81": ["Offer 81", 2, 1], "82": ["Offer 82", 0, 0] });
    expect(mine.totals.linkClicks).toBe(2);
    const devices = await get(member.cookie, "device");
    expect(devices.traffic.linkClicks).toBe(2);
    expect(rowsSum(devices)).toBe(2);
  });
});

describe("money per CAKE click on the Offers screen and in Stats", () => {
  it("gives an offer's EPC on Offers as the Offers tab's EPV: revenue per CAKE click, three decimals", { timeout: 30_000 }, async () => {
    const day = "2024-06-12";
    await seedCake([
      { date: day, offerId: 91, offerName: "Thirds", subid2: "epc-a", clicks: 3, conversions: 1, revenueCents: 1000 },
      { date: day, offerId: 92, offerName: "Tiny", subid2: "epc-b", clicks: 3, revenueCents: 2 },
    ]);
    const res = await call(`/api/cake/offers?startDate=${day}&endDate=${day}`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    const offers = await res.json<{ offerId: number; clicks: number; epc: string }[]>();
    expect(offers.map((o) => [o.offerId, o.clicks, o.epc])).toEqual([
      [91, 3, "3.333"],
      [92, 3, "0.007"], // $0.02 / 3 = 0.00667
    ]);
    const stats = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "offer" });
    expect(offers.map((o) => o.epc)).toEqual(["91", "92"].map((key) => rowByKey(stats, key).epv));
  });
});
