import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { clicks } from "../src/db/schema";
import worker from "../src/index";
import { TTCLID_MAX } from "../src/routes/tracking";
import { agentReason, botReason, networkReason } from "../src/tracking/bots";
import { parseUserAgent } from "../src/tracking/user-agent";
import { describeVisitor } from "../src/tracking/visitor";
import { clicksWritten, db } from "./helpers";

const HOST = "https://trk.visitor.test";

const UA = {
  tiktokIos:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US",
  tiktokAndroid:
    "Mozilla/5.0 (Linux; Android 13; SM-S908B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.230 Mobile Safari/537.36 trill_330404 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/trill app_version/33.4.4",
  ipad: "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
  windows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  preloader: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 thirdLandingPageFeInfra",
};

async function visit(path: string, init: RequestInit & { cf?: Record<string, unknown> } = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${HOST}${path}`, { redirect: "manual", ...init }) as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  await waitOnExecutionContext(ctx);
  await clicksWritten();
  return res;
}

async function campaign() {
  const lander = await insertLander(db(), { name: "Lander", url: "https://lander.test/lp" }).get();
  return (await insertCampaign(db(), { name: "Visitors", landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get()).id;
}

const clickOf = async (location: string | null) => {
  const clickId = new URL(location!).searchParams.get("clickId")!;
  return (await db().select().from(clicks).where(eq(clicks.clickId, clickId)))[0]!;
};

describe("the user agent", () => {
  it("names TikTok's in-app browser on iOS and on Android, and the device and system", () => {
    expect(parseUserAgent(UA.tiktokIos)).toEqual({ deviceType: "Mobile", os: "iOS", browser: "TikTok" });
    expect(parseUserAgent(UA.tiktokAndroid)).toEqual({ deviceType: "Mobile", os: "Android", browser: "TikTok" });
    expect(parseUserAgent(UA.ipad)).toEqual({ deviceType: "Tablet", os: "iOS", browser: "Mobile Safari" });
    expect(parseUserAgent(UA.windows)).toEqual({ deviceType: "Desktop", os: "Windows", browser: "Chrome" });
  });

  it("reads a malformed or missing user agent as unknown, without throwing", () => {
    for (const ua of ["\u0000\u00ff ((((( ;;; )))", "x".repeat(255), "Mozilla/5.0 (", "🚀🚀🚀", null, ""]) {
      const parsed = parseUserAgent(ua);
      expect(parsed.browser).toBeNull();
      expect(parsed.os).toBeNull();
    }
  });
});

describe("bot flags", () => {
  it("names TikTok's preloader and spiders, Meta's and Google's ad bots, headless browsers, HTTP libraries and empty agents", () => {
    expect(agentReason(UA.preloader)).toBe("ad review: TikTok landing-page preloader");
    expect(agentReason("Mozilla/5.0 (Linux; Android 12) TikTokSpider ttspider-feedback@tiktok.com")).toBe("ad review: TikTokSpider");
    expect(agentReason("Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)")).toBe("crawler: Bytespider");
    expect(agentReason("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)")).toBe("ad review: Meta (facebookexternalhit)");
    expect(agentReason("meta-externalagent/1.1")).toBe("ad review: Meta (meta-externalagent)");
    expect(agentReason("AdsBot-Google (+http://www.google.com/adsbot.html)")).toBe("ad review: Google (AdsBot-Google)");
    expect(agentReason("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/120.0.0.0 Safari/537.36")).toBe("headless browser (HeadlessChrome)");
    for (const lib of ["curl/8.4.0", "python-requests/2.31.0", "Go-http-client/1.1", "axios/1.6.2"]) {
      expect(agentReason(lib)).toBe(`HTTP library (${lib.split("/")[0]})`);
    }
    expect(agentReason("")).toBe("empty user agent");
    expect(agentReason(null)).toBe("empty user agent");
    expect(agentReason("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toMatch(/^crawler \(/);
  });

  it("leaves people's browsers alone, and flags a data-centre network whatever the agent", () => {
    for (const ua of Object.values(UA).filter((u) => u !== UA.preloader)) expect(agentReason(ua)).toBeNull();
    expect(networkReason(16509)).toBe("data-centre network (AS16509 Amazon AWS)");
    expect(networkReason(7922)).toBeNull(); // a consumer ISP
    expect(networkReason(null)).toBeNull();
    expect(botReason(UA.windows, 14061)).toBe("data-centre network (AS14061 DigitalOcean)");
    expect(botReason(UA.windows, 7922)).toBeNull();
  });

  it("keeps the network test per click when the agent is cached", () => {
    expect(describeVisitor(UA.ipad, 7922)).toMatchObject({ bot: false, botReason: null, browser: "Mobile Safari" });
    expect(describeVisitor(UA.ipad, 16509)).toMatchObject({ bot: true, botReason: "data-centre network (AS16509 Amazon AWS)" });
    expect(describeVisitor(UA.ipad, null)).toMatchObject({ bot: false });
  });
});

describe("what /r/ records about the visitor", () => {
  it("stores the ttclid, the place Cloudflare reports, the parsed agent and no bot flag for a person", async () => {
    const id = await campaign();
    const res = await visit(`/r/${id}?cid=17&ttclid=E.C.P.abc-123_xyz`, {
      headers: { "user-agent": UA.tiktokIos, "cf-connecting-ip": "198.51.100.1" },
      cf: { country: "US", region: "California", city: "Los Angeles", asn: 7922, asOrganization: "Comcast Cable" },
    });
    expect(res.status).toBe(302);
    expect(await clickOf(res.headers.get("location"))).toMatchObject({
      ttclid: "E.C.P.abc-123_xyz",
      country: "US",
      region: "California",
      city: "Los Angeles",
      asn: 7922,
      asOrganization: "Comcast Cable",
      deviceType: "Mobile",
      os: "iOS",
      browser: "TikTok",
      bot: false,
      botReason: null,
    });
  });

  it("records a click without a cf object (local runs) with no place", async () => {
    const id = await campaign();
    const res = await visit(`/r/${id}`, { headers: { "user-agent": UA.windows } });
    expect(await clickOf(res.headers.get("location"))).toMatchObject({
      country: null,
      region: null,
      city: null,
      asn: null,
      asOrganization: null,
      deviceType: "Desktop",
      ttclid: null,
    });
  });

  it("cuts a 10 KB ttclid, reads an unfilled __CLICKID__ as none, and takes TikTok's appended ttclid after it", async () => {
    const id = await campaign();
    const huge = "T".repeat(10 * 1024);
    const cutRes = await visit(`/r/${id}?ttclid=${huge}`, { headers: { "user-agent": UA.windows } });
    expect(cutRes.status).toBe(302);
    expect((await clickOf(cutRes.headers.get("location"))).ttclid).toBe("T".repeat(TTCLID_MAX));

    const unfilled = await visit(`/r/${id}?ttclid=__CLICKID__`, { headers: { "user-agent": UA.windows } });
    expect((await clickOf(unfilled.headers.get("location"))).ttclid).toBeNull();

    const appended = await visit(`/r/${id}?cid=__CAMPAIGN_ID__&ttclid=__CLICKID__&ttclid=real-one`, { headers: { "user-agent": UA.windows } });
    expect((await clickOf(appended.headers.get("location"))).ttclid).toBe("real-one");
  });

  it("gives a bot the very same answer as a person, and only marks its click", async () => {
    const id = await campaign();
    const person = await visit(`/r/${id}?cid=1`, { headers: { "user-agent": UA.tiktokIos } });
    const bots = await Promise.all(
      [UA.preloader, "", "curl/8.4.0", "Mozilla/5.0 ((((( ;;; %% garbage"].map((ua) => visit(`/r/${id}?cid=1`, { headers: ua ? { "user-agent": ua } : {} })),
    );
    const shape = (r: Response) => ({
      status: r.status,
      location: r.headers.get("location")!.replace(/clickId=[0-9a-f-]+/, "clickId=X"),
      headers: [...r.headers.keys()].sort(),
    });
    for (const b of bots) expect(shape(b)).toEqual(shape(person));

    expect(await clickOf(person.headers.get("location"))).toMatchObject({ bot: false, botReason: null });
    expect(await clickOf(bots[0]!.headers.get("location"))).toMatchObject({ bot: true, botReason: "ad review: TikTok landing-page preloader" });
    expect(await clickOf(bots[1]!.headers.get("location"))).toMatchObject({ bot: true, botReason: "empty user agent" });
    expect(await clickOf(bots[2]!.headers.get("location"))).toMatchObject({ bot: true, botReason: "HTTP library (curl)" });
    // A malformed agent is stored as sent, parsed as unknown, and not a bot by itself.
    expect(await clickOf(bots[3]!.headers.get("location"))).toMatchObject({
      userAgent: "Mozilla/5.0 ((((( ;;; %% garbage",
      browser: null,
      os: null,
      bot: false,
    });
  });
});
