import { beforeAll, describe, expect, it } from "vitest";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import type { StatsReport } from "../src/schemas/stats";
import { makeAdmin, type TestUser } from "./helpers";
import { cents, report, rowByKey, seedCake, seedCampaign, seedClicks, seedSpend } from "./stats-helpers";

/**
 * One day (2024-04-02, UTC):
 * - campaign C1 got four clicks from TikTok campaign a1: two from the US on iPhones in TikTok's
 *   in-app browser (one exited), one from Germany on Android Chrome, and TikTok's preloader from
 *   the US (a bot, no parsed agent); C2 got one click from a2 with nothing known about it;
 * - CAKE: the first US click converted for $20.00, the German one for $5.00, and a sub2 we
 *   never issued for $3.00 (Direct);
 * - spend: a1 $8.00, a2 $2.00.
 */
const DAY = "2024-04-02";
let admin: TestUser;
let c1: number;
let c2: number;

const tiktok = { deviceType: "Mobile", os: "iOS", browser: "TikTok" };
const seed = async () => {
  c1 = await seedCampaign({ name: "Audience One" });
  c2 = await seedCampaign({ name: "Audience Two" });
  const [us1, , de] = await seedClicks([
    { campaignId: c1, at: `${DAY}T01:00:00Z`, exitedAt: `${DAY}T01:00:30Z`, tt: "a1", country: "US", ...tiktok },
    { campaignId: c1, at: `${DAY}T02:00:00Z`, tt: "a1", country: "US", ...tiktok },
    { campaignId: c1, at: `${DAY}T03:00:00Z`, tt: "a1", country: "DE", deviceType: "Mobile", os: "Android", browser: "Chrome" },
    { campaignId: c1, at: `${DAY}T04:00:00Z`, tt: "a1", country: "US", bot: true },
    { campaignId: c2, at: `${DAY}T05:00:00Z`, tt: "a2" },
  ]);
  await seedCake([
    { date: DAY, offerId: 7, subid1: "mb", subid2: us1, clicks: 1, conversions: 1, revenueCents: 2000 },
    { date: DAY, offerId: 7, subid1: "mb", subid2: de, clicks: 1, conversions: 1, revenueCents: 500 },
    { date: DAY, offerId: 7, subid1: "mb", subid2: "not-ours", clicks: 1, conversions: 1, revenueCents: 300 },
  ]);
  await seedSpend([
    { date: DAY, tt: "a1", cents: 800 },
    { date: DAY, tt: "a2", cents: 200 },
  ]);
};

const get = (groupBy: string, extra: Record<string, string> = {}) => report(admin.cookie, { startDate: DAY, endDate: DAY, groupBy, ...extra });
const money = (r: StatsReport) => Object.fromEntries(r.rows.map((x) => [x.key, [x.name, x.revenue, x.spend]]));

beforeAll(async () => {
  admin = await makeAdmin();
  await seed();
});

describe("the audience groupings (country, device, OS, browser)", () => {
  it("group revenue by the country of the click it came from, and share spend by people's clicks, not bots'", async () => {
    const r = await get("country");
    expect(money(r)).toEqual({
      US: ["United States (US)", "20.00", "5.33"],
      DE: ["Germany (DE)", "5.00", "2.67"],
      direct: ["Not attributed to a click", "3.00", "0.00"],
      "": ["Unknown country", "0.00", "2.00"],
    });
    expect(cents([r.totals.spend])).toBe(1000);
    // Our own traffic per country: the US has two people's clicks and the preloader's.
    expect(rowByKey(r, "US")).toMatchObject({ linkClicks: 2, exitClicks: 1, landerCtr: 50, botShare: (1 / 3) * 100 });
    expect(rowByKey(r, "direct").linkClicks).toBeNull();
  });

  it("count bot clicks in the shares of spend when asked to", async () => {
    const r = await get("country", { includeBots: "true" });
    expect(rowByKey(r, "US").spend).toBe("6.00");
    expect(rowByKey(r, "DE").spend).toBe("2.00");
  });

  it("name devices, systems and browsers as parsed, and 'Unknown browser' where the agent said nothing", async () => {
    expect(money(await get("browser"))).toEqual({
      TikTok: ["TikTok", "20.00", "5.33"],
      Chrome: ["Chrome", "5.00", "2.67"],
      direct: ["Not attributed to a click", "3.00", "0.00"],
      "": ["Unknown browser", "0.00", "2.00"],
    });
    expect(Object.keys(money(await get("device"))).sort()).toEqual(["", "Mobile", "direct"]);
    expect(Object.keys(money(await get("os"))).sort()).toEqual(["", "Android", "direct", "iOS"]);
  });

  it("answer the same from raw clicks and from the rollup", async () => {
    const before = await Promise.all(["country", "device", "os", "browser", "campaign"].map((g) => get(g)));
    await rollUpClicks((await import("./helpers")).db(), { now: Date.parse("2024-04-03T00:00:00Z") });
    const after = await Promise.all(["country", "device", "os", "browser", "campaign"].map((g) => get(g)));
    const strip = (r: StatsReport) => ({ rows: r.rows, totals: r.totals, daily: r.daily });
    expect(after.map(strip)).toEqual(before.map(strip));
  });
});

describe("bot clicks in the campaign grouping", () => {
  it("leave Link Clicks and Lander CTR, and show as the bot share", async () => {
    const r = await get("campaign");
    expect(rowByKey(r, String(c1))).toMatchObject({ linkClicks: 3, exitClicks: 1, landerCtr: (1 / 3) * 100, botShare: 25, spend: "8.00" });
    expect(rowByKey(r, String(c2))).toMatchObject({ linkClicks: 1, botShare: 0 });
    expect(r.totals).toMatchObject({ linkClicks: 4, botShare: 20 });
  });

  it("count in Link Clicks with 'Include bot clicks', the share staying the same", async () => {
    const r = await get("campaign", { includeBots: "true" });
    expect(rowByKey(r, String(c1))).toMatchObject({ linkClicks: 4, exitClicks: 1, landerCtr: 25, botShare: 25 });
    expect(r.totals).toMatchObject({ linkClicks: 5, botShare: 20 });
  });

  it("refuses an includeBots that is not true or false", async () => {
    const { call } = await import("./helpers");
    const res = await call(`/api/stats/report?startDate=${DAY}&endDate=${DAY}&includeBots=maybe`, { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "includeBots must be true or false" });
  });
});
