import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertClicks } from "../src/db/queries/clicks";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { campaigns, clicks, landerClicks, offers, sparks } from "../src/db/schema";
import worker from "../src/index";
import { BATCH_MAX_CLICKS, BATCH_MAX_WAIT_MS } from "../src/tracking/click-writer";
import { newClickId } from "../src/tracking/click-id";
import { DEFAULT_UTM_TEMPLATE, TEMPLATE_TOKENS } from "../src/schemas/offers";
import { call, clicksWritten, db, makeAdmin } from "./helpers";

const HOST = "https://trk.brand.test";
/** Every ad value of the click in its own sub, so the tests below can see each one arrive. */
const AD_VALUES_TEMPLATE = "sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}&sub5={placement}";

/** A visitor's request through the Worker's fetch, with pending background writes awaited (unless told not to). */
async function visit(path: string, { method = "GET", headers = {}, wait = true }: { method?: string; headers?: Record<string, string>; wait?: boolean } = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${HOST}${path}`, { method, headers, redirect: "manual" }), env, ctx);
  const settled = waitOnExecutionContext(ctx).then(() => clicksWritten());
  if (wait) await settled;
  return Object.assign(res, { settled });
}

interface Setup {
  landerUrl?: string;
  offer?: { url: string; utmTemplate: string } | null;
  bhToggle?: boolean;
  mediaBuyer?: string | null;
  /** The sparkId of a spark made for the campaign; none when left out. */
  spark?: string;
}

async function setup({
  landerUrl = "https://lander.test/lp",
  offer = { url: "https://offer.test/go", utmTemplate: AD_VALUES_TEMPLATE },
  bhToggle = true,
  mediaBuyer = null,
  spark,
}: Setup = {}) {
  const database = db();
  const lander = await insertLander(database, { name: "Lander", url: landerUrl }).get();
  const offerRow = offer ? await insertOffer(database, { name: "Offer", ...offer }).get() : null;
  const sparkRow = spark ? (await database.insert(sparks).values({ name: "Spark", code: "<p>ad</p>", sparkId: spark }).returning())[0]! : null;
  const campaign = await insertCampaign(database, {
    name: "Campaign",
    landerId: lander.id,
    offerId: offerRow?.id ?? null,
    domainId: null,
    bhToggle,
    mediaBuyer,
    sparkId: sparkRow?.id ?? null,
  }).get();
  return { campaignId: campaign.id, landerId: lander.id, offerId: offerRow?.id ?? null, sparkRowId: sparkRow?.id ?? null };
}

const clicksOf = (campaignId: number) => db().select().from(clicks).where(eq(clicks.campaignId, campaignId)).orderBy(clicks.id);
const clickRow = async (clickId: string) => (await db().select().from(clicks).where(eq(clicks.clickId, clickId)))[0];
const exitsOf = (clickId: string) => db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId));
const clickIdFrom = (location: string | null) => new URL(location!).searchParams.get("clickId")!;

/** A click recorded through /r/, returning its id. */
async function recordedClick(campaignId: number, query = "") {
  const res = await visit(`/r/${campaignId}${query}`, { headers: { "cf-connecting-ip": "203.0.113.9", "user-agent": "TestPhone/1.0" } });
  expect(res.status).toBe(302);
  return clickIdFrom(res.headers.get("location"));
}

describe("GET /r/:campaignId", () => {
  it("records the click and sends the visitor to the lander with cid and clickId, keeping the lander's query", async () => {
    const { campaignId } = await setup({ landerUrl: "https://lander.test/lp?src=tt&x=a%20b#offer" });
    const before = Date.now();
    const res = await visit(`/r/${campaignId}?cid=1799&ad=2001&cr=3002&plc=feed&cname=Spring%20Sale&aname=Broad&crname=Video%20A`, {
      headers: { "cf-connecting-ip": "198.51.100.7", "user-agent": "Mozilla/5.0 Test" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const location = res.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^https://lander\\.test/lp\\?src=tt&x=a%20b&cid=${campaignId}&clickId=[0-9a-f-]{36}#offer$`));

    const [row] = await clicksOf(campaignId);
    expect(row).toMatchObject({
      clickId: clickIdFrom(location),
      tiktokCampaignId: "1799",
      tiktokAdGroupId: "2001",
      tiktokCreativeId: "3002",
      placement: "feed",
      campaignName: "Spring Sale",
      adGroupName: "Broad",
      creativeName: "Video A",
      ipAddress: "198.51.100.7",
      userAgent: "Mozilla/5.0 Test",
      exitedAt: null,
    });
    expect(row!.clickedAt).toBeGreaterThanOrEqual(before);
    expect(row!.clickedAt).toBeLessThanOrEqual(Date.now());
  });

  it("answers before the click is written: the write happens in the background", async () => {
    const { campaignId } = await setup();
    const res = await visit(`/r/${campaignId}`, { wait: false });
    expect(res.status).toBe(302);
    expect(await clicksOf(campaignId)).toHaveLength(0);
    await res.settled;
    expect(await clicksOf(campaignId)).toHaveLength(1);
  });

  it("loses no click when many visitors arrive at once", async () => {
    const { campaignId } = await setup();
    const responses = await Promise.all(Array.from({ length: 300 }, () => visit(`/r/${campaignId}?plc=burst`)));
    const ids = responses.map((r) => clickIdFrom(r.headers.get("location")));
    expect(new Set(ids).size).toBe(300);
    const stored = await clicksOf(campaignId);
    expect(stored.map((c) => c.clickId).sort()).toEqual([...ids].sort());
  }, 60_000);

  it("writes a batch as soon as it is full, and gathers the next one", async () => {
    const { campaignId } = await setup();
    const count = BATCH_MAX_CLICKS + 50;
    const responses = await Promise.all(Array.from({ length: count }, () => visit(`/r/${campaignId}`)));
    expect(responses.every((r) => r.status === 302)).toBe(true);
    expect(await clicksOf(campaignId)).toHaveLength(count);
  }, 120_000);

  it("still stores the other clicks of a batch when one campaign is deleted before the write, and notes the dropped click as no error", async () => {
    const kept = await setup();
    const doomed = await setup();
    // Deleted in D1 after this isolate cached it, as another isolate's delete would be: /r/ still
    // answers for it until the cache learns, and its clicks meet a campaign that is gone.
    await visit(`/r/${doomed.campaignId}`);
    await db().delete(campaigns).where(eq(campaigns.id, doomed.campaignId));
    const log = vi.spyOn(console, "log");
    const error = vi.spyOn(console, "error");
    try {
      const a = await visit(`/r/${kept.campaignId}`, { wait: false });
      const b = await visit(`/r/${doomed.campaignId}`, { wait: false });
      expect([a.status, b.status]).toEqual([302, 302]);
      await Promise.all([a.settled, b.settled]);
      expect(await clicksOf(kept.campaignId)).toHaveLength(1);
      expect(await clicksOf(doomed.campaignId)).toHaveLength(0);
      const dropped = clickIdFrom(b.headers.get("location"));
      expect(log).toHaveBeenCalledWith(`clicks: dropped click ${dropped}: campaign ${doomed.campaignId} was deleted before it was stored`);
      expect(error).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  });

  it("records CF-Connecting-IP, never a spoofed X-Forwarded-For", async () => {
    const { campaignId } = await setup();
    await visit(`/r/${campaignId}`, { headers: { "cf-connecting-ip": "192.0.2.44", "x-forwarded-for": "6.6.6.6, 10.0.0.1" } });
    await visit(`/r/${campaignId}`, { headers: { "x-forwarded-for": "6.6.6.6" } });
    const [withCf, without] = await clicksOf(campaignId);
    expect(withCf!.ipAddress).toBe("192.0.2.44");
    expect(without!.ipAddress).toBeNull();
  });

  it("records a click without macros as empty values", async () => {
    const { campaignId } = await setup();
    await visit(`/r/${campaignId}`);
    await visit(`/r/${campaignId}?cid=&ad=`);
    for (const row of await clicksOf(campaignId)) {
      expect(row).toMatchObject({ tiktokCampaignId: null, tiktokAdGroupId: null, tiktokCreativeId: null, placement: null, campaignName: null });
    }
  });

  it("records TikTok macros the ad platform left unfilled as empty, and the offer gets them empty too", async () => {
    const { campaignId } = await setup({
      offer: { url: "https://offer.test/go", utmTemplate: "s2={clickId}&s3={adGroup}&s4={campaign}&s5={placement}&n={campaignName}" },
    });
    // The tracking URL opened by hand: every macro as typed in View Code.
    const clickId = await recordedClick(
      campaignId,
      "?cid=__CAMPAIGN_ID__&ad=__AID__&cr=__CID__&plc=__PLACEMENT__&cname=__CAMPAIGN_NAME__&aname=__AID_NAME__&crname=__CID_NAME__",
    );
    expect(await clickRow(clickId)).toMatchObject({
      tiktokCampaignId: null,
      tiktokAdGroupId: null,
      tiktokCreativeId: null,
      placement: null,
      campaignName: null,
      adGroupName: null,
      creativeName: null,
    });
    const location = (await visit(`/click?clickId=${clickId}`)).headers.get("location");
    expect(location).toBe(`https://offer.test/go?s2=${clickId}&s3=&s4=&s5=&n=`);
    // Values that only look a little like a macro are data.
    const real = await recordedClick(campaignId, "?cid=__17&ad=_AID_&cname=Spring__SALE__&aname=__lower__");
    expect(await clickRow(real)).toMatchObject({
      tiktokCampaignId: "__17",
      tiktokAdGroupId: "_AID_",
      campaignName: "Spring__SALE__",
      adGroupName: "__lower__",
    });
  });

  it("cuts 10 KB parameters to 255 characters and still answers", async () => {
    const { campaignId } = await setup();
    const huge = "x".repeat(10 * 1024);
    const res = await visit(`/r/${campaignId}?cid=${huge}&cname=${huge}&crname=${huge}`, { headers: { "user-agent": "U".repeat(2000) } });
    expect(res.status).toBe(302);
    const [row] = await clicksOf(campaignId);
    expect(row!.tiktokCampaignId).toBe("x".repeat(255));
    expect(row!.campaignName).toHaveLength(255);
    expect(row!.userAgent).toBe("U".repeat(255));
  });

  it("keeps Unicode intact and never splits a character when cutting", async () => {
    const { campaignId } = await setup();
    const name = "Été 夏のセール 🚀";
    const emoji = "🚀".repeat(300);
    await visit(`/r/${campaignId}?cname=${encodeURIComponent(name)}&aname=${encodeURIComponent(emoji)}&plc=%E0%A4%A`);
    const [row] = await clicksOf(campaignId);
    expect(row!.campaignName).toBe(name);
    expect(row!.adGroupName).toBe("🚀".repeat(255));
    expect(row!.placement).not.toBeNull();
  });

  it("stores SQL metacharacters as plain text", async () => {
    const { campaignId } = await setup();
    const evil = `'; DROP TABLE clicks; --`;
    await visit(
      `/r/${campaignId}?cname=${encodeURIComponent(evil)}&ad=${encodeURIComponent(`1' OR '1'='1`)}&cr=${encodeURIComponent('"); DELETE FROM campaigns; --')}`,
    );
    const [row] = await clicksOf(campaignId);
    expect(row!.campaignName).toBe(evil);
    expect(row!.tiktokAdGroupId).toBe(`1' OR '1'='1`);
    expect(
      await db()
        .select({ n: sql<number>`count(*)` })
        .from(campaigns),
    ).not.toEqual([{ n: 0 }]);
  });

  it("stores each value with its type: numbers that look like text stay text, missing values are NULL", async () => {
    const { campaignId } = await setup();
    await visit(`/r/${campaignId}?cid=007&cname=${encodeURIComponent('{"a":[1,"\\u0000"]}')}`);
    const [row] = await db()
      .select({
        types: sql<string>`typeof(${clicks.campaignId}) || ',' || typeof(${clicks.clickedAt}) || ',' || typeof(${clicks.tiktokCampaignId}) || ',' || typeof(${clicks.placement})`,
        tiktokCampaignId: clicks.tiktokCampaignId,
        campaignName: clicks.campaignName,
      })
      .from(clicks)
      .where(eq(clicks.campaignId, campaignId));
    expect(row).toEqual({ types: "integer,integer,text,null", tiktokCampaignId: "007", campaignName: '{"a":[1,"\\u0000"]}' });
  });

  it("answers HEAD the same way without recording a click", async () => {
    const on = await setup();
    const off = await setup({ bhToggle: false });
    const head = await visit(`/r/${on.campaignId}?cid=1`, { method: "HEAD" });
    expect(head.status).toBe(302);
    expect(head.headers.get("location")).toMatch(/^https:\/\/lander\.test\/lp\?cid=\d+&clickId=/);
    expect((await visit(`/r/${off.campaignId}`, { method: "HEAD" })).status).toBe(200);
    expect(await clicksOf(on.campaignId)).toHaveLength(0);
    expect(await clicksOf(off.campaignId)).toHaveLength(0);
  });

  it("shows a plain holding page with the redirect off: 200, no lander link, click recorded", async () => {
    const { campaignId } = await setup({ bhToggle: false, landerUrl: "https://secret-lander.test/lp" });
    const res = await visit(`/r/${campaignId}?cid=5`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const body = await res.text();
    expect(body).not.toContain("secret-lander");
    expect(body).not.toMatch(/<a |<script|http-equiv/i);
    expect(await clicksOf(campaignId)).toHaveLength(1);
  });

  it("replaces cid and clickId the lander URL already carries", async () => {
    const { campaignId } = await setup({ landerUrl: "https://lander.test/?cid=999&clickId=stale&keep=1" });
    const location = (await visit(`/r/${campaignId}`)).headers.get("location")!;
    const params = new URL(location).searchParams;
    expect(params.getAll("cid")).toEqual([String(campaignId)]);
    expect(params.getAll("clickId")).toHaveLength(1);
    expect(params.get("keep")).toBe("1");
  });

  it.each(["999999", "0", "-1", "abc", "1e3", "12abc", "99999999999999999999", "%27%20OR%201=1"])(
    "answers an unknown campaign (%s) with a plain 404 page and records nothing",
    async (id) => {
      const before = (
        await db()
          .select({ n: sql<number>`count(*)` })
          .from(clicks)
      )[0]!.n;
      const res = await visit(`/r/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(await res.text()).toContain("This link does not exist.");
      expect(
        (
          await db()
            .select({ n: sql<number>`count(*)` })
            .from(clicks)
        )[0]!.n,
      ).toBe(before);
    },
  );

  it("sends its own few headers, not the app's, and locks its plain pages down", async () => {
    const { campaignId } = await setup();
    const redirect = await visit(`/r/${campaignId}`);
    expect(redirect.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(redirect.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(redirect.headers.get("content-security-policy")).toBeNull();
    const page = await visit("/r/999999");
    expect(page.headers.get("content-security-policy")).toBe("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  it("sees a BH toggle change made through the API at once", async () => {
    const admin = await makeAdmin();
    const { campaignId } = await setup();
    expect((await visit(`/r/${campaignId}`)).status).toBe(302);
    await call(`/api/campaigns/${campaignId}`, { method: "PATCH", cookie: admin.cookie, json: { bhToggle: false } });
    expect((await visit(`/r/${campaignId}`)).status).toBe(200);
  });
});

describe("GET /click", () => {
  it("marks the click exited, records the exit and sends the visitor to the offer with the template filled", async () => {
    const { campaignId, offerId } = await setup();
    const clickId = await recordedClick(campaignId, "?cid=1799&ad=2001&cr=3002&plc=feed");
    const before = Date.now();
    const res = await visit(`/click?clickId=${clickId}&cid=${campaignId}`, { headers: { "cf-connecting-ip": "198.51.100.8", "user-agent": "TestPhone/2.0" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("location")).toBe(`https://offer.test/go?sub1=${clickId}&sub2=1799&sub3=2001&sub4=3002&sub5=feed`);

    const row = await clickRow(clickId);
    expect(row!.exitedAt).toBeGreaterThanOrEqual(before);
    const exits = await exitsOf(clickId);
    expect(exits).toHaveLength(1);
    expect(exits[0]).toMatchObject({ offerId, ipAddress: "198.51.100.8", userAgent: "TestPhone/2.0" });
  });

  it("keeps the first exit time and records every later exit", async () => {
    const { campaignId } = await setup();
    const clickId = await recordedClick(campaignId);
    await visit(`/click?clickId=${clickId}`);
    const first = (await clickRow(clickId))!.exitedAt!;
    await vi.waitUntil(() => Date.now() > first, { interval: 1 });
    await visit(`/click?clickId=${clickId}`);
    expect((await clickRow(clickId))!.exitedAt).toBe(first);
    expect(await exitsOf(clickId)).toHaveLength(2);
  });

  it("fills every token, URL-encoding values that need it", async () => {
    const template = TEMPLATE_TOKENS.map((t) => `${t}={${t}}`).join("&");
    const { campaignId } = await setup({ offer: { url: "https://offer.test/go", utmTemplate: template }, mediaBuyer: "Ana & Bo", spark: "sprk1tracking" });
    const values = { cid: "a&b=c", ad: "100%", cr: "x y", plc: "#feed", cname: "Été ☀️", aname: "a/b?c", crname: "+1" };
    const query = Object.entries(values)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join("&");
    const clickId = await recordedClick(campaignId, `?${query}`);
    const location = (await visit(`/click?clickId=${clickId}`)).headers.get("location")!;
    const url = new URL(location);
    expect(url.origin + url.pathname).toBe("https://offer.test/go");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      clickId,
      campaign: "a&b=c",
      adGroup: "100%",
      creative: "x y",
      placement: "#feed",
      campaignName: "Été ☀️",
      adGroupName: "a/b?c",
      creativeName: "+1",
      mediaBuyer: "Ana & Bo",
      spark: "sprk1tracking",
    });
    expect(location).not.toContain(" ");
    expect(url.hash).toBe("");
  });

  it("fills missing values as empty", async () => {
    const { campaignId } = await setup();
    const clickId = await recordedClick(campaignId);
    expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(`https://offer.test/go?sub1=${clickId}&sub2=&sub3=&sub4=&sub5=`);
  });

  it("sends the campaign's media buyer and spark in the default template, so CAKE reports them as sub1 and sub3", async () => {
    const { campaignId } = await setup({
      offer: { url: "https://offer.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE },
      mediaBuyer: "ana",
      spark: "sprk2default",
    });
    const clickId = await recordedClick(campaignId, "?ad=2001&cr=3002");
    expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(
      `https://offer.test/go?sub1=ana&sub2=${clickId}&sub3=sprk2default&sub4=2001&sub5=3002`,
    );
  });

  it("fills {mediaBuyer} and {spark} as empty for a campaign without them, and once its spark is deleted", async () => {
    const { campaignId, sparkRowId } = await setup({ offer: { url: "https://offer.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE }, spark: "sprk3deleted" });
    const clickId = await recordedClick(campaignId);
    expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(
      `https://offer.test/go?sub1=&sub2=${clickId}&sub3=sprk3deleted&sub4=&sub5=`,
    );

    // Deleted through the API, as a user would: the campaign keeps running without it, and /click
    // stops sending it at once (the spark delete clears the campaign cache).
    const admin = await makeAdmin();
    expect((await call(`/api/sparks/${sparkRowId}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect((await db().select({ sparkId: campaigns.sparkId }).from(campaigns).where(eq(campaigns.id, campaignId)))[0]).toEqual({ sparkId: null });
    expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(`https://offer.test/go?sub1=&sub2=${clickId}&sub3=&sub4=&sub5=`);
  });

  it("appends to an offer URL that already has a query string (and keeps its fragment last)", async () => {
    const { campaignId } = await setup({ offer: { url: "https://offer.test/go?aff_id=12&oid=7#top", utmTemplate: "s1={clickId}&s2={placement}" } });
    const clickId = await recordedClick(campaignId, "?plc=feed");
    expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(`https://offer.test/go?aff_id=12&oid=7&s1=${clickId}&s2=feed#top`);
  });

  it("finds a click exiting before its own write has landed", async () => {
    const { campaignId } = await setup();
    const r = await visit(`/r/${campaignId}?plc=fast`, { wait: false });
    const clickId = clickIdFrom(r.headers.get("location"));
    const exit = await visit(`/click?clickId=${clickId}`, { wait: false });
    expect(exit.headers.get("location")).toBe(`https://offer.test/go?sub1=${clickId}&sub2=&sub3=&sub4=&sub5=fast`);
    await Promise.all([r.settled, exit.settled]);
    expect((await clickRow(clickId))!.exitedAt).not.toBeNull();
    expect(await exitsOf(clickId)).toHaveLength(1);
  });

  it("finds a click that another isolate is still writing, by looking again a moment later", async () => {
    const { campaignId } = await setup();
    const clickId = await newClickId(env.SESSION_SECRET);
    const started = Date.now();
    const timers = vi.spyOn(globalThis, "setTimeout");
    const exit = visit(`/click?clickId=${clickId}`);
    // The click lands once the exit has found nothing and waits to look again, as another
    // isolate's batch would.
    await vi.waitUntil(() => timers.mock.calls.some(([, ms]) => (ms ?? 0) >= BATCH_MAX_WAIT_MS), { timeout: 10_000, interval: 5 });
    timers.mockRestore();
    await insertClicks(db(), [{ clickId, campaignId, placement: "late", clickedAt: started }]);
    const res = await exit;
    expect(res.headers.get("location")).toBe(`https://offer.test/go?sub1=${clickId}&sub2=&sub3=&sub4=&sub5=late`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(BATCH_MAX_WAIT_MS);
    expect(await exitsOf(clickId)).toHaveLength(1);
  });

  it("drops the exit to an offer deleted before it was stored, noted as no error", async () => {
    const { campaignId, offerId } = await setup();
    const clickId = await recordedClick(campaignId);
    await visit(`/click?clickId=${clickId}`);
    // Deleted in D1 behind this isolate's campaign cache, as another isolate's delete would be.
    await db().delete(offers).where(eq(offers.id, offerId!));
    const log = vi.spyOn(console, "log");
    const error = vi.spyOn(console, "error");
    try {
      const res = await visit(`/click?clickId=${clickId}`);
      expect(res.status).toBe(302);
      expect(log).toHaveBeenCalledWith(`exits: dropped the exit of click ${clickId}: the click or offer ${offerId} was deleted before it was stored`);
      expect(error).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
    // The offer's exits went with it; the click keeps its first exit time.
    expect(await exitsOf(clickId)).toEqual([]);
    expect((await clickRow(clickId))!.exitedAt).not.toBeNull();
  });

  it("sends an unknown click of a known campaign to the bare offer URL and records nothing", async () => {
    const { campaignId } = await setup({ offer: { url: "https://offer.test/go?aff=1", utmTemplate: DEFAULT_UTM_TEMPLATE } });
    for (const clickId of ["", "not-a-click", crypto.randomUUID()]) {
      const res = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("https://offer.test/go?aff=1");
    }
    expect((await visit(`/click?cid=${campaignId}`)).headers.get("location")).toBe("https://offer.test/go?aff=1");
  });

  it("answers 404 when neither the click nor the campaign is known", async () => {
    for (const query of ["", `?clickId=${crypto.randomUUID()}`, "?cid=999999", `?clickId=${crypto.randomUUID()}&cid=abc`, "?cid=0"]) {
      const res = await visit(`/click${query}`);
      expect(res.status, query).toBe(404);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("answers 404 for a campaign without an offer, recording nothing", async () => {
    const { campaignId } = await setup({ offer: null });
    const clickId = await recordedClick(campaignId);
    const res = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("no destination");
    expect((await clickRow(clickId))!.exitedAt).toBeNull();
  });

  it("answers HEAD without recording the exit", async () => {
    const { campaignId } = await setup();
    const clickId = await recordedClick(campaignId);
    const res = await visit(`/click?clickId=${clickId}`, { method: "HEAD" });
    expect(res.status).toBe(302);
    expect((await clickRow(clickId))!.exitedAt).toBeNull();
    expect(await exitsOf(clickId)).toHaveLength(0);
  });

  describe("never redirects anywhere but the configured offer URL", () => {
    const attacks = [
      "url=https://evil.example",
      "redirect=https%3A%2F%2Fevil.example&next=//evil.example",
      "cid=//evil.example",
      "cid=https:evil.example",
      "cid=javascript:alert(1)",
      "cid=%2F%2Fevil.example",
      "cid=%252F%252Fevil.example",
      "cid=https%3A%2F%2Fevil.example%2F",
      "clickId=https://evil.example",
      "clickId=%2F%2Fevil.example",
      "clickId=javascript:alert(document.cookie)",
      "clickId=%5C%5Cevil.example",
      "offer=https://evil.example&url=//evil.example&to=evil.example",
    ];

    it.each(attacks)("%s", async (attack) => {
      const { campaignId } = await setup();
      const clickId = await recordedClick(campaignId);
      for (const query of [`clickId=${clickId}&${attack}`, `cid=${campaignId}&${attack}`, `${attack}&clickId=${clickId}&cid=${campaignId}`, attack]) {
        const res = await visit(`/click?${query}`);
        const location = res.headers.get("location");
        if (location === null) {
          expect(res.status, query).toBe(404);
          continue;
        }
        expect(res.status, query).toBe(302);
        expect(new URL(location).origin, query).toBe("https://offer.test");
        expect(location.startsWith("https://offer.test/go"), query).toBe(true);
        expect(location, query).not.toContain("evil.example");
      }
    });

    it("even when the recorded ad values try to smuggle a destination in", async () => {
      const { campaignId } = await setup({ offer: { url: "https://offer.test/go", utmTemplate: "s1={clickId}&s2={campaignName}&s3={placement}" } });
      const clickId = await recordedClick(campaignId, `?cname=${encodeURIComponent("&url=https://evil.example#")}&plc=${encodeURIComponent("@evil.example/")}`);
      const location = (await visit(`/click?clickId=${clickId}`)).headers.get("location")!;
      const url = new URL(location);
      expect(url.origin).toBe("https://offer.test");
      expect(url.searchParams.get("url")).toBeNull();
      expect(url.searchParams.get("s2")).toBe("&url=https://evil.example#");
      expect(url.hash).toBe("");
    });

    it("uses the click's own campaign, whatever cid says", async () => {
      const mine = await setup({ offer: { url: "https://offer.test/mine", utmTemplate: "s={clickId}" } });
      const other = await setup({ offer: { url: "https://offer.test/other", utmTemplate: "s={clickId}" } });
      const clickId = await recordedClick(mine.campaignId);
      const location = (await visit(`/click?clickId=${clickId}&cid=${other.campaignId}`)).headers.get("location")!;
      expect(location).toBe(`https://offer.test/mine?s=${clickId}`);
    });

    it("follows an offer URL changed by a later PATCH at once, never the old one", async () => {
      const admin = await makeAdmin();
      const { campaignId, offerId } = await setup({ offer: { url: "https://old-offer.test/go", utmTemplate: "s={clickId}" } });
      const clickId = await recordedClick(campaignId);
      expect((await visit(`/click?clickId=${clickId}`)).headers.get("location")).toBe(`https://old-offer.test/go?s=${clickId}`);

      const patched = await call(`/api/offers/${offerId}`, {
        method: "PATCH",
        cookie: admin.cookie,
        json: { url: "https://new-offer.test/land", utmTemplate: "t={clickId}" },
      });
      expect(patched.status).toBe(200);
      for (const query of [`clickId=${clickId}`, `cid=${campaignId}`, `clickId=${clickId}&url=https://old-offer.test/go`]) {
        const location = (await visit(`/click?${query}`)).headers.get("location")!;
        expect(new URL(location).origin).toBe("https://new-offer.test");
        expect(location).not.toContain("old-offer");
      }
    });

    it("stops sending anyone to an offer once the campaign drops it", async () => {
      const admin = await makeAdmin();
      const { campaignId } = await setup();
      const clickId = await recordedClick(campaignId);
      expect((await visit(`/click?clickId=${clickId}`)).status).toBe(302);
      await call(`/api/campaigns/${campaignId}`, { method: "PATCH", cookie: admin.cookie, json: { offerId: null } });
      expect((await visit(`/click?clickId=${clickId}`)).status).toBe(404);
    });
  });
});

describe("GET /exit-tracker.js", () => {
  it("serves JavaScript any lander origin may load, briefly cacheable", async () => {
    const res = await visit("/exit-tracker.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const body = await res.text();
    expect(body).toContain(`("${HOST}", "${HOST}")`);
    expect((await visit("/exit-tracker.js", { method: "HEAD" })).status).toBe(200);
  });

  it("keeps the app's own pages same-origin only", async () => {
    const res = await call("/api/setup");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  });

  it("points exits at global_exit_domain once it is saved", async () => {
    const admin = await makeAdmin();
    const save = (value: string) => call("/api/settings", { method: "POST", cookie: admin.cookie, json: { key: "global_exit_domain", value } });
    expect((await visit("/exit-tracker.js")).status).toBe(200);
    expect((await save("https://exit.brand.test")).status).toBe(200);
    try {
      const body = await (await visit("/exit-tracker.js")).text();
      expect(body).toContain(`("https://exit.brand.test", "${HOST}")`);
    } finally {
      expect((await save("")).status).toBe(200);
    }
  });
});
