import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { alertDeliverer } from "../src/alerts/deliver";
import { runBuiltinAlerts } from "../src/alerts/run-builtin";
import {
  builtinAlertFirings,
  cakeAttributedDaily,
  cakeConversions,
  clickArchiveRuns,
  clickShardDays,
  notifications,
  refusedClicks,
  syncRuns,
  tiktokEventSends,
} from "../src/db/schema";
import type { Bindings } from "../src/env";
import type { AlertMessage, AlertTarget, DeliverAlert } from "../src/schemas/alerts";
import type { BuiltinAlertKey } from "../src/schemas/builtin-alerts";
import { createSlackFake } from "./fakes/slack-fake";
import { bodyOf, client, db, makeAdmin, uniqueName } from "./helpers";
import { seedCampaign, seedClicks, seedSpend } from "./stats-helpers";
import { clickDayOf, shardName } from "../src/tracking/click-id";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

afterEach(() => vi.restoreAllMocks());

/** A deliverer that only records: what each run sent, and to whom. */
function recorder() {
  const sent: { target: AlertTarget; message: AlertMessage }[] = [];
  const deliver: DeliverAlert = async (target, message) => {
    sent.push({ target, message });
    return [];
  };
  return { sent, deliver, of: (alert: BuiltinAlertKey) => sent.filter((s) => s.message.source.kind === "builtin" && s.message.source.alert === alert) };
}

/**
 * Each test's own instant, months apart, so one test's rows never fall in another's windows (the
 * storage is shared by the file). Whole hours, for the report day to be the UTC day.
 */
let month = 0;
const ownNow = () => Date.UTC(2030, month++, 10, 12);

const factsOf = (m: AlertMessage) => Object.fromEntries(m.facts.map((f) => [f.label, f.value]));

describe("the built-in alerts", () => {
  it("CAKE postback silent: clicks flow, no postback for 3 hours, the same hours last week had some; fires once per silence", async () => {
    const now = ownNow();
    const campaignId = await seedCampaign();
    await seedClicks([
      { campaignId, at: now - HOUR },
      { campaignId, at: now - 2 * HOUR },
    ]);
    const lastWeek = now - 7 * DAY - HOUR;
    const id = uniqueName("pb");
    await db()
      .insert(cakeConversions)
      .values([
        { conversionId: `${id}-a`, source: "postback", date: "2030-01-01", counted: true, postbackAt: lastWeek },
        { conversionId: `${id}-b`, source: "postback", date: "2030-01-01", counted: true, postbackAt: now - 5 * HOUR },
      ]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    const [fired] = r.of("postback-silent");
    expect(fired!.target).toEqual({ admins: true, channelIds: expect.any(Array) });
    expect(fired!.message).toMatchObject({ title: "CAKE postback silent", severity: "critical" });
    expect(factsOf(fired!.message)).toMatchObject({ "Clicks, last 3 h": "2", "Postbacks, last 3 h": "0", "Postbacks, same hours last week": "1" });

    // The next run sees the same silence: nothing new.
    await runBuiltinAlerts(db(), r.deliver, now + 15 * 60_000, env.CLICK_SHARDS);
    expect(r.of("postback-silent")).toHaveLength(1);

    // A postback arrives: no alert while postbacks flow.
    await db()
      .insert(cakeConversions)
      .values({ conversionId: `${id}-c`, source: "postback", date: "2030-01-01", counted: true, postbackAt: now + 20 * 60_000 });
    await runBuiltinAlerts(db(), r.deliver, now + 30 * 60_000, env.CLICK_SHARDS);
    expect(r.of("postback-silent")).toHaveLength(1);
  });

  it("CAKE postback silent counts clicks stored in shard-day objects as clicks that kept coming", async () => {
    const now = ownNow();
    const campaignId = await seedCampaign();
    await fixShardDays(db(), 2, now);
    try {
      const place = { day: clickDayOf(now - HOUR), shard: 1 };
      await env.CLICK_SHARDS.getByName(shardName(place)).write([
        { clickId: uniqueName("sharded-a"), campaignId, clickedAt: now - HOUR },
        { clickId: uniqueName("sharded-b"), campaignId, clickedAt: now - HOUR + 1 },
      ]);
      await db()
        .insert(cakeConversions)
        .values({ conversionId: uniqueName("pb"), source: "postback", date: "2030-01-01", counted: true, postbackAt: now - 7 * DAY - HOUR });
      const r = recorder();
      await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
      const [fired] = r.of("postback-silent");
      expect(factsOf(fired!.message)).toMatchObject({ "Clicks, last 3 h": "2", "Postbacks, last 3 h": "0" });
    } finally {
      await db().delete(clickShardDays);
      forgetShardCounts();
    }
  });

  it("CAKE postback silent stays quiet when last week had no postbacks either (a quiet offer is not a broken postback)", async () => {
    const now = ownNow();
    const campaignId = await seedCampaign();
    await seedClicks([{ campaignId, at: now - HOUR }]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    expect(r.of("postback-silent")).toEqual([]);
  });

  it("TikTok spend without conversions: a campaign past $50 today with none attributed fires once that day; one with a conversion does not", async () => {
    const now = ownNow();
    const day = new Date(now).toISOString().slice(0, 10);
    const [dry, fine, small] = [uniqueName("tt"), uniqueName("tt"), uniqueName("tt")];
    await seedSpend([
      { date: day, tt: dry, cents: 8_412, name: "Dry campaign" },
      { date: day, tt: fine, cents: 9_000, name: "Converting" },
      { date: day, tt: small, cents: 1_000, name: "Small" },
    ]);
    await db().insert(cakeAttributedDaily).values({ date: day, tiktokCampaignId: fine, conversions: 2, revenueCents: 5000 });
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    await runBuiltinAlerts(db(), r.deliver, now + HOUR, env.CLICK_SHARDS);
    const fired = r.of("spend-without-conversions");
    expect(fired.map((f) => f.message.title)).toEqual(["TikTok spend without conversions: Dry campaign"]);
    expect(factsOf(fired[0]!.message)).toMatchObject({ [`Spend ${day}`]: "$84.12", Conversions: "0" });
  });

  it("the number is editable: spend without conversions at $100 lets $84 pass", async () => {
    const admin = await makeAdmin();
    const res = await client(admin)["builtin-alerts"][":alert"].$put({
      param: { alert: "spend-without-conversions" },
      json: { enabled: true, threshold: 100 },
    });
    await bodyOf(res, 200);
    const now = ownNow();
    const day = new Date(now).toISOString().slice(0, 10);
    await seedSpend([{ date: day, tt: uniqueName("tt"), cents: 8_412 }]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    expect(r.of("spend-without-conversions")).toEqual([]);
    await bodyOf(
      await client(admin)["builtin-alerts"][":alert"].$put({ param: { alert: "spend-without-conversions" }, json: { enabled: true, threshold: null } }),
      200,
    );
  });

  it("a sync failing 3 times running fires once per streak, naming the last error; a good run ends the streak", async () => {
    const now = ownNow();
    const run = (status: "ok" | "error", at: number, error: string | null = null) => ({
      source: "tiktok" as const,
      trigger: "cron" as const,
      status,
      startedAt: at,
      finishedAt: at + 1000,
      error,
    });
    await db()
      .insert(syncRuns)
      .values([run("ok", now - 4 * HOUR), run("error", now - 3 * HOUR, "TikTok: 40105"), run("error", now - 2 * HOUR, "TikTok: 40105")]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    expect(r.of("sync-failing")).toEqual([]);
    await db()
      .insert(syncRuns)
      .values(run("error", now - HOUR, "TikTok: access token expired (40105)"));
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    await db()
      .insert(syncRuns)
      .values(run("error", now - HOUR / 2, "again"));
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    expect(r.of("sync-failing").map((f) => f.message.text)).toEqual([
      expect.stringContaining("TikTok sync failed 3 times running. Last error: TikTok: access token expired (40105)"),
    ]);
    // A good run, then a new streak: a new occurrence.
    await db()
      .insert(syncRuns)
      .values([run("ok", now), run("error", now + HOUR), run("error", now + 2 * HOUR), run("error", now + 3 * HOUR)]);
    await runBuiltinAlerts(db(), r.deliver, now + 3 * HOUR, env.CLICK_SHARDS);
    expect(r.of("sync-failing")).toHaveLength(2);
  });

  it("Events API failures in the last 24 hours fire once a day with the count and TikTok's last message", async () => {
    const now = ownNow();
    const id = uniqueName("ev");
    await db()
      .insert(tiktokEventSends)
      .values([
        {
          conversionId: `${id}-1`,
          event: "CompletePayment",
          status: "failed",
          failureKind: "temporary",
          message: "Too many requests",
          eventAt: now,
          updatedAt: now - 2 * HOUR,
        },
        {
          conversionId: `${id}-2`,
          event: "CompletePayment",
          status: "failed",
          failureKind: "setup",
          message: "Invalid access token",
          eventAt: now,
          updatedAt: now - HOUR,
        },
        { conversionId: `${id}-3`, event: "CompletePayment", status: "sent", eventAt: now, updatedAt: now - HOUR },
      ]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    await runBuiltinAlerts(db(), r.deliver, now + HOUR, env.CLICK_SHARDS);
    const fired = r.of("events-api-failures");
    expect(fired).toHaveLength(1);
    expect(fired[0]!.message.text).toBe("2 conversions could not be sent to TikTok's Events API in the last 24 hours. Last answer: Invalid access token");
  });

  it("archiving failing: a failed archive run fires once for its day", async () => {
    const now = ownNow();
    const day = new Date(now - 100 * DAY).toISOString().slice(0, 10);
    await db()
      .insert(clickArchiveRuns)
      .values([
        { day, run: 1, objectKey: `clicks/${day}.csv.gz`, startedAt: now - 3 * HOUR, endedAt: now - 2 * HOUR, outcome: "failed: errored: R2 put failed" },
        { day, run: 2, objectKey: `clicks/${day}.csv.gz`, startedAt: now - HOUR, endedAt: now - HOUR / 2, outcome: "failed: errored: R2 put failed" },
      ]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    await runBuiltinAlerts(db(), r.deliver, now + HOUR, env.CLICK_SHARDS);
    expect(r.of("retention-failing").map((f) => f.message.title)).toEqual([`Archiving clicks of ${day} failing`]);
  });

  it("refused clicks spiking: 500 refused in the last hour fires, at most once every 6 hours", async () => {
    const now = ownNow();
    const campaignId = await seedCampaign();
    await db()
      .insert(refusedClicks)
      .values([
        { campaignId, periodStart: now - 45 * 60_000, clicks: 300 },
        { campaignId, periodStart: now - 15 * 60_000, clicks: 250 },
      ]);
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    await runBuiltinAlerts(db(), r.deliver, now + 15 * 60_000, env.CLICK_SHARDS);
    const fired = r.of("refused-clicks-spike");
    expect(fired).toHaveLength(1);
    expect(factsOf(fired[0]!.message)).toMatchObject({ "Refused, last hour": "550", Campaigns: "1" });
  });

  it("a switched-off alert does not fire, and a bad number is a 400", async () => {
    const admin = await makeAdmin();
    const api = client(admin)["builtin-alerts"][":alert"];
    await bodyOf(await api.$put({ param: { alert: "refused-clicks-spike" }, json: { enabled: false } }), 200);
    const now = ownNow();
    const campaignId = await seedCampaign();
    await db()
      .insert(refusedClicks)
      .values({ campaignId, periodStart: now - 10 * 60_000, clicks: 5000 });
    const r = recorder();
    await runBuiltinAlerts(db(), r.deliver, now, env.CLICK_SHARDS);
    expect(r.of("refused-clicks-spike")).toEqual([]);
    const list = await bodyOf(await client(admin)["builtin-alerts"].$get(), 200);
    expect(list.find((a) => a.key === "refused-clicks-spike")).toMatchObject({ enabled: false, threshold: 500 });
    await bodyOf(await api.$put({ param: { alert: "refused-clicks-spike" }, json: { enabled: true } }), 200);

    for (const [alert, json, says] of [
      ["refused-clicks-spike", { enabled: true, threshold: 1 }, "from 10 to"],
      ["events-api-failures", { enabled: true, threshold: 5 }, "has no number"],
      ["postback-silent", { enabled: true, threshold: "three" }, "must be a number"],
      ["postback-silent", { enabled: "yes" }, "Enabled must be"],
    ] as const) {
      const res = await api.$put({ param: { alert: alert as BuiltinAlertKey }, json: json as never });
      expect(res.status).toBe(400);
      expect(((await res.json()) as unknown as { error: string }).error).toContain(says);
    }
    expect((await api.$put({ param: { alert: "no-such" as BuiltinAlertKey }, json: { enabled: true } })).status).toBe(400);
  });

  it("goes to the admins in the app and to the channels chosen for built-in alerts, and two runs at once send it once", async () => {
    const admin = await makeAdmin();
    const path = `/services/T1/B1/${uniqueName("x")}`;
    const { channel } = await bodyOf(
      await client(admin)["alert-channels"].$post({ json: { kind: "slack", name: "Built-ins", webhookUrl: `https://hooks.slack.com${path}`, builtin: true } }),
      201,
    );
    const slack = createSlackFake();
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => slack.handle(new Request(input, init)));
    const now = ownNow();
    const campaignId = await seedCampaign();
    await db()
      .insert(refusedClicks)
      .values({ campaignId, periodStart: now - 10 * 60_000, clicks: 2000 });
    const deliver = alertDeliverer(env as Bindings, db());
    await Promise.all([runBuiltinAlerts(db(), deliver, now, env.CLICK_SHARDS), runBuiltinAlerts(db(), deliver, now, env.CLICK_SHARDS)]);
    expect(slack.received().filter((p) => p.path === path && p.text.startsWith("Refused clicks spiking"))).toHaveLength(1);
    const mine = await db().select().from(notifications).where(eq(notifications.userId, admin.id));
    expect(mine.filter((n) => n.title === "Refused clicks spiking")).toHaveLength(1);
    const [firing] = await db()
      .select()
      .from(builtinAlertFirings)
      .where(sql`${builtinAlertFirings.alert} = 'refused-clicks-spike' and ${builtinAlertFirings.firedAt} = ${now}`);
    expect(firing!.deliveries).toEqual(expect.arrayContaining([expect.objectContaining({ channelId: channel.id, ok: true })]));
  });
});
