import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimSends, type SendClaim } from "../src/db/queries/tiktok-events";
import { tiktokEventSends } from "../src/db/schema";
import { sql } from "drizzle-orm";
import {
  consumeDeadLetters,
  consumeEvents,
  LEASE_MS,
  retryDelaySeconds,
  TIKTOK_EVENTS_DLQ_NAME,
  TIKTOK_EVENTS_QUEUE_NAME,
  type ConsumeDeps,
} from "../src/tiktok-events/consume";
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

async function consume(groups: number[][], { attempts = 1, env = testEnv(), deps = {} as ConsumeDeps } = {}) {
  const batch = batchOf(groups, attempts);
  const ctx = createExecutionContext();
  await consumeEvents(batch, env, { fetch: fake.fetch, ...deps });
  return getQueueResult(batch, ctx);
}

describe("the Events API consumer", () => {
  it("sends each conversion as TikTok's event and confirms it: event_id, ttclid, hashed click id, ip, user agent, value, the offer as what was bought", async () => {
    const click = await storedClick({ ttclid: "E.C.P.real-ttclid" });
    await db().run(sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, offer_name, subid2, revenue_cents, counted, pulled_at)
      values ('lead-77', 'pull', '2025-06-15', 11, 'Sweeps $750', ${click.clickId}, 4250, 1, ${Date.now()})`);
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
        properties: {
          value: 42.5,
          currency: "EUR",
          content_type: "product",
          contents: [{ content_id: "11", content_name: "Sweeps $750", price: 42.5, quantity: 1 }],
        },
        pixelCode: PIXEL,
        testEventCode: null,
      },
    ]);
    // Nothing Events Manager's diagnostics would flag on a CompletePayment.
    expect(fake.state.diagnostics).toEqual([]);
    expect(await sendOf("lead-77")).toMatchObject({ status: "sent", attempts: 1, message: null });
  });

  it("names the offer from another of its conversions when this one's postback did not (a postback carries only the id)", async () => {
    const { ids, claims } = await claimed(1);
    await db().run(sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, offer_name, subid2, revenue_cents, counted, postback_at)
      values (${claims[0]!.conversionId}, 'postback', '2025-06-15', 904, '', '', 1250, 1, ${Date.now()}),
             (${`${claims[0]!.conversionId}-earlier`}, 'pull', '2025-06-14', 904, 'Gift card quiz', '', 1250, 1, ${Date.now()})`);
    await consume([ids]);
    const [event] = fake.received();
    expect(event!.properties).toEqual({
      value: 12.5,
      currency: "USD",
      content_type: "product",
      contents: [{ content_id: "904", content_name: "Gift card quiz", price: 12.5, quantity: 1 }],
    });
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
        failureKind: "setup",
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
    expect(await sendOf(bad)).toMatchObject({ status: "failed", failureKind: "refused", code: 40002, message: expect.stringContaining("event_time") });
    for (const c of claims.filter((c) => c.conversionId !== bad)) expect((await sendOf(c.conversionId)).status).toBe("sent");
    expect(fake.state.events.size).toBe(8);
    expect(fake.state.calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(9)));
  });

  it("skips the events as not configured when sending was switched off after they were queued (token unset), losing none", async () => {
    const { ids, claims } = await claimed(1);
    const result = await consume([ids], { env: testEnv({ TIKTOK_EVENTS_ACCESS_TOKEN: undefined }) });
    expect(result.explicitAcks).toHaveLength(1);
    expect(await sendOf(claims[0]!.conversionId)).toMatchObject({
      status: "skipped",
      skipReason: "not_configured",
      failureKind: null,
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
      failureKind: "temporary",
      message: expect.stringMatching(/^The queue gave up after its retries: TikTok's rate limit/),
    });
  });

  it("resends the failures that can succeed (TikTok's trouble, the token) and leaves those TikTok refused as malformed, saying how many of each", async () => {
    const { ids, claims } = await claimed(3);
    const [timedOut, badToken, malformed] = claims.map((c) => c.conversionId) as [string, string, string];
    await db().run(sql`update tiktok_event_sends set event_at = -5000 where conversion_id = ${malformed}`);
    // The first call is refused (a bad event among them); the halves find it, the others hit a
    // revoked token and the queue's last try.
    fake.failNext({ code: 40105, message: "Access token is incorrect or has been revoked" });
    await consume([[ids[1]!]]);
    await consume([[ids[2]!]]);
    fake.failNext({ code: 50002, message: "Internal error" });
    await consume([[ids[0]!]]);
    const dead = batchOf([[ids[0]!]], 11, TIKTOK_EVENTS_DLQ_NAME);
    await consumeDeadLetters(dead, testEnv());
    expect([await sendOf(timedOut), await sendOf(badToken), await sendOf(malformed)].map((r) => [r.status, r.failureKind])).toEqual([
      ["failed", "temporary"],
      ["failed", "setup"],
      ["failed", "refused"],
    ]);

    const admin = await makeAdmin();
    const status = (await (await call("/api/tiktok-events", { cookie: admin.cookie })).json()) as {
      failed: { temporary: number; setup: number; refused: number };
      failures: { conversionId: string; kind: string }[];
    };
    const counts = await db().all<{ kind: string; n: number }>(
      sql`select failure_kind as kind, count(*) as n from tiktok_event_sends where status = 'failed' group by 1`,
    );
    expect(status.failed).toEqual({ temporary: 0, setup: 0, refused: 0, ...Object.fromEntries(counts.map((r) => [r.kind, r.n])) });
    expect(status.failures).toEqual(expect.arrayContaining([expect.objectContaining({ conversionId: malformed, kind: "refused" })]));

    // Sending switched off: nothing is resent, and the answer says why.
    await configure({ pixelCode: "" });
    const off = await call("/api/tiktok-events/resend", { json: {}, cookie: admin.cookie });
    expect(off.status).toBe(409);
    expect(((await off.json()) as { error: string }).error).toMatch(/not configured \(no pixel code is set\)/);
    await configure();

    serveFake(fake);
    const res = await call("/api/tiktok-events/resend", { json: {}, cookie: admin.cookie });
    expect(res.status).toBe(200);
    await vi.waitUntil(async () => (await statusesOf(ids.slice(0, 2))).every((s) => s === "sent"), { timeout: 10_000, interval: 50 });
    expect(await sendOf(malformed)).toMatchObject({ status: "failed", failureKind: "refused" });
    expect(fake.received().map((e) => e.event_id)).not.toContain(malformed);
  });

  it("lets only the consumer holding the lease write the outcome: one whose lease ran out and was taken over changes nothing", async () => {
    const later = Date.now() + LEASE_MS + 1000;
    /** A leases the rows and its call is held at TikTok past its lease; B finds the lease run out, takes the rows, and its call is held too. */
    async function race(ids: number[], envOfB = testEnv()) {
      const holdA = fake.holdNext();
      const a = consume([ids]);
      await holdA.arrived;
      const holdB = fake.holdNext();
      const b = consume([ids], { env: envOfB, deps: { now: () => later } });
      await holdB.arrived;
      return { a, b, holdA, holdB };
    }

    // TikTok answers A first, refusing the token; then B, taking the events: B's result stands.
    const first = await claimed(2);
    const one = await race(first.ids);
    fake.failNext({ code: 40105, message: "Access token is incorrect or has been revoked" });
    one.holdA.release();
    await one.a;
    expect(await statusesOf(first.ids)).toEqual(["sending", "sending"]);
    one.holdB.release();
    await one.b;
    expect(await statusesOf(first.ids)).toEqual(["sent", "sent"]);

    // The other way round: A's late success does not overwrite B's failure (its token is revoked).
    const second = await claimed(2);
    const two = await race(second.ids, testEnv({ TIKTOK_EVENTS_ACCESS_TOKEN: "revoked-token" }));
    two.holdA.release();
    await two.a;
    expect(await statusesOf(second.ids)).toEqual(["sending", "sending"]);
    two.holdB.release();
    await two.b;
    const rows = await db().all<{ status: string; failureKind: string; attempts: number }>(
      sql`select status, failure_kind as failureKind, attempts from tiktok_event_sends where id in (${second.ids[0]!}, ${second.ids[1]!}) order by id`,
    );
    expect(rows).toEqual([
      { status: "failed", failureKind: "setup", attempts: 2 },
      { status: "failed", failureKind: "setup", attempts: 2 },
    ]);
  });

  it("starts a call only if it can end inside the batch's lease: a slow batch hands the rest back to the queue, which sends it", async () => {
    const { ids } = await claimed(1_100, { eventAt: Date.now() - 5_000 });
    // The first call takes 9 of the lease's 10 minutes: the second could not end in time.
    let clock = Date.now();
    const slow: ConsumeDeps = {
      now: () => clock,
      fetch: async (input, init) => {
        clock += 9 * 60 * 1000;
        return fake.fetch(input, init);
      },
    };
    const first = ids.slice(0, 1000);
    const rest = ids.slice(1000);
    const result = await consume([first, rest], { deps: slow });
    expect(fake.state.calls.map((c) => c.events)).toEqual([1000]);
    expect(result.explicitAcks).toEqual([expect.stringMatching(/-0$/)]);
    expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: expect.stringMatching(/-1$/) })]);
    expect(new Set(await statusesOf(first))).toEqual(new Set(["sent"]));
    expect(new Set(await statusesOf(rest))).toEqual(new Set(["queued"]));
    expect((await db().all<{ message: string }>(sql`select message from tiktok_event_sends where id = ${rest[0]!}`))[0]!.message).toMatch(/lease ran out/);

    await consume([rest], { attempts: 2 });
    expect(new Set(await statusesOf(ids))).toEqual(new Set(["sent"]));
    expect(fake.state.events.size).toBe(1_100);
  });

  it("doubles the retry delay per attempt, up to 30 minutes", () => {
    expect([1, 2, 3, 4].map((a) => retryDelaySeconds(a, {}))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(20, {})).toBe(1800);
    expect(retryDelaySeconds(3, { TIKTOK_EVENTS_RETRY_SECONDS: "1" })).toBe(4);
  });
});
