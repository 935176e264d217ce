import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runBuiltinAlerts } from "../src/alerts/run-builtin";
import type { AlertMessage, DeliverAlert } from "../src/schemas/alerts";
import { CLICKS_DELAY_THRESHOLD_SECONDS } from "../src/schemas/builtin-alerts";
import { CLICKS_QUEUE_NAME, consumeClicks, type QueuedClick } from "../src/tracking/click-queue";
import { clickIdFrom, d1Outage, setup, stored, until, visit } from "./click-queue-helpers";
import { bodyOf, client, db, makeAdmin, type TestUser } from "./helpers";

let outage: ReturnType<typeof d1Outage> | null = null;
afterEach(() => {
  outage?.restore();
  outage = null;
  vi.restoreAllMocks();
});

/** A delivery of one message of one click, sent to the queue `ageMs` ago, handed to the consumer. */
async function deliver(campaignId: number, ageMs: number) {
  const click: QueuedClick = { clickId: crypto.randomUUID(), campaignId, clickedAt: Date.now() - ageMs };
  const batch = createMessageBatch(CLICKS_QUEUE_NAME, [
    { id: crypto.randomUUID(), timestamp: new Date(Date.now() - ageMs), attempts: 1, body: { kind: "clicks", clicks: [click] } },
  ]);
  await consumeClicks(batch, env);
  return click;
}

const pipeline = async (admin: TestUser) => bodyOf(await client(admin).clicks.pipeline.$get(), 200);

const setThreshold = async (admin: TestUser, threshold: number | null) =>
  bodyOf(await client(admin)["builtin-alerts"][":alert"].$put({ param: { alert: "clicks-queue-backlog" }, json: { enabled: true, threshold } }), 200);

describe("the Click Log says when clicks are delayed", () => {
  it("a batch stored past the threshold after it was sent says delayed, a batch on time clears it, a failed batch says how long it has waited", async () => {
    const admin = await makeAdmin();
    const { campaignId } = await setup();
    const limit = (await pipeline(admin)).thresholdSeconds * 1000;

    await deliver(campaignId, limit + 90_000);
    const late = await pipeline(admin);
    expect(late).toMatchObject({ delayed: true, reason: "lag" });
    expect(late.delaySeconds).toBeGreaterThanOrEqual(limit / 1000 + 90);

    await deliver(campaignId, 500);
    expect(await pipeline(admin)).toMatchObject({ delayed: false, reason: "lag", delaySeconds: expect.any(Number) });

    // The clicks' write fails and D1 still takes the record of it: the wait is measured, and grows.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    outage = d1Outage();
    outage.failNth(1);
    const waiting = await deliver(campaignId, limit + 30_000);
    expect(outage.failed()).toBe(true);
    expect(await stored([waiting.clickId])).toEqual({ rows: 0, distinct: 0 });
    const failing = await pipeline(admin);
    expect(failing).toMatchObject({ delayed: true, reason: "failing" });
    expect(failing.delaySeconds).toBeGreaterThanOrEqual(limit / 1000 + 30);

    await deliver(campaignId, 200);
    expect((await pipeline(admin)).delayed).toBe(false);
  }, 30_000);
});

describe("the clicks queue backlog alert", () => {
  /** A deliverer that only records the backlog alert's messages. */
  function recorder() {
    const sent: AlertMessage[] = [];
    const deliver: DeliverAlert = async (_target, message) => {
      if (message.source.kind === "builtin" && message.source.alert === "clicks-queue-backlog") sent.push(message);
      return [];
    };
    return { sent, deliver };
  }

  it("is listed on by default with its threshold; a lag over it fires once, and back under starts a new occurrence", async () => {
    const admin = await makeAdmin();
    const list = await bodyOf(await client(admin)["builtin-alerts"].$get(), 200);
    expect(list.find((a) => a.key === "clicks-queue-backlog")).toMatchObject({ enabled: true, threshold: CLICKS_DELAY_THRESHOLD_SECONDS });
    const { campaignId } = await setup();
    const r = recorder();
    const limit = CLICKS_DELAY_THRESHOLD_SECONDS * 1000;

    // On time: nothing, and the check notes it.
    await deliver(campaignId, 300);
    await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
    expect(r.sent).toEqual([]);

    await deliver(campaignId, limit + 120_000);
    await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
    await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toMatchObject({ title: "Clicks queue backlog", severity: "warning", link: "/clicks" });
    expect(Number(r.sent[0]!.facts.find((f) => f.label === "Behind by")!.value.replace(/[^\d]/g, ""))).toBeGreaterThanOrEqual(limit / 1000 + 120);

    // Back under the threshold, then behind again: a new occurrence.
    await deliver(campaignId, 300);
    await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
    expect(r.sent).toHaveLength(1);
    await deliver(campaignId, limit + 60_000);
    await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
    expect(r.sent).toHaveLength(2);

    // A higher number lets the same lag pass.
    try {
      await setThreshold(admin, 3_600);
      await deliver(campaignId, 300);
      await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
      await deliver(campaignId, limit + 60_000);
      await runBuiltinAlerts(db(), r.deliver, Date.now(), env.CLICK_SHARDS);
      expect(r.sent).toHaveLength(2);
    } finally {
      await setThreshold(admin, null);
    }
  }, 30_000);
});

describe("D1 refusing every write for 10 s under load", () => {
  it("/r/ keeps answering; the Click Log says clicks may be delayed during it; afterwards every answered click is stored exactly once", async () => {
    const admin = await makeAdmin();
    // The notice's number at 5 s, so a 10 s outage crosses it.
    await setThreshold(admin, 5);
    try {
      const { campaignId } = await setup();
      const warm = await visit(`/r/${campaignId}`, "198.51.100.31");
      expect(warm.res.status).toBe(302);
      await warm.settled;
      // Its batch stored: the pipeline state is this test's, on time.
      await until(async () => (await stored([clickIdFrom(warm.res)])).rows === 1, 30_000);
      vi.spyOn(console, "error").mockImplementation(() => undefined);
      vi.spyOn(console, "warn").mockImplementation(() => undefined);

      outage = d1Outage({ writesOnly: true });
      const answered: string[] = [clickIdFrom(warm.res)];
      const background: Promise<unknown>[] = [];
      const seen: { phase: "before" | "down" | "after"; delayed: boolean; reason: string | null; delaySeconds: number }[] = [];
      const started = Date.now();
      const outageAt = started + 6_000;
      const endAt = started + 19_000;
      let outageStarted = false;
      let n = 0;
      const visitors = Array.from({ length: 20 }, async () => {
        while (Date.now() < endAt) {
          // Lets the Worker's timers (its click batches) run between visitors.
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (!outageStarted && Date.now() >= outageAt) {
            outageStarted = true;
            outage!.start(10_000);
          }
          const i = ++n;
          const { res, settled } = await visit(`/r/${campaignId}?cid=17990031&plc=outage`, `10.31.${(i >> 8) & 255}.${i & 255}`);
          background.push(settled);
          expect(res.status).toBe(302);
          answered.push(clickIdFrom(res));
        }
      });
      // The Click Log's pipeline state, read every half second as the screen would (reads still work).
      const watcher = (async () => {
        while (Date.now() < endAt) {
          const before = !outageStarted;
          const down = outage!.isDown();
          const state = await pipeline(admin);
          const phase = before && !outageStarted ? "before" : down && outage!.isDown() ? "down" : "after";
          seen.push({ phase, delayed: state.delayed, reason: state.reason, delaySeconds: state.delaySeconds });
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      })();
      await Promise.all([...visitors, watcher]);

      expect(answered.length).toBeGreaterThan(150);
      // Before the outage clicks were on time; during it, once nothing was stored for 5 s, the Click Log said they may be delayed.
      const before = seen.filter((s) => s.phase === "before");
      expect(before.length).toBeGreaterThan(3);
      expect(before.filter((s) => s.delayed)).toEqual([]);
      expect(seen.some((s) => s.phase === "down" && s.delayed && s.reason === "silent")).toBe(true);

      await Promise.all(background);
      await until(async () => !outage!.isDown() && (await stored(answered)).rows === answered.length, 90_000);
      expect(await stored(answered)).toEqual({ rows: answered.length, distinct: answered.length });
    } finally {
      outage?.restore();
      outage = null;
      await setThreshold(admin, null);
    }
  }, 180_000);
});
