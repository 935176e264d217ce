import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clicks, landerClicks, offers, refusedClicks } from "../src/db/schema";
import worker from "../src/index";
import { DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
import { REFUSAL_PERIOD_MS, visitorKey } from "../src/tracking/rate-limit";
import { bodyOf, clicksWritten, client, db, makeUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv } from "./performance-helpers";
import { seedCampaign } from "./stats-helpers";

/** wrangler.toml's limits: [[ratelimits]] CLICK_LIMITER and POSTBACK_LIMITER. */
const CLICK_LIMIT = 600;
const POSTBACK_LIMIT = 1200;

/**
 * One tracking request. Its background work (asking the limit, storing the click, counting a
 * refusal) is awaited at once, or pushed onto `later` for a burst to await at its end: a request
 * that opens a round of refusal counts holds its context for the round's second (REFUSAL_FLUSH_MS),
 * and awaiting each one would make a burst wait that second per batch.
 */
async function visit(path: string, ip: string, later?: Promise<void>[]) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://trk.test${path}`, { headers: { "cf-connecting-ip": ip }, redirect: "manual" }), env, ctx);
  const background = waitOnExecutionContext(ctx).then(() => clicksWritten());
  if (later) later.push(background);
  else await background;
  return res;
}

/**
 * Waits, if need be, until the limit's one-minute window has `seconds` left, so a short burst is
 * counted against one window (the local limiter counts per whole minute, as production does).
 * The bursts below take one to two seconds on an idle machine, and up to 10 s at a load average
 * of 16 on the 2-core CI machine: 30 s leaves them room.
 */
async function windowWithRoom(seconds: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
}

/** `count` requests, `parallel` at a time. */
async function burst(count: number, parallel: number, send: (i: number) => Promise<Response>) {
  const statuses = new Map<number, number>();
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, (_, j) => send(i + j)));
    for (const res of batch) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  return Object.fromEntries(statuses);
}

const refusedOf = async (campaignId: number) =>
  (
    await db().all<{ clicks: number | null; exits: number | null }>(sql`
    select sum(clicks) as clicks, sum(exits) as exits from refused_clicks where campaign_id = ${campaignId}`)
  )[0]!;

async function offerCampaign() {
  const [offer] = await db()
    .insert(offers)
    .values({ name: "Offer", url: "https://offer.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE })
    .returning({ id: offers.id });
  const campaignId = await seedCampaign({ offerId: offer!.id });
  await db().run(sql`update campaigns set bh_toggle = 1 where id = ${campaignId}`);
  return campaignId;
}

describe("whom the limit counts", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["2001:db8:abcd:12:1:2:3:4", "2001:db8:abcd:12::/64"],
    ["2001:DB8:ABCD:0012:ffff::1", "2001:db8:abcd:12::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["", null],
    [null, null],
    [undefined, null],
  ])("%j counts as %j", (ip, key) => {
    expect(visitorKey(ip)).toBe(key);
  });
});

describe("the per-IP rate limit", () => {
  it("a burst of 10,000 clicks from one IP: every visitor redirected, storage bounded, the refusals counted", async () => {
    const campaignId = await offerCampaign();
    const count = 10_000;
    const later: Promise<void>[] = [];
    const statuses = await burst(count, 200, () => visit(`/r/${campaignId}?cid=1`, "198.51.100.77", later));
    expect(statuses).toEqual({ 302: count });
    await Promise.all(later);
    const stored = (await db().select({ id: clicks.id }).from(clicks).where(eq(clicks.campaignId, campaignId))).length;
    // The limit's window is a minute: a burst that straddles two windows gets two allowances.
    expect(stored).toBeGreaterThanOrEqual(CLICK_LIMIT);
    expect(stored).toBeLessThanOrEqual(2 * CLICK_LIMIT);
    const refused = await refusedOf(campaignId);
    expect(refused).toEqual({ clicks: count - stored, exits: 0 });
    // Counted in a handful of rows (quarter hours), not one per request.
    const rows = await db().select().from(refusedClicks).where(eq(refusedClicks.campaignId, campaignId));
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows.every((r) => r.periodStart % REFUSAL_PERIOD_MS === 0)).toBe(true);

    // Another visitor is not held back by the first one's flood.
    expect((await visit(`/r/${campaignId}`, "198.51.100.78")).status).toBe(302);
    expect((await db().select({ id: clicks.id }).from(clicks).where(eq(clicks.campaignId, campaignId))).length).toBe(stored + 1);

    // The Click Log shows them per day and campaign.
    const member = await makeUser("user", ["clicks"]);
    const today = new Date().toISOString().slice(0, 10);
    const body = await bodyOf(await client(member).clicks.refused.$get({ query: { startDate: today, endDate: today, campaignId: String(campaignId) } }), 200);
    expect(body).toMatchObject({ clicks: count - stored, exits: 0 });
    expect(body.days.map((d) => [d.campaignId, d.clicks])).toEqual([[campaignId, count - stored]]);
  }, 120_000);

  it("over the limit an exit still goes to the offer, and is counted instead of stored", async () => {
    const campaignId = await offerCampaign();
    const first = await visit(`/r/${campaignId}`, "192.0.2.90");
    const clickId = new URL(first.headers.get("location")!).searchParams.get("clickId")!;
    await windowWithRoom(30);
    const count = CLICK_LIMIT + 25;
    const later: Promise<void>[] = [];
    const statuses = await burst(count, 100, () => visit(`/click?clickId=${clickId}&cid=${campaignId}`, "192.0.2.91", later));
    expect(statuses).toEqual({ 302: count });
    await Promise.all(later);
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toHaveLength(CLICK_LIMIT);
    expect(await refusedOf(campaignId)).toEqual({ clicks: 0, exits: 25 });
  }, 90_000);

  it("the postback answers 429 over its limit, before looking at the token", async () => {
    const bindings = configuredEnv();
    const ip = "203.0.113.250";
    await windowWithRoom(30);
    const statuses = await burst(POSTBACK_LIMIT, 100, () => callWith(bindings, "/postback/cake?token=wrong", { headers: { "cf-connecting-ip": ip } }));
    expect(statuses).toEqual({ 403: POSTBACK_LIMIT });
    const over = await callWith(bindings, `/postback/cake?token=${POSTBACK_TOKEN}&leadid=RL-1&oid=1&price=1`, { headers: { "cf-connecting-ip": ip } });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ error: "Too many postbacks from this address; try again in a minute" });
    // Another address is unaffected.
    const other = await callWith(bindings, `/postback/cake?token=${POSTBACK_TOKEN}&leadid=RL-2&oid=1&price=1`, {
      headers: { "cf-connecting-ip": "203.0.113.251" },
    });
    expect(other.status).toBe(200);
  }, 90_000);
});
