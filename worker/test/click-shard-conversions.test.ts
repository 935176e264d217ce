/**
 * Revenue of clicks stored in shard-day objects
 * (docs/click-storage.md "Exits, postbacks and conversions sent to TikTok"): the click id travels from the tracking link through the lander and
 * the offer link into CAKE's sub2, and the postback and the pull credit the conversion to the
 * click's campaign and ad, not to "Direct", and hand its ttclid on to TikTok.
 */
import { env } from "cloudflare:workers";
import { eq, lte, sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { CakeClick } from "../src/integrations/cake";
import { reportTimeZone } from "../src/db/queries/settings";
import { purgeArchivedCakeStats } from "../src/db/queries/cake";
import { attributedClicks, cakeAttributedDaily, cakeClickShards, cakeStats, clicks, clickShardDays, tiktokEventSends } from "../src/db/schema";
import { dayIn } from "../src/lib/calendar-days";
import { runSync } from "../src/sync/run-sync";
import { purgeAttributedClicks } from "../src/tracking/attributed-clicks";
import { checkClickId, clickDayOf, newClickId, placeOfClickId, shardName } from "../src/tracking/click-id";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { createTikTokEventsFake } from "./fakes/tiktok-events-fake";
import { sweepTikTokEventsJob } from "../src/jobs/tiktok-events";
import { configure, sendingEnv, serveFake } from "./tiktok-events-helpers";
import { call, db, makeAdmin, type TestUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv, createFakes, fakeHttp, visitLink } from "./performance-helpers";
import { report, rowByKey } from "./stats-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const HOST = "https://trk.brand.test";
const TTCLID = "E.C.P.shard-test-ttclid-0123456789";
/** The user agent visitLink sends. */
const VISITOR_AGENT = "Mozilla/5.0 (iPhone) Test";
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

/** An approved conversion as CAKE's report gives it. */
const approved = (
  conversion_id: string,
  conversion_date: string,
  row: { offer_id: number; offer_name: string; subid_1: string; subid_2: string },
  price: string,
) => ({
  conversion_id,
  conversion_date,
  ...row,
  subid_3: "",
  price,
  disposition: "Approved",
});

const directCents = async () =>
  (await db().get<{ n: number | null }>(sql`select sum(revenue_cents) as n from cake_attributed_daily where campaign_id = 0`))?.n ?? 0;

afterEach(() => vi.restoreAllMocks());

beforeAll(async () => {
  admin = await makeAdmin();
  await fixShardDays(db(), 4, Date.now());
});

describe("conversions of clicks in shard-day objects", () => {
  it(
    "are credited by the postback to the click's campaign and ad, and sent to TikTok with the visitor's values from the click's object, which D1 keeps none of",
    { timeout: 60_000 },
    async () => {
      await configure();
      const campaignId = await campaignWithOffer("Shard revenue");
      const sub2 = await sub2FromOfferLink(campaignId, "203.0.113.91");
      expect(await db().select().from(clicks).where(eq(clicks.clickId, sub2))).toHaveLength(0);
      const direct = await directCents();

      const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: "L-shard-1", oid: "11", price: "12.50", s1: "mb-shard", s2: sub2, s3: "" });
      const fake = serveFake(createTikTokEventsFake());
      const sending = sendingEnv();
      const res = await callWith(sending, `/postback/cake?${q}`);
      expect(await res.json()).toEqual({ ok: true, result: "counted" });

      expect(await attributed(campaignId)).toEqual([
        { tiktokCampaignId: "tt-77", tiktokAdGroupId: "ag-5", placement: "feed", clicks: 0, conversions: 1, revenueCents: 1250 },
      ]);
      expect(await directCents()).toBe(direct);
      // The copy the attribution joins keeps the campaign and ad, not the visitor.
      const [copy] = await db().select().from(attributedClicks).where(eq(attributedClicks.clickId, sub2));
      expect(copy).toMatchObject({ campaignId, tiktokCampaignId: "tt-77", placement: "feed", ipAddress: null, userAgent: null, ttclid: null });
      // TikTok gets them from the click's object (the queue, run by the test Worker, sends the claim) ...
      const sent = () => db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, "L-shard-1"));
      await vi.waitUntil(async () => (await sent())[0]?.status === "sent", { timeout: 10_000, interval: 50 });
      expect(fake.received()).toMatchObject([{ event_id: "L-shard-1", user: { ttclid: TTCLID, ip: "203.0.113.91", user_agent: VISITOR_AGENT } }]);
      // ... and the send row keeps none of them once TikTok has it.
      expect((await sent())[0]).toMatchObject({ clickId: sub2, ttclid: null, ipAddress: null, userAgent: null, pageUrl: null });

      const day = dayIn(Date.now(), await reportTimeZone(db()));
      const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" });
      expect(rowByKey(r, String(campaignId))).toMatchObject({ revenue: "12.50", conversions: 1 });
      await configure({ pixelCode: "" });
    },
  );

  it("are claimed for TikTok by the cron's sweep when the click's object failed the postback's claim", { timeout: 60_000 }, async () => {
    await configure();
    const fake = serveFake(createTikTokEventsFake());
    const sending = sendingEnv();
    const campaignId = await campaignWithOffer("Shard claim later");
    const sub2 = await sub2FromOfferLink(campaignId, "203.0.113.96");
    const down = shardName(placeOfClickId(sub2)!);
    const failing = { ...sending };
    failing.CLICK_SHARDS = {
      getByName: (name: string) => (name === down ? { clickRows: () => Promise.reject(new Error("shard down")) } : sending.CLICK_SHARDS.getByName(name)),
    } as unknown as typeof sending.CLICK_SHARDS;

    const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: "L-shard-later", oid: "11", price: "3.00", s1: "mb", s2: sub2, s3: "" });
    expect(await (await callWith(failing, `/postback/cake?${q}`)).json()).toEqual({ ok: true, result: "counted" });
    // Not judged without its click: no send row, rather than one skipped as not TikTok's.
    expect(await db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, "L-shard-later"))).toEqual([]);

    await sweepTikTokEventsJob.run({ db: db(), env: sending, now: Date.now() });
    const send = async () => (await db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, "L-shard-later")))[0];
    await vi.waitUntil(async () => (await send())?.status === "sent", { timeout: 10_000, interval: 50 });
    expect(fake.received()).toMatchObject([{ event_id: "L-shard-later", user: { ttclid: TTCLID, ip: "203.0.113.96" } }]);
    await configure({ pixelCode: "" });
  });

  it("are credited by the pull, with CAKE's clicks, and stay so when the day is pulled again", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard pull");
    const sub2 = await sub2FromOfferLink(campaignId, "203.0.113.92");
    const fakes = createFakes();
    const today = dayIn(Date.now(), "UTC");
    fakes.cake.state.conversions.push(
      approved("C-shard-pull", `${today}T08:00:00`, { offer_id: 11, offer_name: "Sweeps", subid_1: "mb-pull", subid_2: sub2 }, "4.00"),
    );
    fakes.cake.state.clicks.push({ click_id: 1, click_date: `${today}T07:59:00`, offer_id: 11, offer_name: "Sweeps", subid_1: "mb-pull", subid_2: sub2 });
    const pull = () => runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: Date.now() }, { source: "cake", trigger: "manual", days: 1 });
    expect((await pull()).status).toBe("ok");
    const expected = [{ tiktokCampaignId: "tt-77", tiktokAdGroupId: "ag-5", placement: "feed", clicks: 1, conversions: 1, revenueCents: 400 }];
    expect(await attributed(campaignId)).toEqual(expected);
    expect((await pull()).status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(expected);
    expect(await db().select().from(attributedClicks).where(eq(attributedClicks.clickId, sub2))).toHaveLength(1);
  });

  it("keep CAKE's click rows in the clicks' objects, not in D1, and a pull replaces them there", { timeout: 90_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard click report");
    const ips = ["203.0.113.93", "203.0.113.94", "203.0.113.95"];
    const [converted, second, third] = await Promise.all(ips.map((ip) => sub2FromOfferLink(campaignId, ip)));
    const fakes = createFakes();
    const today = dayIn(Date.now(), "UTC");
    const clickRow = (i: number, subid_2: string) => ({
      click_id: 100 + i,
      click_date: `${today}T09:0${i}:00`,
      offer_id: 12,
      offer_name: "Quiz",
      subid_1: "mb-report",
      subid_2,
    });
    const goneId = await campaignWithOffer("Shard click report, deleted");
    const gone = await sub2FromOfferLink(goneId, "203.0.113.96");
    fakes.cake.state.clicks.push(clickRow(0, converted!), clickRow(1, second!), clickRow(2, third!), clickRow(3, gone));
    fakes.cake.state.conversions.push(
      approved("C-shard-report", `${today}T09:30:00`, { offer_id: 12, offer_name: "Quiz", subid_1: "mb-report", subid_2: converted! }, "3.00"),
    );
    const pull = (bindings = configuredEnv()) =>
      runSync({ db: db(), env: bindings, http: fakeHttp(fakes), now: Date.now() }, { source: "cake", trigger: "manual", days: 1 });
    const credited = (clicks: number) => [{ tiktokCampaignId: "tt-77", tiktokAdGroupId: "ag-5", placement: "feed", clicks, conversions: 1, revenueCents: 300 }];
    const statsRows = () =>
      db()
        .select({ subid2: cakeStats.subid2, clicks: cakeStats.clicks, conversions: cakeStats.conversions })
        .from(cakeStats)
        .where(sql`${cakeStats.subid2} in (${converted}, ${second}, ${third})`);

    const first = await pull();
    expect(first.status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(credited(3));
    // An object's write repeated (the same run and days) changes nothing.
    const days = { start: first.windowStart!, end: first.windowEnd! };
    const again = await env.CLICK_SHARDS.getByName(shardName(placeOfClickId(second!)!)).applyCakeClicks(first.id, days, days, [[campaignId, 0]]);
    expect(again.written).toBe(0);
    expect(again.attributed.filter((r) => r.campaignId === campaignId).reduce((n, r) => n + r.clicks, 0)).toBeGreaterThan(0);
    // D1 keeps the conversion, not the click rows; only the converted click is copied.
    expect(await statsRows()).toEqual([{ subid2: converted, clicks: 0, conversions: 1 }]);
    const copies = await db().select({ clickId: attributedClicks.clickId }).from(attributedClicks);
    expect(copies.map((c) => c.clickId)).toContain(converted);
    expect(copies.map((c) => c.clickId)).not.toContain(second);
    // Every audience grouping counts the objects' rows with their clicks' values.
    const devices = await db().all<{ value: string; clicks: number }>(
      sql`select value, sum(clicks) as clicks from cake_audience_daily where dim = 'device' and campaign_id = ${campaignId} group by value`,
    );
    expect(devices.reduce((n, d) => n + d.clicks, 0)).toBe(3);
    const day = dayIn(Date.now(), await reportTimeZone(db()));
    expect(rowByKey(await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" }), String(campaignId))).toMatchObject({
      visits: 3,
      conversions: 1,
    });

    // The same pull again changes nothing; a pull where CAKE no longer reports a click takes it away.
    expect((await pull()).status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(credited(3));
    expect((await attributed(goneId)).map((r) => r.clicks)).toEqual([1]);
    // A deleted campaign's click, which its object keeps, is "Direct" at the next pull, as D1's would be.
    const directClicks = async () =>
      (await db().get<{ n: number | null }>(sql`select sum(clicks) as n from cake_attributed_daily where campaign_id = 0`))?.n ?? 0;
    const direct = await directClicks();
    expect((await call(`/api/campaigns/${goneId}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect((await pull()).status).toBe("ok");
    expect(await attributed(goneId)).toEqual([]);
    expect(await directClicks()).toBe(direct + 1);
    fakes.cake.state.clicks.splice(
      fakes.cake.state.clicks.findIndex((c) => c.subid_2 === third),
      1,
    );
    expect((await pull()).status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(credited(2));

    // An object failing fails the pull and leaves the report as the last whole pull wrote it.
    fakes.cake.state.clicks.splice(
      fakes.cake.state.clicks.findIndex((c) => c.subid_2 === second),
      1,
    );
    const failing = configuredEnv();
    const shards = failing.CLICK_SHARDS;
    const down = shardName(placeOfClickId(converted!)!);
    failing.CLICK_SHARDS = {
      getByName: (name: string) => {
        const real = shards.getByName(name);
        // Its rows are staged, then the write fails.
        return name === down
          ? {
              stageCakeClicks: (runId: number, rows: CakeClick[]) => real.stageCakeClicks(runId, rows),
              applyCakeClicks: () => Promise.reject(new Error("shard down")),
            }
          : real;
      },
    } as unknown as typeof shards;
    const failed = await pull(failing);
    expect(failed.status).toBe("error");
    expect(failed.error).toContain("shard down");
    expect(await attributed(campaignId)).toEqual(credited(2));
    expect((await pull()).status).toBe("ok");
    expect(await attributed(campaignId)).toEqual(credited(1));
  });

  it("keep the rows of a visitor who reached the offer days after the link with the click, and replace them there", { timeout: 90_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard late offer");
    // Two clicks of today's objects that share one (four shards: five clicks have a pair).
    const sub2s = await Promise.all([1, 2, 3, 4, 5].map((i) => sub2FromOfferLink(campaignId, `203.0.113.${110 + i}`)));
    const sameObject = sub2s.filter((id, i) => sub2s.some((other, j) => j !== i && shardName(placeOfClickId(other)!) === shardName(placeOfClickId(id)!)));
    const late = sameObject[0]!;
    const later = sameObject.find((id) => id !== late && shardName(placeOfClickId(id)!) === shardName(placeOfClickId(late)!))!;
    const fakes = createFakes();
    const day = (n: number) => dayIn(Date.now() + n * 86_400_000, "UTC");
    const row = (subid_2: string, n: number) => ({
      click_id: subid_2,
      click_date: `${day(n)}T10:00:00`,
      offer_id: 13,
      offer_name: "Late",
      subid_1: "mb-late",
      subid_2,
    });
    const pullOn = (n: number) =>
      runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: Date.now() + n * 86_400_000 }, { source: "cake", trigger: "manual", days: 1 });
    const clicksOn = async (n: number) =>
      (await db().get<{ n: number | null }>(sql`select sum(clicks) as n from cake_attributed_daily where campaign_id = ${campaignId} and date = ${day(n)}`))
        ?.n ?? 0;

    // Five days after the link the visitor reaches the offer: CAKE dates the click then.
    fakes.cake.state.clicks.push(row(late, 5));
    expect((await pullOn(5)).status).toBe("ok");
    expect(await clicksOn(5)).toBe(1);
    // CAKE no longer reports it: the pull of that day asks its object again, which drops it.
    fakes.cake.state.clicks.length = 0;
    expect((await pullOn(5)).status).toBe("ok");
    expect(await clicksOn(5)).toBe(0);
    // Two days on, another click of the same object reaches the offer; the rebuild takes in day 5
    // (its margin) from that object and finds nothing left of the first.
    fakes.cake.state.clicks.push(row(later, 7));
    expect((await pullOn(7)).status).toBe("ok");
    expect(await clicksOn(7)).toBe(1);
    expect(await clicksOn(5)).toBe(0);
    // Once the retention has archived those days, the record of the objects goes with cake_stats' rows.
    const recorded = () =>
      db()
        .select()
        .from(cakeClickShards)
        .where(lte(cakeClickShards.date, day(7)));
    expect((await recorded()).length).toBeGreaterThan(0);
    await purgeArchivedCakeStats(db(), day(7));
    expect(await recorded()).toEqual([]);
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
