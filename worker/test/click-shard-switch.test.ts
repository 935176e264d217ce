/**
 * Clicks in shard-day objects from the tracking link on (docs/click-storage.md "Steps to build it"):
 * with a count fixed for today, `/r/` makes a layout-1 id, the queue's consumer stores the click in
 * the object its id names (not in D1), `/click` finds it there and sends the visitor on with its
 * ad values, the exit lands on it, and the cron's rollup counts both into the report, once.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { reportTimeZone } from "../src/db/queries/settings";
import { campaigns, clicks, clickShardDays } from "../src/db/schema";
import worker from "../src/index";
import { runScheduled } from "../src/jobs";
import { dayIn, zoneDayRange } from "../src/lib/calendar-days";
import { invalidateTrackedCampaigns } from "../src/tracking/campaign-cache";
import { checkClickId, clickDayOf, clickDayStart, newClickId, type ClickPlace } from "../src/tracking/click-id";
import { forgetShardCounts } from "../src/tracking/shard-days";
import { clickCountsByCampaignAcross, clickFacetsAcross, clickLogPageAcross } from "../src/tracking/click-log";
import { campaignWithOffer } from "./tracking-helpers";
import { d1Outage } from "./click-queue-helpers";
import { call, clicksWritten, db, makeAdmin, type TestUser } from "./helpers";
import { insertClicks } from "../src/db/queries/clicks";
import { report, rowByKey } from "./stats-helpers";
import { clickThrough, dailyOf, HOST, objectOf, placeOf, rollUp, visit } from "./shard-helpers";

const SECRET = env.SESSION_SECRET;
const SHARDS = 4;
let admin: TestUser;

/** A click's exits in its object: recorded, and waiting for the click. */
const exitsIn = (place: ClickPlace, clickId: string) =>
  runInDurableObject(objectOf(place), (_shard, state) => {
    const count = (table: string) => state.storage.sql.exec<{ n: number }>(`select count(*) as n from ${table} where click_id = ?`, clickId).one().n;
    return { exits: count("exits"), pending: count("pending_exits") };
  });
const inD1 = async (clickId: string) => (await db().select().from(clicks).where(eq(clicks.clickId, clickId))).length;

beforeAll(async () => {
  admin = await makeAdmin();
  // What the cron does with CLICK_SHARDS_PER_DAY set (jobs/shard-days.ts).
  await runScheduled({ ...env, CLICK_SHARDS_PER_DAY: String(SHARDS) }, Date.now());
});

describe("clicks stored in shard-day objects", () => {
  it("fixes today's and tomorrow's count once, and keeps it when the setting changes", async () => {
    const today = clickDayOf(Date.now());
    const rows = await db()
      .select()
      .from(clickShardDays)
      .where(sql`${clickShardDays.day} >= ${today}`);
    expect(rows.map((r) => [r.day, r.shards])).toEqual([
      [today, SHARDS],
      [today + 1, SHARDS],
    ]);
    await runScheduled({ ...env, CLICK_SHARDS_PER_DAY: "9" }, Date.now());
    const again = await db()
      .select()
      .from(clickShardDays)
      .where(sql`${clickShardDays.day} >= ${today}`);
    expect(again.map((r) => r.shards)).toEqual([SHARDS, SHARDS]);
  });

  it("goes from the tracking link to its object, to the offer with its ad values, and into the report once", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer();
    const clickId = await clickThrough(campaignId);
    const place = await placeOf(clickId);
    expect(place.day).toBe(clickDayOf(Date.now()));
    expect(place.shard).toBeLessThan(SHARDS);
    // Stored in its object, not in D1.
    expect(await inD1(clickId)).toBe(0);
    expect(await objectOf(place).lookup([clickId])).toEqual([expect.objectContaining({ clickId, campaignId, placement: "feed" })]);

    // The lander's exit: the click is read from its object (this isolate's memory of it forgotten).
    invalidateTrackedCampaigns();
    const exit = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
    expect(exit.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=feed`);
    expect(await exitsIn(place, clickId)).toEqual({ exits: 1, pending: 0 });

    const run = await rollUp();
    expect(run.behind).toBe(false);
    expect(await dailyOf(campaignId)).toEqual({ clicks: 1, exits: 1 });
    // Again: nothing is counted twice.
    await rollUp();
    expect(await dailyOf(campaignId)).toEqual({ clicks: 1, exits: 1 });

    const day = dayIn(Date.now(), await reportTimeZone(db()));
    const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" });
    expect(rowByKey(r, String(campaignId))).toMatchObject({ linkClicks: 1, exitClicks: 1 });
  });

  it("counts an exit on a click counted before in the next run, and the audience's rows with it", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Later exit");
    const clickId = await clickThrough(campaignId, "plc=search");
    await rollUp(false);
    expect(await dailyOf(campaignId)).toEqual({ clicks: 1, exits: 0 });
    // Past the exit watermark an earlier test's run left today's objects at (a second ahead).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
    await rollUp();
    expect(await dailyOf(campaignId)).toEqual({ clicks: 1, exits: 1 });
    const audience = await db().all<{ dim: string; value: string; clicks: number; exits: number }>(
      sql`select dim, value, clicks, exits from click_audience_daily where campaign_id = ${campaignId} and dim in ('path', 'lander') order by dim`,
    );
    const lander = (await db().select({ landerId: campaigns.landerId }).from(campaigns).where(eq(campaigns.id, campaignId)).get())!.landerId;
    expect(audience).toEqual([
      { dim: "lander", value: String(lander), clicks: 1, exits: 1 },
      { dim: "path", value: `c${campaignId}`, clicks: 1, exits: 1 },
    ]);
  });

  it("keeps an exit that comes before its click in the object, and counts it when the click lands", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Exit first");
    const day = clickDayOf(Date.now());
    const clickId = await newClickId(SECRET, { day, shard: 1 });
    // Its click is not stored yet (another isolate's batch still in the queue): the visitor goes
    // on by cid, and the object keeps the exit.
    const exit = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
    expect(exit.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=`);
    expect(await exitsIn({ day, shard: 1 }, clickId)).toEqual({ exits: 0, pending: 1 });
    await objectOf({ day, shard: 1 }).write([{ clickId, campaignId, clickedAt: Date.now(), ipAddress: "203.0.113.80", placement: "late" }]);
    expect(await exitsIn({ day, shard: 1 }, clickId)).toEqual({ exits: 1, pending: 0 });
    await rollUp();
    expect(await dailyOf(campaignId)).toEqual({ clicks: 1, exits: 1 });
  });

  it("shows the objects' newest clicks and exits in the report at once, and each once after the cron counts them", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Live report");
    const gone = await campaignWithOffer("Gone live");
    const fed = await clickThrough(campaignId, "plc=feed&cid=tt-live");
    await clickThrough(campaignId, "plc=search&cid=tt-live");
    await visit(`/click?clickId=${fed}&cid=${campaignId}`);
    await clickThrough(gone, "plc=feed&cid=tt-gone");
    expect((await call(`/api/campaigns/${gone}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    const day = dayIn(Date.now(), await reportTimeZone(db()));
    const figures = async (groupBy: string) => {
      const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy, campaignId });
      return Object.fromEntries(r.rows.map((row) => [row.key, [row.linkClicks, row.exitClicks]]));
    };
    const byCampaign = async () => {
      const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" });
      return { live: rowByKey(r, String(campaignId)), gone: r.rows.some((row) => row.key === String(gone)) };
    };
    const expectLive = async (clicks: number, exits: number) => {
      expect(await byCampaign()).toMatchObject({ live: { linkClicks: clicks, exitClicks: exits }, gone: false });
      expect(await figures("placement")).toEqual({ feed: [clicks - 1, exits], search: [1, 0] });
      // An audience grouping (the device the visitor's phone gives).
      expect(Object.values(await figures("device"))).toEqual([[clicks, exits]]);
    };
    // Before any cron run: straight from the objects.
    await expectLive(2, 1);
    // Counted by the cron: the same figures, from the rollup now.
    await rollUp();
    await expectLive(2, 1);
    // A new click after the count: the rollup's figures and the object's newest added.
    await clickThrough(campaignId, "plc=feed&cid=tt-live");
    await expectLive(3, 1);
  });

  it("looks nothing up for an id naming a shard its day did not have, or a day with no count", { timeout: 30_000 }, async () => {
    const campaignId = await campaignWithOffer("Out of range");
    const today = clickDayOf(Date.now());
    for (const place of [
      { day: today, shard: SHARDS },
      { day: today - 3, shard: 0 },
    ]) {
      const clickId = await newClickId(SECRET, place);
      const res = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
      // As for any id that cannot be ours: on by cid, with no click id.
      expect(res.headers.get("location"), JSON.stringify(place)).toBe("https://offer.test/go");
      expect(await objectOf(place).size(), JSON.stringify(place)).toMatchObject({ clicks: 0, exits: 0, pendingExits: 0 });
    }
  });

  it("takes a checked id of a kept day while D1 fails to give the shard counts, and keeps its exit", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Counts down");
    const clickId = await clickThrough(campaignId, "plc=down");
    const place = await placeOf(clickId);
    // The campaign stays in this isolate's memory; the counts are read again, from a failing D1.
    forgetShardCounts();
    const outage = d1Outage();
    outage.start(60_000);
    try {
      const exit = await worker.fetch(new Request(`${HOST}/click?clickId=${clickId}&cid=${campaignId}`, { redirect: "manual" }), env, createExecutionContext());
      expect(exit.headers.get("location")).toBe(`https://offer.test/go?s2=${clickId}&plc=down`);
    } finally {
      outage.restore();
    }
    await clicksWritten();
    expect(await exitsIn(place, clickId)).toEqual({ exits: 1, pending: 0 });
  });

  it("leaves a deleted campaign's clicks, which a shard-day still holds, out of the rollup and the Click Log", { timeout: 60_000 }, async () => {
    const listed = async () => {
      const res = await call("/api/clicks?pageSize=3", { cookie: admin.cookie });
      return (await res.json()) as { total: number; clicks: { clickId: string }[] };
    };
    const campaignId = await campaignWithOffer("Deleted");
    const kept = await campaignWithOffer("Kept");
    const older = await clickThrough(kept);
    const before = await listed();
    const gone = await Promise.all([clickThrough(campaignId), clickThrough(campaignId), clickThrough(campaignId)]);
    await db().delete(campaigns).where(eq(campaigns.id, campaignId));
    // Newest first, past the deleted campaign's three newer clicks: the page is still full.
    const after = await listed();
    expect(after.total).toBe(before.total);
    expect(after.clicks.map((r) => r.clickId)).toEqual(before.clicks.map((r) => r.clickId));
    expect(after.clicks[0]!.clickId).toBe(older);
    expect(after.clicks.some((r) => gone.includes(r.clickId))).toBe(false);
    const run = await rollUp();
    expect(run.behind).toBe(false);
    expect(await dailyOf(campaignId)).toEqual({ clicks: null, exits: null });
    expect((await listed()).total).toBe(before.total);
  });

  it("writes to the click's object when the queue refuses the batch", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Queue down");
    const refusing = { send: async () => Promise.reject(new Error("queue down")), sendBatch: async () => Promise.reject(new Error("queue down")) };
    const clickId = await clickThrough(campaignId, "plc=fallback", { CLICKS_QUEUE: refusing as unknown as typeof env.CLICKS_QUEUE });
    const place = await placeOf(clickId);
    expect(await inD1(clickId)).toBe(0);
    expect(await objectOf(place).lookup([clickId])).toEqual([expect.objectContaining({ clickId, placement: "fallback" })]);
  });

  it(
    "shows shard-day clicks in the Click Log with D1's: rows, pages, totals, campaign list and filter values before and after the rollup, and the CSV",
    { timeout: 60_000 },
    async () => {
      const campaignId = await campaignWithOffer("Click Log across");
      const first = await clickThrough(campaignId, "plc=one");
      const second = await clickThrough(campaignId, "plc=two");
      // A click from before the switch, in D1.
      const before = await newClickId(SECRET);
      await insertClicks(db(), [{ clickId: before, campaignId, placement: "d1", clickedAt: Date.now() - 60_000, ipAddress: "203.0.113.81" }]);
      await visit(`/click?clickId=${first}&cid=${campaignId}`);

      const log = async (query = "") => {
        const res = await call(`/api/clicks?campaignId=${campaignId}${query}`, { cookie: admin.cookie });
        expect(res.status).toBe(200);
        return (await res.json()) as {
          total: number;
          exitClicks: number;
          totalPages: number;
          clicks: { clickId: string; campaign: string; placement: string }[];
        };
      };
      const page = await log();
      expect(page).toMatchObject({ total: 3, exitClicks: 1, totalPages: 1 });
      expect(page.clicks.map((r) => [r.clickId, r.campaign, r.placement])).toEqual([
        [second, "Click Log across", "two"],
        [first, "Click Log across", "one"],
        [before, "Click Log across", "d1"],
      ]);
      expect((await log("&pageSize=2&page=2")).clicks.map((r) => r.clickId)).toEqual([before]);

      const byCampaign = async () => {
        const rows = (await (await call("/api/clicks/by-campaign", { cookie: admin.cookie })).json()) as {
          campaignId: number;
          totalClicks: number;
          exitClicks: number;
        }[];
        return rows.find((r) => r.campaignId === campaignId);
      };
      const facetClicks = async () => {
        const facets = (await (await call("/api/clicks/facets", { cookie: admin.cookie })).json()) as { countries: { clicks: number }[] };
        return facets.countries.reduce((sum, f) => sum + f.clicks, 0);
      };
      expect(await byCampaign()).toMatchObject({ campaignName: "Click Log across", totalClicks: 3, exitClicks: 1 });
      const facetsBefore = await facetClicks();
      await clickThrough(campaignId, "plc=three");
      expect(await facetClicks()).toBe(facetsBefore + 1);

      await rollUp();
      expect(await log()).toMatchObject({ total: 4, exitClicks: 1 });
      expect(await byCampaign()).toMatchObject({ totalClicks: 4, exitClicks: 1 });
      expect(await facetClicks()).toBe(facetsBefore + 1);

      const csv = await (await call(`/api/clicks/export?campaignId=${campaignId}`, { cookie: admin.cookie })).text();
      const lines = csv.trim().split("\r\n").slice(1);
      expect(lines.map((l) => l.split(",")[0]).slice(1)).toEqual([second, first, before]);
    },
  );

  it("gives a page by number the rows a walk gives there, across D1 and the objects, past a deleted campaign's clicks", { timeout: 60_000 }, async () => {
    const kept = await campaignWithOffer("Deep pages");
    const gone = await campaignWithOffer("Deep pages, deleted");
    const today = clickDayOf(Date.now());
    // Early today (so always in the past) and of a country of their own: no other test's clicks.
    const base = clickDayStart(today) + 60_000;
    const country = "Deep pages land";
    const common = { ipAddress: "203.0.113.90", userAgent: "Mozilla/5.0", placement: "deep", campaignName: "Deep", bot: false, country };
    // 14 clicks in today's objects, three at each second (ties across objects), every fourth of the
    // campaign deleted below; 5 in D1 at the same seconds.
    const inObjects = await Promise.all(
      Array.from({ length: 14 }, async (_, i) => {
        const place = { day: today, shard: i % SHARDS };
        const click = {
          ...common,
          clickId: await newClickId(SECRET, place),
          campaignId: i % 4 === 1 ? gone : kept,
          clickedAt: base + Math.floor(i / 3) * 1000,
        };
        return { place, click };
      }),
    );
    for (let shard = 0; shard < SHARDS; shard++)
      await objectOf({ day: today, shard }).write(inObjects.filter((c) => c.place.shard === shard).map((c) => c.click));
    const inD1Rows = await Promise.all(
      Array.from({ length: 5 }, async (_, k) => ({ ...common, clickId: await newClickId(SECRET), campaignId: kept, clickedAt: base + k * 1000 })),
    );
    await insertClicks(db(), inD1Rows);
    await db().delete(campaigns).where(eq(campaigns.id, gone));
    const expected = [...inObjects.map((c) => c.click).filter((c) => c.campaignId === kept), ...inD1Rows]
      .sort((a, b) => b.clickedAt - a.clickedAt || (a.clickId < b.clickId ? 1 : a.clickId > b.clickId ? -1 : 0))
      .map((c) => c.clickId);
    expect(expected).toHaveLength(15);

    const page = async (n: number, size: number) => {
      const res = await call(`/api/clicks?country=${encodeURIComponent(country)}&page=${n}&pageSize=${size}`, { cookie: admin.cookie });
      expect(res.status).toBe(200);
      return ((await res.json()) as { clicks: { clickId: string }[] }).clicks.map((r) => r.clickId);
    };
    for (const size of [1, 2, 4, 7]) {
      for (let n = 1; n <= Math.ceil(expected.length / size); n++) expect(await page(n, size)).toEqual(expected.slice((n - 1) * size, n * size));
      // A page past the last one is empty.
      expect(await page(Math.ceil(expected.length / size) + 1, size)).toEqual([]);
    }
  });

  it(
    "adds to the rolled Click Log figures the live part of today's and yesterday's objects, and of an older one only until the rollup has counted it",
    { timeout: 60_000 },
    async () => {
      const today = clickDayOf(Date.now());
      const old = today - 3;
      // An older kept day with objects, as the cron fixed it then.
      await db()
        .insert(clickShardDays)
        .values({ day: old, shards: SHARDS, createdAt: clickDayStart(old - 1) })
        .onConflictDoNothing();
      forgetShardCounts();
      const campaignId = await campaignWithOffer("Live part");
      const place = { day: old, shard: 1 };
      const oldClick = {
        clickId: await newClickId(SECRET, place),
        campaignId,
        clickedAt: clickDayStart(old) + 43_200_000,
        ipAddress: "203.0.113.91",
        userAgent: "Mozilla/5.0",
        placement: "old",
        campaignName: "Live part",
        bot: false,
      };
      await objectOf(place).write([oldClick]);
      await clickThrough(campaignId);

      let asked = new Set<number>();
      const recording = {
        getByName: (name: string) => {
          asked.add(Number(name.split("/")[1]));
          return env.CLICK_SHARDS.getByName(name);
        },
      } as unknown as typeof env.CLICK_SHARDS;
      const timeZone = await reportTimeZone(db());
      const days = { startDate: dayIn(clickDayStart(old - 1), timeZone), endDate: dayIn(Date.now(), timeZone), timeZone };
      const range = { ...days, ...zoneDayRange(days.startDate, days.endDate, timeZone) };
      const stores = { db: db(), shards: recording };
      const figures = async () => {
        asked = new Set();
        const [list, facets] = await Promise.all([clickCountsByCampaignAcross(stores, range, days), clickFacetsAcross(stores, range)]);
        const objects = [...asked].sort();
        // The page reads its rows from every day it needs; its total is counted as the list's.
        const page = await clickLogPageAcross(stores, { ...range, campaignId }, 1, 50, days);
        return { clicks: list.find((r) => r.campaignId === campaignId)?.totalClicks, total: page.total, facets: facets.length > 0, asked: objects };
      };
      // Before the rollup has counted the older day's object, it is asked with today's.
      expect(await figures()).toMatchObject({ clicks: 2, total: 2, asked: expect.arrayContaining([old, today]) });
      await rollUp();
      // Counted: only today's and yesterday's objects are asked, and the figures are the same.
      const counted = await figures();
      expect(counted).toMatchObject({ clicks: 2, total: 2, facets: true });
      expect(counted.asked.filter((day) => day < today - 1)).toEqual([]);
      expect(counted.asked).toContain(today);
    },
  );

  it("keeps a day without a count in D1", { timeout: 30_000 }, async () => {
    await db().delete(clickShardDays);
    forgetShardCounts();
    const campaignId = await campaignWithOffer("Unsharded");
    const clickId = await clickThrough(campaignId);
    expect((await checkClickId(SECRET, clickId))?.kind).toBe("current");
    expect(await inD1(clickId)).toBe(1);
  });
});
