import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { campaigns, clicks, landerClicks } from "../src/db/schema";
import { CAMPAIGN_CACHE_TTL_MS, STALE_IF_ERROR_MS, trackedCampaign } from "../src/tracking/campaign-cache";
import worker from "../src/index";
import { CLICKS_RETRY_DLQ_NAME, consumeClickDeadLetters, DLQ_ATTEMPTS, type RetriedClick } from "../src/tracking/click-retry";
import { DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
import { db } from "./helpers";

const HOST = "https://trk.retry.test";

async function setup() {
  const lander = await insertLander(db(), { name: "Lander", url: "https://lander.test/lp" }).get();
  const offer = await insertOffer(db(), { name: "Offer", url: "https://offer.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE }).get();
  const campaign = await insertCampaign(db(), { name: "Retried", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
  return { campaignId: campaign.id, offerId: offer.id };
}

/** A visitor's request through the Worker's fetch; its background writes go on (`settled`). */
async function visit(path: string, ip: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${HOST}${path}`, { headers: { "cf-connecting-ip": ip }, redirect: "manual" }), env, ctx);
  return { res, settled: waitOnExecutionContext(ctx) };
}
const clickIdFrom = (res: Response) => new URL(res.headers.get("location")!).searchParams.get("clickId")!;

/** How many of these clicks D1 holds, and how many rows they take (a click written twice would be two). */
async function stored(ids: string[]) {
  const [row] = await db().all<{ rows: number; distinct: number }>(sql`
    select count(*) as rows, count(distinct click_id) as "distinct" from clicks where click_id in (select value from json_each(${JSON.stringify(ids)}))`);
  return row!;
}

/** Waits until `check` holds (polling D1), or fails after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs: number) {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`still not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * D1 down for everyone in this isolate: the Worker's requests, its queue consumer, the test itself.
 * The D1 binding's own classes are patched (its queries fail as a lost connection does) for
 * `ms`, from `startAt`; restore() puts them back.
 */
function d1Outage() {
  const database = Object.getPrototypeOf(env.DB) as Record<string, unknown>;
  const statement = Object.getPrototypeOf(env.DB.prepare("select 1")) as Record<string, unknown>;
  const patched: [Record<string, unknown>, string, unknown][] = [];
  let downFrom = Infinity;
  let downUntil = -Infinity;
  const down = () => Date.now() >= downFrom && Date.now() < downUntil;
  const patch = (target: Record<string, unknown>, name: string) => {
    const original = target[name] as (...args: unknown[]) => Promise<unknown>;
    patched.push([target, name, original]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      if (down()) return Promise.reject(new Error("D1_ERROR: Network connection lost. (the test's outage)"));
      return original.apply(this, args);
    };
  };
  patch(database, "batch");
  patch(database, "exec");
  for (const name of ["first", "all", "run", "raw"]) patch(statement, name);
  return {
    start(ms: number) {
      downFrom = Date.now();
      downUntil = downFrom + ms;
    },
    isDown: down,
    restore() {
      for (const [target, name, original] of patched) target[name] = original;
    },
  };
}

let outage: ReturnType<typeof d1Outage> | null = null;
afterEach(() => {
  outage?.restore();
  outage = null;
  vi.restoreAllMocks();
});

describe("clicks survive a failed batch", () => {
  it("D1 down for 5 s under load: every answered click is stored once, and the exits of clicks that went through the retry queue too", async () => {
    const { campaignId } = await setup();
    // The campaign in the isolate's cache, as on a live tracking host.
    const warm = await visit(`/r/${campaignId}`, "198.51.100.1");
    expect(warm.res.status).toBe(302);
    await warm.settled;
    const warn = vi.spyOn(console, "warn");
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
    // Every answered click lands, the ones D1 refused by way of the retry queue.
    await Promise.all(background);
    await until(async () => !outage!.isDown() && (await stored(answered)).rows === answered.length, 90_000);
    expect(await stored(answered)).toEqual({ rows: answered.length, distinct: answered.length });
    expect(warn.mock.calls.some(([line]) => /clicks sent to the retry queue$/.test(String(line)))).toBe(true);
    // Nothing was given up on: no "not stored and not queued", no lost exit.
    expect(error.mock.calls.filter(([line]) => /not queued|exit not stored/.test(String(line)))).toEqual([]);
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

  it("D1 down after the campaign's time in memory ran out: visitors still reach the lander and the offer, and the exit of a stored click goes through the retry queue", async () => {
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
    expect(error.mock.calls.filter(([line]) => /not queued|exit not stored/.test(String(line)))).toEqual([]);
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
    const click = (at: number, campaign = campaignId): RetriedClick => ({
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
    await env.CLICKS_RETRY_QUEUE.send({ kind: "clicks", clicks: [already, fresh, orphan] });
    await env.CLICKS_RETRY_QUEUE.send({ kind: "clicks", clicks: [fresh, already] });
    await until(async () => (await stored([fresh.clickId])).rows === 1, 30_000);
    // Both messages consumed (a failing one would be retried and never settle): one row each.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await stored([already.clickId, fresh.clickId, orphan.clickId])).toEqual({ rows: 2, distinct: 2 });
    expect((await db().select().from(clicks).where(eq(clicks.clickId, fresh.clickId)))[0]).toMatchObject({ placement: "queue", clickedAt: fresh.clickedAt });
  }, 60_000);

  it("an exit that reaches the queue before its click is recorded once the click lands", async () => {
    const { campaignId, offerId } = await setup();
    const clickId = crypto.randomUUID();
    const at = 1_750_000_100_000;
    await env.CLICKS_RETRY_QUEUE.send({ kind: "exit", exit: { clickId, offerId, ipAddress: "192.0.2.7", userAgent: "Phone", at: at + 30_000 } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toEqual([]);
    await env.CLICKS_RETRY_QUEUE.send({ kind: "clicks", clicks: [{ clickId, campaignId, clickedAt: at }] });
    await until(async () => (await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).length === 1, 30_000);
    expect((await db().select().from(clicks).where(eq(clicks.clickId, clickId)))[0]).toMatchObject({ exitedAt: at + 30_000 });
    // The same exit again (delivered twice): still one exit row.
    await env.CLICKS_RETRY_QUEUE.send({ kind: "exit", exit: { clickId, offerId, ipAddress: "192.0.2.7", userAgent: "Phone", at: at + 30_000 } });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
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
    const failing = createMessageBatch(CLICKS_RETRY_DLQ_NAME, [
      message("early", { kind: "clicks", clicks: [kept] }, 1),
      message("last", { kind: "clicks", clicks: [lost] }, DLQ_ATTEMPTS),
    ]);
    const ctx = createExecutionContext();
    await consumeClickDeadLetters(failing, env);
    const result = await getQueueResult(failing, ctx);
    expect(result.retryMessages).toEqual([{ msgId: "early" }]);
    expect(result.explicitAcks).toEqual(["last"]);
    expect(error).toHaveBeenCalledWith(`click retry queue: 1 clicks lost after every retry: ${lost.clickId}`, expect.any(Error));
    outage.restore();
    outage = null;
    const later = createMessageBatch(CLICKS_RETRY_DLQ_NAME, [message("early", { kind: "clicks", clicks: [kept] }, 2)]);
    await consumeClickDeadLetters(later, env);
    expect((await getQueueResult(later, createExecutionContext())).explicitAcks).toEqual(["early"]);
    expect(await stored([kept.clickId])).toEqual({ rows: 1, distinct: 1 });
  }, 60_000);
});
