/**
 * Revenue reaches the campaign, its media buyer and its spark when a team keeps the defaults
 * (docs/product-rules.md "Offer templates and attribution"). Every step follows the links the app
 * itself hands out: the campaign's tracking URL as TikTok fills it, the lander redirect, the exit
 * link the lander's script builds, the offer URL /click sends the visitor to, and then CAKE telling
 * us about the conversion with the subs that offer URL carried (its postback, and its report pull).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dayIn } from "../src/lib/calendar-days";
import { runSync } from "../src/sync/run-sync";
import type { StatsReport } from "../src/schemas/stats";
import worker from "../src/index";
import { bodyOf, clicksWritten, client, db, makeAdmin, type TestUser, uniqueName } from "./helpers";
import { configuredEnv, createFakes, fakeHttp, POSTBACK_TOKEN } from "./performance-helpers";
import { report } from "./stats-helpers";

const TRACKING_HOST = "https://trk.attribution.test";

/** A visitor's request to a public link, answered once its background writes are done. */
async function open(url: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone) Test" } }), configuredEnv(), ctx);
  await waitOnExecutionContext(ctx);
  await clicksWritten();
  return res;
}

/** The campaign a new team sets up with the screens' defaults: a spark, an offer without a template, a media buyer. */
async function newTeamCampaign(admin: TestUser, mediaBuyer: string) {
  const api = client(admin);
  await bodyOf(await api.settings.$post({ json: { key: "redirect_domain", value: TRACKING_HOST } }), 200);
  const lander = await bodyOf(await api.landers.$post({ json: { name: uniqueName("Quiz LP "), url: "https://lander.attribution.test/quiz" } }), 201);
  const spark = await bodyOf(await api.sparks.$post({ json: { name: uniqueName("Glow "), code: "<p>spark ad</p>" } }), 201);
  // No template sent: the offer gets the default.
  const offer = await bodyOf(await api.offers.$post({ json: { name: uniqueName("Sweeps "), url: "https://network.attribution.test/?a=12&c=7" } }), 201);
  const campaign = await bodyOf(
    await api.campaigns.$post({ json: { name: uniqueName("Spring "), landerId: lander.id, offerId: offer.id, bhToggle: true, mediaBuyer, sparkId: spark.id } }),
    201,
  );
  return { campaign, spark, offer };
}

/** One visitor, link by link: ad → /r/ → lander → exit link → offer URL. Returns CAKE's sub1-sub5 as the offer URL carries them. */
async function visitorReachesOffer(campaign: { id: number; trackingUrl: string | null; exitUrl: string | null }) {
  // TikTok fills its macros in the tracking URL the campaign shows.
  const adUrl = campaign
    .trackingUrl!.replace("__CAMPAIGN_ID__", "1799000001")
    .replace("__AID__", "1799000002")
    .replace("__CID__", "1799000003")
    .replace("__PLACEMENT__", "tiktok_feed");
  expect(adUrl.startsWith(`${TRACKING_HOST}/r/${campaign.id}?`)).toBe(true);
  const toLander = await open(adUrl);
  expect(toLander.status).toBe(302);
  const lander = new URL(toLander.headers.get("location")!);
  const clickId = lander.searchParams.get("clickId")!;
  const cid = lander.searchParams.get("cid")!;
  expect(clickId).toMatch(/^[0-9a-f-]{36}$/);

  // The exit link the lander's exit-tracker.js builds from those two values.
  const toOffer = await open(`${campaign.exitUrl!}?clickId=${encodeURIComponent(clickId)}&cid=${encodeURIComponent(cid)}`);
  expect(toOffer.status).toBe(302);
  const offerUrl = new URL(toOffer.headers.get("location")!);
  expect(offerUrl.origin).toBe("https://network.attribution.test");
  const sub = (n: number) => offerUrl.searchParams.get(`sub${n}`) ?? "";
  return { clickId, subs: [sub(1), sub(2), sub(3), sub(4), sub(5)] as const };
}

/** The row of `key` in a report, or the keys there are, so a miss says where the revenue went. */
function row(r: StatsReport, key: string) {
  const found = r.rows.find((x) => x.key === key);
  expect(found, `no row ${key}; rows: ${JSON.stringify(r.rows.map((x) => [x.key, x.name, x.revenue]))}`).toBeDefined();
  return found!;
}

describe("a conversion through a default offer's link", () => {
  it("is credited to its campaign, its media buyer and its spark, by the postback and by the report pull", async () => {
    const admin = await makeAdmin();
    const buyer = uniqueName("ana-");
    const { campaign, spark, offer } = await newTeamCampaign(admin, buyer);
    expect(offer.attributionProblem).toBeNull();

    // The first visitor converts, and CAKE's postback says so with the subs the offer URL carried.
    const first = await visitorReachesOffer(campaign);
    expect(first.subs).toEqual([buyer, first.clickId, spark.sparkId, "1799000002", "1799000003"]);
    const [s1, s2, s3] = first.subs;
    const postback = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: uniqueName("lead-"), oid: "4101", price: "12.50", s1, s2, s3 });
    const pb = await open(`https://trackyard.test/postback/cake?${postback}`);
    expect(await pb.json()).toEqual({ ok: true, result: "counted" });

    // The second converts too; this time the report pull (CAKE's Conversions report) brings it in.
    const second = await visitorReachesOffer(campaign);
    const today = dayIn(Date.now(), "UTC");
    const fakes = createFakes();
    fakes.cake.state.conversions.push({
      conversion_id: uniqueName("conv-"),
      conversion_date: `${today}T09:30:00`,
      offer_id: 4101,
      offer_name: "Sweeps (network)",
      subid_1: second.subs[0],
      subid_2: second.subs[1],
      subid_3: second.subs[2],
      subid_4: second.subs[3],
      subid_5: second.subs[4],
      price: "7.50",
      disposition: "Approved",
    });
    const run = await runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: Date.now() }, { source: "cake", trigger: "manual", days: 1 });
    expect(run.status, JSON.stringify(run)).toBe("ok");

    const range = { startDate: today, endDate: today };
    const byCampaign = await report(admin.cookie, { ...range, groupBy: "campaign" });
    expect(row(byCampaign, String(campaign.id))).toMatchObject({ name: campaign.name, conversions: 2, revenue: "20.00" });
    expect(byCampaign.rows.find((x) => x.key === "direct")).toBeUndefined();

    const byBuyer = await report(admin.cookie, { ...range, groupBy: "mediaBuyer" });
    expect(row(byBuyer, buyer)).toMatchObject({ name: buyer, conversions: 2, revenue: "20.00" });
    expect(byBuyer.rows.map((x) => x.key)).toEqual([buyer]);

    const bySpark = await report(admin.cookie, { ...range, groupBy: "spark" });
    expect(row(bySpark, spark.sparkId)).toMatchObject({ name: spark.name, conversions: 2, revenue: "20.00" });
    expect(bySpark.rows.map((x) => x.key)).toEqual([spark.sparkId]);
  }, 60_000);
});
