import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimSends, type SendClaim } from "../src/db/queries/tiktok-events";
import { tiktokEventSends } from "../src/db/schema";
import { consumeDeadLetters, consumeEvents, retryDelaySeconds, TIKTOK_EVENTS_DLQ_NAME, TIKTOK_EVENTS_QUEUE_NAME } from "../src/tiktok-events/consume";
import { createTikTokEventsFake, type TikTokEventsFake } from "./fakes/tiktok-events-fake";
import { call, db, makeAdmin } from "./helpers";
import { configure, PIXEL, serveFake, sendOf, sha256Hex, statusesOf, storedClick, storedClicks, testEnv } from "./tiktok-events-helpers";

let fake: TikTokEventsFake;
beforeEach(async () => {
  fake = createTikTokEventsFake();
  await configure();
});
afterEach(() => vi.restoreAllMocks());

let n = 0;
/** Conversions of fresh clicks, claimed (queued) as a producer would, without enqueueing them. */
async function claimed(count: number, values: Partial<SendClaim> = {}) {
  const clicks = await storedClicks(count);
  const claims: SendClaim[] = clicks.map((click) => ({
    conversionId: `conv-${++n}`,
    event: "CompletePayment",
    subid2: click.clickId,
    valueCents: 1250,
    eventAt: Date.now() - 1000,
    ...values,
  }));
  const ids = await claimSends(db(), claims, { configured: true, currency: "USD", now: Date.now() });
  expect(ids).toHaveLength(count);
  return { ids, claims };
}

/** A queue batch carrying the ids, as the queue would deliver it. */
function batchOf(groups: number[][], attempts = 1, queue = TIKTOK_EVENTS_QUEUE_NAME) {
  return createMessageBatch(
    queue,
    groups.map((ids, i) => ({ id: `msg-${n}-${i}`, timestamp: new Date(), attempts, body: { ids } })),
  );
}

async function consume(groups: number[][], { attempts = 1, env = testEnv() } = {}) {
  const batch = batchOf(groups, attempts);
  const ctx = createExecutionContext();
  await consumeEvents(batch, env, { fetch: fake.fetch });
  return getQueueResult(batch, ctx);
}

describe("the Events API consumer", () => {
  it("sends each conversion as TikTok's event and confirms it: event_id, ttclid, hashed click id, ip, user agent, value", async () => {
    const click = await storedClick({ ttclid: "E.C.P.real-ttclid" });
    const [id] = await claimSends(
      db(),
      [{ conversionId: "lead-77", event: "CompletePayment", subid2: click.clickId, valueCents: 4250, eventAt: 1_750_000_000_500 }],
      {
        configured: true,
        currency: "EUR",
        now: Date.now(),
      },
    );
    const result = await consume([[id!]]);
    expect(result.explicitAcks).toEqual([expect.stringMatching(/^msg-/)]);
    expect(result.retryMessages).toEqual([]);
    expect(fake.received()).toEqual([
      {
        event: "CompletePayment",
        event_id: "lead-77",
        event_time: 1_750_000_000,
        user: { ttclid: "E.C.P.real-ttclid", external_id: await sha256Hex(click.clickId), ip: "198.51.100.23", user_agent: click.userAgent },
        page: { url: "https://lander.test/lp" },
        properties: { value: 42.5, currency: "EUR" },
        pixelCode: PIXEL,
        testEventCode: null,
      },
    ]);
    expect(await sendOf("lead-77")).toMatchObject({ status: "sent", attempts: 1, message: null });
  });

  it("sends the test event code when one is set", async () => {
    await configure({ testEventCode: "TEST42" });
    const { ids } = await claimed(1);
    await consume([ids]);
    expect(fake.received()[0]!.testEventCode).toBe("TEST42");
  });

  it("sends a message delivered twice once, and merges a batch's messages into calls of at most 1,000 events", async () => {
    const { ids } = await claimed(3);
    await consume([ids]);
    await consume([ids]);
    expect(fake.state.events.size).toBe(3);
    expect(fake.state.duplicates).toBe(0);
    expect(fake.state.calls).toHaveLength(1);

    const many = await claimed(1_200, { eventAt: Date.now() - 5_000 });
    fake.state.calls.length = 0;
    await consume([many.ids.slice(0, 700), many.ids.slice(700)]);
    expect(fake.state.calls.map((c) => c.events)).toEqual([1000, 200]);
    expect(new Set(await statusesOf(many.ids))).toEqual(new Set(["sent"]));
  });

  it("puts the events back and retries the message later on TikTok's rate limit (40100), then sends them", async () => {
    const { ids, claims } = await claimed(2);
    fake.failNext({ code: 40100, message: "Too many requests" });
    const first = await consume([ids]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toEqual([{ msgId: expect.any(String) }]);
    expect(await sendOf(claims[0]!.conversionId)).toMatchObject({ status: "queued", code: 40100, message: expect.stringContaining("Too many requests") });
    expect(fake.received()).toEqual([]);

    const second = await consume([ids], { attempts: 2 });
    expect(second.retryMessages).toEqual([]);
    expect(await statusesOf(ids)).toEqual(["sent", "sent"]);
    expect(fake.state.events.size).toBe(2);
  });

  it("retries TikTok's 5xxxx codes and HTTP 5xx answers the same way", async () => {
    const { ids } = await claimed(1);
    fake.failNext({ code: 50002, message: "Internal error" }, { status: 503, text: "Service Unavailable" });
    expect((await consume([ids])).retryMessages).toHaveLength(1);
    expect((await consume([ids], { attempts: 2 })).retryMessages).toHaveLength(1);
    expect(await sendOf(`conv-${n}`)).toMatchObject({ status: "queued", message: expect.stringContaining("HTTP 503") });
    expect((await consume([ids], { attempts: 3 })).retryMessages).toHaveLength(0);
    expect(await sendOf(`conv-${n}`)).toMatchObject({ status: "sent", attempts: 3 });
  });

  it("fails every event of the call on a bad token (40105) with TikTok's message, acknowledges it, and 'Resend failed' sends them once fixed", async () => {
    const { ids, claims } = await claimed(2);
    const result = await consume([ids], { env: testEnv({ TIKTOK_EVENTS_ACCESS_TOKEN: "revoked-token" }) });
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    for (const c of claims) {
      expect(await sendOf(c.conversionId)).toMatchObject({
        status: "failed",
        code: 40105,
        message: expect.stringMatching(/TIKTOK_EVENTS_ACCESS_TOKEN.*TikTok: Access token is incorrect/),
      });
    }
    // Fixed (the Worker's own token is right): the admin resends, the queue delivers to the Worker.
    serveFake(fake);
    const admin = await makeAdmin();
    const res = await call("/api/tiktok-events/resend", { json: {}, cookie: admin.cookie });
    expect(await res.json()).toMatchObject({ requeued: 2, enqueued: true });
    await vi.waitUntil(async () => (await statusesOf(ids)).every((s) => s === "sent"), { timeout: 10_000, interval: 50 });
    expect(fake.state.events.size).toBe(2);
  });

  it("finds the one malformed event of a refused call by halving it: the others are sent, it fails with TikTok's message", async () => {
    const { ids, claims } = await claimed(9);
    const bad = claims[6]!.conversionId;
    await db().update(tiktokEventSends).set({ eventAt: -5_000 }).where(eq(tiktokEventSends.conversionId, bad));
    const result = await consume([ids]);
    expect(result.retryMessages).toEqual([]);
    expect(await sendOf(bad)).toMatchObject({ status: "failed", code: 40002, message: expect.stringContaining("event_time") });
    for (const c of claims.filter((c) => c.conversionId !== bad)) expect((await sendOf(c.conversionId)).status).toBe("sent");
    expect(fake.state.events.size).toBe(8);
    expect(fake.state.calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(9)));
  });

  it("fails the events when sending is not configured at send time (token unset), losing none", async () => {
    const { ids, claims } = await claimed(1);
    const result = await consume([ids], { env: testEnv({ TIKTOK_EVENTS_ACCESS_TOKEN: undefined }) });
    expect(result.explicitAcks).toHaveLength(1);
    expect(await sendOf(claims[0]!.conversionId)).toMatchObject({
      status: "failed",
      message: expect.stringContaining("TIKTOK_EVENTS_ACCESS_TOKEN is not set"),
    });
    expect(fake.state.calls).toEqual([]);
  });

  it("records what the queue gave up on (the dead-letter queue) as failed, keeping the last reason", async () => {
    const { ids, claims } = await claimed(1);
    fake.failNext({ code: 40100, message: "Too many requests" });
    await consume([ids]);
    const batch = batchOf([ids], 11, TIKTOK_EVENTS_DLQ_NAME);
    const ctx = createExecutionContext();
    await consumeDeadLetters(batch, testEnv());
    expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    expect(await sendOf(claims[0]!.conversionId)).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/^The queue gave up after its retries: TikTok's rate limit/),
    });
  });

  it("doubles the retry delay per attempt, up to 30 minutes", () => {
    expect([1, 2, 3, 4].map((a) => retryDelaySeconds(a, {}))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(20, {})).toBe(1800);
    expect(retryDelaySeconds(3, { TIKTOK_EVENTS_RETRY_SECONDS: "1" })).toBe(4);
  });
});
