/**
 * What a flood of made-up ids costs the public routes in D1 (docs/tracking.md "What the public routes do"):
 * every request goes through the Worker's fetch with a D1 binding that counts the statements sent.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertClicks } from "../src/db/queries/clicks";
import { campaigns, clicks, clickShardDays, landerClicks } from "../src/db/schema";
import worker from "../src/index";
import { invalidateTrackedCampaigns } from "../src/tracking/campaign-cache";
import { checkClickId, clickDayOf, newClickId, shardName } from "../src/tracking/click-id";
import { BATCH_MAX_WAIT_MS } from "../src/tracking/click-writer";
import { fixShardDays, forgetShardCounts, shardCounts } from "../src/tracking/shard-days";
import { countD1 } from "./d1-counter";
import { campaignWithOffer } from "./tracking-helpers";
import { clicksWritten, db } from "./helpers";

const HOST = "https://trk.brand.test";
const SECRET = env.SESSION_SECRET;
/** A per-address limit that refuses every request, as it does past 600 a minute. */
const REFUSING: RateLimit = { limit: async () => ({ success: false }) };

/** A visitor's request with D1 counted: the statements its answer cost (its background work awaited apart). */
async function visit(path: string, { limiter, headers = {} }: { limiter?: RateLimit; headers?: Record<string, string> } = {}) {
  // The day's shard counts are read once per isolate and 30 s (tracking/shard-days.ts), not per
  // request: read before counting.
  await shardCounts(db());
  const counted = countD1(env.DB);
  const ctx = createExecutionContext();
  const started = Date.now();
  const res = await worker.fetch(
    new Request(`${HOST}${path}`, { headers: { "cf-connecting-ip": "203.0.113.50", ...headers }, redirect: "manual" }),
    { ...env, DB: counted.db, ...(limiter ? { CLICK_LIMITER: limiter } : {}) },
    ctx,
  );
  const answeredIn = Date.now() - started;
  const queries = counted.tally.queries;
  await waitOnExecutionContext(ctx);
  await clicksWritten();
  return { res, queries, answeredIn };
}

/** A current-layout id with one check digit changed: the shape of ours, the check of none. */
async function forgedClickId() {
  const id = await newClickId(SECRET);
  return id.slice(0, -1) + (id.endsWith("0") ? "1" : "0");
}

describe("click ids", () => {
  it("carry a check: ours pass, a changed digit or another secret fails, old UUIDs stay valid", { timeout: 30_000 }, async () => {
    const id = await newClickId(SECRET);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-80[0-9a-f]{2}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await checkClickId(SECRET, id)).toEqual({ clickId: id, kind: "current" });
    expect(await checkClickId(SECRET, id.toUpperCase())).toEqual({ clickId: id, kind: "current" });
    expect(await checkClickId(SECRET, await forgedClickId())).toBeNull();
    expect(await checkClickId("another-secret-that-is-long-enough-to-use", id)).toBeNull();
    const legacy = crypto.randomUUID();
    expect(await checkClickId(SECRET, legacy)).toEqual({ clickId: legacy, kind: "legacy" });
    for (const raw of ["", "none", "123", `${id}x`, id.replace(/-/g, ""), "00000000-0000-0000-0000-000000000000"]) {
      expect(await checkClickId(SECRET, raw), raw).toBeNull();
    }
  });
});

describe("GET /click with made-up click ids", () => {
  it("costs no D1 read and no wait for an id that cannot be ours", { timeout: 30_000 }, async () => {
    for (const clickId of ["", "none", "not-a-click-id", "12345678-1234-1234-1234-123456789012", await forgedClickId()]) {
      const { res, queries, answeredIn } = await visit(`/click?clickId=${clickId}`);
      expect(res.status, clickId).toBe(404);
      expect(queries, clickId).toBe(0);
      expect(answeredIn, clickId).toBeLessThan(BATCH_MAX_WAIT_MS);
    }
  });

  it("looks a layout-1 id up in its shard-day alone, without a wait, and nowhere when its day has no such shard", { timeout: 30_000 }, async () => {
    const place = { day: clickDayOf(Date.now()), shard: 3 };
    const clickId = await newClickId(SECRET, place);
    const campaignId = await campaignWithOffer();
    // No count for today: the id names no object; it goes on as one that cannot be ours.
    const alone = await visit(`/click?clickId=${clickId}`);
    expect(alone.res.status).toBe(404);
    expect(alone.queries).toBe(0);
    expect((await visit(`/click?clickId=${clickId}&cid=${campaignId}`)).res.headers.get("location")).toBe("https://offer.test/go");
    try {
      await fixShardDays(db(), 4, Date.now());
      // Its click not stored yet: one call to its object, no D1 lookup, no wait; on by cid with the
      // id, and the exit kept in the object until the click comes.
      const { res, queries, answeredIn } = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
      expect(res.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=`);
      expect(answeredIn).toBeLessThan(BATCH_MAX_WAIT_MS);
      expect(queries).toBe(0);
      expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toHaveLength(0);
      expect(await env.CLICK_SHARDS.getByName(shardName(place)).size()).toMatchObject({ pendingExits: 1 });
    } finally {
      await db().delete(clickShardDays);
      forgetShardCounts();
    }
  });

  it("looks an old-layout id up once, without the second look", { timeout: 30_000 }, async () => {
    const { res, queries, answeredIn } = await visit(`/click?clickId=${crypto.randomUUID()}`);
    expect(res.status).toBe(404);
    expect(queries).toBe(1);
    expect(answeredIn).toBeLessThan(BATCH_MAX_WAIT_MS);
  });

  it("still sends on and records the exit of a click made before the check (an old UUID)", { timeout: 30_000 }, async () => {
    const campaignId = await campaignWithOffer();
    const clickId = crypto.randomUUID();
    await insertClicks(db(), [{ clickId, campaignId, placement: "old", clickedAt: Date.now() }]);
    const { res } = await visit(`/click?clickId=${clickId.toUpperCase()}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=old`);
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toHaveLength(1);
  });

  it("over the per-address limit looks nothing up, yet a checked id still reaches the offer", { timeout: 30_000 }, async () => {
    const campaignId = await campaignWithOffer();
    // The campaign is in this isolate's memory (the limit not yet reached); the click is not looked up.
    expect((await visit(`/click?cid=${campaignId}`)).res.status).toBe(302);
    const clickId = await newClickId(SECRET);
    const { res, queries } = await visit(`/click?clickId=${clickId}&cid=${campaignId}`, { limiter: REFUSING });
    expect(queries).toBe(0);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=`);
    // An old id over the limit: no lookup either.
    expect((await visit(`/click?clickId=${crypto.randomUUID()}`, { limiter: REFUSING })).queries).toBe(0);
  });
});

describe("GET /r/ with unknown campaigns", () => {
  it("costs no D1 read for an id that is no number, and remembers an unknown campaign as a miss", { timeout: 30_000 }, async () => {
    const campaignId = await campaignWithOffer();
    await db().delete(campaigns).where(eq(campaigns.id, campaignId));
    invalidateTrackedCampaigns();
    for (const id of ["abc", "0", "01", "1e3", "9".repeat(16)]) {
      const { res, queries } = await visit(`/r/${id}`);
      expect(res.status, id).toBe(404);
      expect(queries, id).toBe(0);
    }
    const first = await visit(`/r/${campaignId}`);
    expect(first.res.status).toBe(404);
    expect(first.queries).toBeGreaterThan(0);
    const again = await visit(`/r/${campaignId}`);
    expect(again.res.status).toBe(404);
    expect(again.queries).toBe(0);
  });

  it("answers an id far above every campaign without looking it up, after one read of the highest id", { timeout: 30_000 }, async () => {
    await campaignWithOffer();
    invalidateTrackedCampaigns();
    expect((await visit("/r/900000000001")).queries).toBe(1);
    for (let i = 2; i < 12; i++) {
      const { res, queries } = await visit(`/r/9000000000${String(i).padStart(2, "0")}`);
      expect(res.status).toBe(404);
      expect(queries).toBe(0);
    }
  });

  it("over the per-address limit looks no campaign up: 429 for one it does not hold, the redirect for one it does", { timeout: 30_000 }, async () => {
    const held = await campaignWithOffer();
    const notHeld = await campaignWithOffer();
    invalidateTrackedCampaigns();
    expect((await visit(`/r/${held}`)).res.status).toBe(302);
    const refused = await visit(`/r/${notHeld}`, { limiter: REFUSING });
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get("retry-after")).toBe("60");
    expect(refused.queries).toBe(0);
    const sent = await visit(`/r/${held}`, { limiter: REFUSING });
    expect(sent.res.status).toBe(302);
    expect(sent.queries).toBe(0);
    // Over the limit the click is only counted, not stored.
    expect(await db().select().from(clicks).where(eq(clicks.campaignId, held))).toHaveLength(1);
  });
});

describe("GET /exit-tracker.js", () => {
  it("reads the settings once, then serves from memory, and answers a browser's revalidation with 304", { timeout: 30_000 }, async () => {
    await visit("/exit-tracker.js");
    const { res, queries } = await visit("/exit-tracker.js");
    expect(res.status).toBe(200);
    expect(queries).toBe(0);
    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    const revalidated = await visit("/exit-tracker.js", { headers: { "if-none-match": `W/${etag}` } });
    expect(revalidated.res.status).toBe(304);
    expect(await revalidated.res.text()).toBe("");
    expect(revalidated.queries).toBe(0);
  });
});
