/**
 * Revenue of clicks stored in shard-day objects
 * (docs/click-storage.md "Exits, postbacks and conversions sent to TikTok"): the click id travels from the tracking link through the lander and
 * the offer link into CAKE's sub2, and the postback and the pull credit the conversion to the
 * click's campaign and ad, not to "Direct", and hand its ttclid on to TikTok.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { reportTimeZone } from "../src/db/queries/settings";
import { attributedClicks, cakeAttributedDaily, clicks, clickShardDays, tiktokEventSends } from "../src/db/schema";
import { dayIn } from "../src/lib/calendar-days";
import { runSync } from "../src/sync/run-sync";
import { purgeAttributedClicks } from "../src/tracking/attributed-clicks";
import { checkClickId, clickDayOf, newClickId } from "../src/tracking/click-id";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { db, makeAdmin, type TestUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv, createFakes, fakeHttp, visitLink } from "./performance-helpers";
import { report, rowByKey } from "./stats-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const HOST = "https://trk.brand.test";
const TTCLID = "E.C.P.shard-test-ttclid-0123456789";
let admin: TestUser;

/**
 * A visitor through the campaign's tracking link and its lander's exit: CAKE's sub2, as the offer
 * link carries it to the network.
 */
async function sub2FromOfferLink(campaignId: number, ip: string) {
  const landed = await visitLink(`${HOST}/r/${campaignId}?cid=tt-77&ad=ag-5&plc=feed&ttclid=${TTCLID}`, ip);
  const clickId = new URL(landed.headers.get("location")!).searchParams.get("clickId")!;
  const exit = await visitLink(`${HOST}/click?clickId=${clickId}&cid=${campaignId}`, ip);
  const sub2 = new URL(exit.headers.get("location")!).searchParams.get("s2")!;
  expect(sub2).toBe(clickId);
  expect((await checkClickId(env.SESSION_SECRET, sub2))?.kind).toBe("sharded");
  return sub2;
}

const attributed = (campaignId: number) =>
  db()
    .select({
      tiktokCampaignId: cakeAttributedDaily.tiktokCampaignId,
      tiktokAdGroupId: cakeAttributedDaily.tiktokAdGroupId,
      placement: cakeAttributedDaily.placement,
      clicks: cakeAttributedDaily.clicks,
      conversions: cakeAttributedDaily.conversions,
      revenueCents: cakeAttributedDaily.revenueCents,
    })
    .from(cakeAttributedDaily)
    .where(eq(cakeAttributedDaily.campaignId, campaignId));

const directCents = async () =>
  (await db().get<{ n: number | null }>(sql`select sum(revenue_cents) as n from cake_attributed_daily where campaign_id = 0`))?.n ?? 0;

beforeAll(async () => {
  admin = await makeAdmin();
  await fixShardDays(db(), 4, Date.now());
});

describe("conversions of clicks in shard-day objects", () => {
  it("are credited by the postback to the click's campaign and ad, and sent to TikTok with its ttclid", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard revenue");
    const sub2 = await sub2FromOfferLink(campaignId, "203.0.113.91");
    expect(await db().select().from(clicks).where(eq(clicks.clickId, sub2))).toHaveLength(0);
    const direct = await directCents();

    const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: "L-shard-1", oid: "11", price: "12.50", s1: "mb-shard", s2: sub2, s3: "" });
    const res = await callWith(configuredEnv(), `/postback/cake?${q}`);
    expect(await res.json()).toEqual({ ok: true, result: "counted" });

    expect(await attributed(campaignId)).toEqual([
      { tiktokCampaignId: "tt-77", tiktokAdGroupId: "ag-5", placement: "feed", clicks: 0, conversions: 1, revenueCents: 1250 },
    ]);
    expect(await directCents()).toBe(direct);
    const [send] = await db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, "L-shard-1"));
    expect(send).toMatchObject({ clickId: sub2, ttclid: TTCLID, ipAddress: "203.0.113.91" });

    const day = dayIn(Date.now(), await reportTimeZone(db()));
    const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" });
    expect(rowByKey(r, String(campaignId))).toMatchObject({ revenue: "12.50", conversions: 1 });
  });

  it("are credited by the pull, with CAKE's clicks, and stay so when the day is pulled again", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard pull");
    const sub2 = await sub2FromOfferLink(campaignId, "203.0.113.92");
    const fakes = createFakes();
    const today = dayIn(Date.now(), "UTC");
    fakes.cake.state.conversions.push({
      conversion_id: "C-shard-pull",
      conversion_date: `${today}T08:00:00`,
      offer_id: 11,
      offer_name: "Sweeps",
      subid_1: "mb-pull",
      subid_2: sub2,
      subid_3: "",
      price: "4.00",
      disposition: "Approved",
    });
    fakes.cake.state.clicks.push({ click_id: 1, click_date: `${today}T07:59:00`, offer_id: 11, offer_name: "Sweeps", subid_1: "mb-pull", subid_2: sub2 });
    const pull = () => runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: Date.now() }, { source: "cake", trigger: "manual", days: 1 });
    expect((await pull()).status).toBe("ok");
    const expected = [{ tiktokCampaignId: "tt-77", tiktokAdGroupId: "ag-5", placement: "feed", clicks: 1, conversions: 1, revenueCents: 400 }];
    expect(await attributed(campaignId)).toEqual(expected);
    expect((await pull()).status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(expected);
    expect(await db().select().from(attributedClicks).where(eq(attributedClicks.clickId, sub2))).toHaveLength(1);
  });

  it("leave a sub2 naming no kept shard-day, or failing its check, to Direct, copying nothing", { timeout: 60_000 }, async () => {
    const today = clickDayOf(Date.now());
    const beyond = await newClickId(env.SESSION_SECRET, { day: today, shard: 9 });
    const forged = (await newClickId(env.SESSION_SECRET, { day: today, shard: 0 })).replace(/.$/, (d) => (d === "0" ? "1" : "0"));
    const before = await db().select().from(attributedClicks);
    const direct = await directCents();
    for (const [i, s2] of [beyond, forged].entries()) {
      const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: `L-nowhere-${i}`, oid: "11", price: "1.00", s1: "mb", s2, s3: "" });
      expect(await (await callWith(configuredEnv(), `/postback/cake?${q}`)).json()).toEqual({ ok: true, result: "counted" });
    }
    expect(await directCents()).toBe(direct + 200);
    expect(await db().select().from(attributedClicks)).toEqual(before);
  });

  it("are forgotten in D1 once their day is past the kept days", { timeout: 60_000 }, async () => {
    const held = (await db().select().from(attributedClicks)).length;
    expect(held).toBeGreaterThan(0);
    expect(await purgeAttributedClicks(db(), 90, Date.now())).toBe(0);
    expect(await purgeAttributedClicks(db(), 90, Date.now() + 92 * 24 * 3_600_000)).toBe(held);
    await db().delete(clickShardDays);
    forgetShardCounts();
  });
});
