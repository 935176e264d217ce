import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { campaigns, clicks, landerClicks } from "../src/db/schema";
import { CAMPAIGN_CACHE_TTL_MS, STALE_IF_ERROR_MS, trackedCampaign } from "../src/tracking/campaign-cache";
import {
  CLICKS_DLQ_NAME,
  CLICKS_QUEUE_NAME,
  consumeClickDeadLetters,
  consumeClicks,
  DLQ_ATTEMPTS,
  sendClickMessages,
  type ClickMessage,
  type QueuedClick,
} from "../src/tracking/click-queue";
import { countD1 } from "./d1-counter";
import { clickIdFrom, d1Outage, setup, stored, until, visit } from "./click-queue-helpers";
import { clicksWritten, db } from "./helpers";

/** Messages as the Worker sends them (counted for clicksWritten). */
const send = (...messages: ClickMessage[]) => sendClickMessages(env.CLICKS_QUEUE, messages);

let outage: ReturnType<typeof d1Outage> | null = null;
afterEach(() => {
  outage?.restore();
  outage = null;
  vi.restoreAllMocks();
});

describe("clicks through the queue survive D1 failing", () => {
  it("D1 down for 5 s under load: every answered click is stored once, and every exit, once D1 is back", async () => {
    const { campaignId } = await setup();
    // The campaign in the isolate's cache, as on a live tracking host.
    const warm = await visit(`/r/${campaignId}`, "198.51.100.1");
    expect(warm.res.status).toBe(302);
    await warm.settled;
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);

    outage = d1Outage();
    let outageStarted = false;
    const answered: string[] = [clickIdFrom(warm.res)];
    const duringOutage: string[] = [];
    const background: Promise<unknown>[] = [];
    const started = Date.now();
    const endAt = started + 9_000;
    let n = 0;
    // 20 visitors at a time, each from its own address, for 9 s; D1 fails from 2 s to 7 s.
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (Date.now() < endAt) {
          // A visitor at a time per loop, letting the Worker's timers (its click batches) run between.
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (n > 0 && Date.now() >= started + 2_000 && !outageStarted) {
            outageStarted = true;
            outage!.start(5_000);
          }
          const i = ++n;
          const { res, settled } = await visit(`/r/${campaignId}?cid=17990001&plc=load`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
          background.push(settled);
          if (res.status !== 302) continue;
          const id = clickIdFrom(res);
          answered.push(id);
          if (outage!.isDown()) duringOutage.push(id);
        }
      }),
    );
    // Visitors leaving the lander of clicks answered during the outage, while D1 is still down.
    // The first of them was stored before the outage: only D1 could say which campaign it was.
    const leaving = [answered[0]!, ...duringOutage.slice(0, 19)];
    if (!outage.isDown()) outage.start(2_000);
    // As the exit-tracker script sends them, with the cid the lander URL carried: a click whose
    // retried write landed after all is no longer held in memory, and D1 cannot be asked for it.
    const exits = await Promise.all(leaving.map((id, i) => visit(`/click?clickId=${id}&cid=${campaignId}`, `192.0.2.${i + 1}`)));
    expect(exits.map((e) => e.res.status)).toEqual(leaving.map(() => 302));
    expect(exits.every((e) => e.res.headers.get("location")!.startsWith("https://offer.test/go"))).toBe(true);
    background.push(...exits.map((e) => e.settled));

    expect(answered.length).toBeGreaterThan(100);
    expect(duringOutage.length).toBeGreaterThan(20);
    // Every answered click lands, the ones D1 refused once the consumer's retries find it back.
    await Promise.all(background);
    await until(async () => !outage!.isDown() && (await stored(answered)).rows === answered.length, 90_000);
    expect(await stored(answered)).toEqual({ rows: answered.length, distinct: answered.length });
    // The consumer's writes failed and were retried; nothing was given up on.
    expect(error.mock.calls.some(([line]) => /^clicks queue: \d+ clicks not stored yet/.test(String(line)))).toBe(true);
    expect(error.mock.calls.filter(([line]) => /not queued|lost after/.test(String(line)))).toEqual([]);
    await until(
      async () =>
        (
          await db()
            .select()
            .from(landerClicks)
            .where(sql`${landerClicks.clickId} in (select value from json_each(${JSON.stringify(leaving)}))`)
        ).length === leaving.length,
      60_000,
    );
    const exited = await db()
      .select({ exitedAt: clicks.exitedAt })
      .from(clicks)
      .where(sql`${clicks.clickId} in (select value from json_each(${JSON.stringify(leaving)}))`);
    expect(exited.filter((c) => c.exitedAt !== null)).toHaveLength(leaving.length);
    expect(Date.now() - started).toBeLessThan(120_000);
  }, 180_000);

  it("D1 down after the campaign's time in memory ran out: visitors still reach the lander and the offer, and the click and exit are stored once D1 is back", async () => {
    const { campaignId } = await setup();
    const first = await visit(`/r/${campaignId}?cid=17990002`, "198.51.100.2");
    expect(first.res.status).toBe(302);
    await first.settled;
    const storedId = clickIdFrom(first.res);
    await until(async () => (await stored([storedId])).rows === 1, 30_000);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const warn = vi.spyOn(console, "warn");

    // Past the cache's TTL (31 s on), with D1 failing every read.
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + CAMPAIGN_CACHE_TTL_MS + 1_000);
    outage = d1Outage();
    outage.start(10_000);
    const during = await visit(`/r/${campaignId}?cid=17990002`, "198.51.100.3");
    expect(during.res.status).toBe(302);
    expect(during.res.headers.get("location")).toMatch(/^https:\/\/lander\.test\/lp\?cid=\d+&clickId=/);
    const exit = await visit(`/click?clickId=${storedId}&cid=${campaignId}`, "198.51.100.2");
    expect(exit.res.status).toBe(302);
    // The click id still goes on in sub2 (the default template), so its conversion is credited.
    expect(new URL(exit.res.headers.get("location")!).searchParams.get("sub2")).toBe(storedId);
    await Promise.all([during.settled, exit.settled]);
    // Logged once for the campaign, not once per visitor.
    expect(warn.mock.calls.filter(([line]) => String(line).startsWith(`campaign ${campaignId} answered from memory`))).toHaveLength(1);
    outage.restore();
    outage = null;
    vi.mocked(Date.now).mockRestore();

    const newId = clickIdFrom(during.res);
    await until(async () => (await stored([newId])).rows === 1, 30_000);
    await until(async () => (await db().select().from(landerClicks).where(eq(landerClicks.clickId, storedId))).length === 1, 30_000);
    expect(error.mock.calls.filter(([line]) => /not queued|lost after/.test(String(line)))).toEqual([]);
  }, 60_000);

  it("memory answers for a campaign for at most STALE_IF_ERROR_MS after D1 last gave it; a campaign never read is not guessed", async () => {
    const { campaignId } = await setup();
    const other = await setup();
    const allow = async () => true;
    const readAt = Date.now();
    expect(await trackedCampaign(db(), campaignId, allow, readAt)).toMatchObject({ id: campaignId });
    outage = d1Outage();
    outage.start(60_000);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(await trackedCampaign(db(), campaignId, allow, readAt + STALE_IF_ERROR_MS - 1_000)).toMatchObject({ id: campaignId });
    // The campaign is read in one D1 batch with its paths, whose failure D1 reports as its own error.
    await expect(trackedCampaign(db(), campaignId, allow, readAt + STALE_IF_ERROR_MS + 1)).rejects.toThrow(/the test's outage/);
    await expect(trackedCampaign(db(), other.campaignId, allow, readAt)).rejects.toThrow(/the test's outage/);
  });

  it("the consumer writes clicks by clickId: one already stored is left alone, one of a deleted campaign dropped, none fails", async () => {
    const { campaignId } = await setup();
    const doomed = await setup();
    const click = (at: number, campaign = campaignId): QueuedClick => ({
      clickId: crypto.randomUUID(),
      campaignId: campaign,
      clickedAt: at,
      placement: "queue",
    });
    const already = click(1_750_000_000_000);
    await db().insert(clicks).values(already);
    const fresh = click(1_750_000_001_000);
    const orphan = click(1_750_000_002_000, doomed.campaignId);
    await db().delete(campaigns).where(eq(campaigns.id, doomed.campaignId));
    // The same message twice (a queue delivers at least once), with the click stored meanwhile.
    await send({ kind: "clicks", clicks: [already, fresh, orphan] });
    await send({ kind: "clicks", clicks: [fresh, already] });
    // Both messages consumed (a failing one would be retried and never settle): one row each.
    await clicksWritten();
    expect(await stored([already.clickId, fresh.clickId, orphan.clickId])).toEqual({ rows: 2, distinct: 2 });
    expect((await db().select().from(clicks).where(eq(clicks.clickId, fresh.clickId)))[0]).toMatchObject({ placement: "queue", clickedAt: fresh.clickedAt });
  }, 60_000);

  it("an exit that reaches the queue before its click is recorded once the click lands", async () => {
    const { campaignId, offerId } = await setup();
    const clickId = crypto.randomUUID();
    const at = 1_750_000_100_000;
    await send({ kind: "exit", exit: { clickId, offerId, ipAddress: "192.0.2.7", userAgent: "Phone", at: at + 30_000 } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toEqual([]);
    await send({ kind: "clicks", clicks: [{ clickId, campaignId, clickedAt: at }] });
    await clicksWritten();
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toHaveLength(1);
    expect((await db().select().from(clicks).where(eq(clicks.clickId, clickId)))[0]).toMatchObject({ exitedAt: at + 30_000 });
    // The same exit again (delivered twice): still one exit row.
    await send({ kind: "exit", exit: { clickId, offerId, ipAddress: "192.0.2.7", userAgent: "Phone", at: at + 30_000 } });
    await clicksWritten();
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toHaveLength(1);
  }, 60_000);

  it("the dead-letter queue tries again, and after its last try logs the clicks it could not store by clickId", async () => {
    const { campaignId } = await setup();
    const lost = { clickId: crypto.randomUUID(), campaignId, clickedAt: 1_750_000_200_000 };
    const kept = { clickId: crypto.randomUUID(), campaignId, clickedAt: 1_750_000_300_000 };
    const message = (id: string, body: unknown, attempts: number) => ({ id, timestamp: new Date(), attempts, body });
    outage = d1Outage();
    outage.start(60_000);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failing = createMessageBatch(CLICKS_DLQ_NAME, [
      message("early", { kind: "clicks", clicks: [kept] }, 1),
      message("last", { kind: "clicks", clicks: [lost] }, DLQ_ATTEMPTS),
    ]);
    const ctx = createExecutionContext();
    await consumeClickDeadLetters(failing, env);
    const result = await getQueueResult(failing, ctx);
    expect(result.retryMessages).toEqual([{ msgId: "early" }]);
    expect(result.explicitAcks).toEqual(["last"]);
    expect(error).toHaveBeenCalledWith(`clicks queue: 1 clicks and 0 exits lost after every retry: clicks ${lost.clickId}; exits of none`, expect.any(Error));
    outage.restore();
    outage = null;
    const later = createMessageBatch(CLICKS_DLQ_NAME, [message("early", { kind: "clicks", clicks: [kept] }, 2)]);
    await consumeClickDeadLetters(later, env);
    expect((await getQueueResult(later, createExecutionContext())).explicitAcks).toEqual(["early"]);
    expect(await stored([kept.clickId])).toEqual({ rows: 1, distinct: 1 });
  }, 60_000);

  it("/r/ and /click answer without writing to D1: the consumer writes the click, then its exit, and the postback finds it", async () => {
    const { campaignId, offerId } = await setup();
    const warm = await visit(`/r/${campaignId}`, "198.51.100.20");
    await warm.settled;
    await clicksWritten();
    // The requests' own D1, counted: the consumer writes through the Worker's real binding.
    const counted = countD1(env.DB);
    const requestEnv = { ...env, DB: counted.db };
    const r = await visit(`/r/${campaignId}?cid=17990020&plc=feed`, "198.51.100.21", requestEnv);
    expect(r.res.status).toBe(302);
    const clickId = clickIdFrom(r.res);
    // The exit at once, before the consumer has written the click: the isolate still holds it.
    const exit = await visit(`/click?clickId=${clickId}&cid=${campaignId}`, "198.51.100.21", requestEnv);
    expect(exit.res.status).toBe(302);
    const offerUrl = new URL(exit.res.headers.get("location")!);
    expect(offerUrl.searchParams.get("sub2")).toBe(clickId);
    await Promise.all([r.settled, exit.settled]);
    expect(counted.tally).toEqual({ queries: 0, batches: 0 });
    await clicksWritten();
    expect(await stored([clickId])).toEqual({ rows: 1, distinct: 1 });
    expect(await db().select({ offerId: landerClicks.offerId }).from(landerClicks).where(eq(landerClicks.clickId, clickId))).toEqual([{ offerId }]);
    expect((await db().select({ exitedAt: clicks.exitedAt, placement: clicks.placement }).from(clicks).where(eq(clicks.clickId, clickId)))[0]).toMatchObject({
      placement: "feed",
      exitedAt: expect.any(Number),
    });
  });

  it("a message delivered twice, or again after the consumer died part way, stores each click and exit once", async () => {
    const { campaignId, offerId } = await setup();
    const at = 1_750_000_400_000;
    const batchClicks: QueuedClick[] = Array.from({ length: 5 }, (_, i) => ({ clickId: crypto.randomUUID(), campaignId, clickedAt: at + i }));
    const exits = batchClicks.slice(0, 3).map((c, i) => ({ clickId: c.clickId, offerId, ipAddress: null, userAgent: null, at: at + 10_000 + i }));
    const body: ClickMessage = { kind: "clicks", clicks: batchClicks, exits };
    const message = (id: string, attempts: number) => ({ id, timestamp: new Date(), attempts, body });
    // The same message twice in one delivery, then once more in another.
    const twice = createMessageBatch(CLICKS_QUEUE_NAME, [message("a", 1), message("b", 1)]);
    await consumeClicks(twice, env);
    expect((await getQueueResult(twice, createExecutionContext())).explicitAcks.sort()).toEqual(["a", "b"]);
    const again = createMessageBatch(CLICKS_QUEUE_NAME, [message("a", 2)]);
    await consumeClicks(again, env);
    expect((await getQueueResult(again, createExecutionContext())).explicitAcks).toEqual(["a"]);
    const ids = batchClicks.map((c) => c.clickId);
    expect(await stored(ids)).toEqual({ rows: 5, distinct: 5 });
    const exitRows = await db()
      .select()
      .from(landerClicks)
      .where(sql`${landerClicks.clickId} in (select value from json_each(${JSON.stringify(ids)}))`);
    expect(exitRows).toHaveLength(3);
  });

  it("the consumer killed mid-batch (its D1 failing at any statement) loses nothing and stores every answered click and exit exactly once", async () => {
    const { campaignId } = await setup();
    const warm = await visit(`/r/${campaignId}`, "198.51.100.30");
    await warm.settled;
    await clicksWritten();
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    outage = d1Outage();
    // The consumer's D1 calls for a batch of 20 clicks and their exits: the clicks' insert (1), the
    // batch's lag recorded (2), then per exit a look for its click and a batch (3, 4; 5, 6; ...).
    // Killed at the first, at the record, between the clicks and the exits, and between two exits.
    for (const nth of [1, 2, 3, 4, 6, 9]) {
      outage.failNth(nth);
      const answered: string[] = [];
      const background: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await visit(`/r/${campaignId}?cid=1799003${nth}&plc=kill`, `10.30.${nth}.${i + 1}`);
        expect(r.res.status).toBe(302);
        answered.push(clickIdFrom(r.res));
        background.push(r.settled);
      }
      for (const id of answered.slice(0, 10)) {
        const exit = await visit(`/click?clickId=${id}&cid=${campaignId}`, "198.51.100.31");
        expect(exit.res.status).toBe(302);
        background.push(exit.settled);
      }
      await Promise.all(background);
      await clicksWritten(60_000);
      expect(outage.failed(), `D1 call ${nth} was made and failed`).toBe(true);
      expect(await stored(answered), `killed at D1 call ${nth}`).toEqual({ rows: 20, distinct: 20 });
      const exitRows = await db()
        .select({ clickId: landerClicks.clickId })
        .from(landerClicks)
        .where(sql`${landerClicks.clickId} in (select value from json_each(${JSON.stringify(answered)}))`);
      expect(exitRows.map((e) => e.clickId).sort(), `killed at D1 call ${nth}`).toEqual(answered.slice(0, 10).sort());
    }
    // Each kill was retried, none given up on; a lost record of the lag is only noted (its clicks are stored).
    expect(error.mock.calls.filter(([line]) => /not stored yet/.test(String(line))).length).toBe(5);
    expect(error.mock.calls.filter(([line]) => /lag not recorded/.test(String(line))).length).toBe(1);
    expect(error.mock.calls.filter(([line]) => /lost after|not queued/.test(String(line)))).toEqual([]);
  }, 120_000);
});
