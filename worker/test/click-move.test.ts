/**
 * The move of D1's clicks into the legacy objects (tracking/click-move.ts), as
 * docs/click-storage.md "Moving the existing clicks" describes it: once new clicks go to the
 * shard-days, the cron's run moves the clicks D1 holds, a step at a time, and every reader finds
 * them where they went: the lander's exit, the Click Log, the report's counts, CAKE's postback and
 * pull, the retention. A step cut off after writing the objects, a rollup rebuilt in the middle, an
 * exit that waited while the rollup moved on, a click that reaches D1 after the move and a legacy
 * object holding another click under a moved id each store and count every click and exit once.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { insertClicksOnce } from "../src/db/queries/clicks";
import { rebuildAttributed } from "../src/db/queries/cake";
import { attributedClicks, clickMoves, clicks, clickShardDays, landerClicks, tiktokEventSends } from "../src/db/schema";
import { rollUpClicks, rollUpShardDays } from "../src/jobs/roll-up-clicks";
import { shardDaysJob } from "../src/jobs/shard-days";
import type { Bindings } from "../src/env";
import { dayIn } from "../src/lib/calendar-days";
import { clickDayOf, clickDayStart, LEGACY_DAY, legacyPlace, legacyPlaces, shardName } from "../src/tracking/click-id";
import { MOVE_SETTLE_MS, moveClicksStep, readClickMove, startClickMove } from "../src/tracking/click-move";
import type { MoveRunOutput } from "../src/tracking/click-move-workflow";
import { fixShardDays, forgetShardCounts, shardCounts } from "../src/tracking/shard-days";
import { call, db, makeAdmin, type TestUser } from "./helpers";
import { POSTBACK_TOKEN, callWith } from "./performance-helpers";
import { archivedRows, cron, emptyClickStore } from "./retention-helpers";
import { clickThrough, dailyOf, rollUp, visit } from "./shard-helpers";
import { report, rowByKey, seedCake, seedClicks, setReportTimeZone } from "./stats-helpers";
import { createTikTokEventsFake } from "./fakes/tiktok-events-fake";
import { configure, sendingEnv, serveFake } from "./tiktok-events-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const SHARDS = 4;
const RETENTION = 30;
const HOUR = 3_600_000;
let admin: TestUser;

const legacyObject = (clickId: string) => env.CLICK_SHARDS.getByName(shardName(legacyPlace(clickId)));
/** Each legacy object's size and rows. */
const legacySizes = () => Promise.all(legacyPlaces().map((place) => env.CLICK_SHARDS.getByName(shardName(place)).size()));
/** What the legacy objects hold together. */
const legacyHeld = async () => {
  const sizes = await legacySizes();
  return { clicks: sizes.reduce((n, s) => n + s.clicks, 0), pendingExits: sizes.reduce((n, s) => n + s.pendingExits, 0) };
};
/** `n` clicks through the tracking link while D1 holds them (before the switch): their ids, oldest first. */
async function clicksInD1(campaign: number, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await clickThrough(campaign, `plc=p${i}&cid=tt-${i}`));
  return ids;
}
const d1ClickIds = async () => (await db().select({ clickId: clicks.clickId }).from(clicks).orderBy(clicks.id)).map((r) => r.clickId);

/** The cron's shard-days job at `now`, and the move run it started (if any) waited for. */
async function cronMove(now: number): Promise<MoveRunOutput | null> {
  await shardDaysJob.run({ db: db(), env: env as Bindings, now });
  const runId = (await readClickMove(db()))?.runId;
  if (!runId) return null;
  for (const giveUpAt = Date.now() + 60_000; ;) {
    const instance = await env.MOVE_WORKFLOW.get(runId);
    const status = await instance.status();
    (instance as Partial<Disposable>)[Symbol.dispose]?.();
    if (status.status === "complete") return status.output as MoveRunOutput;
    if (status.status === "errored" || status.status === "terminated") throw new Error(`move run ${runId} ${status.status}: ${status.error?.message}`);
    if (Date.now() > giveUpAt) throw new Error(`move run ${runId} still ${status.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The Click Log of today (UTC): its first page, up to 50 rows, and its totals. */
async function clickLogOfToday() {
  const day = new Date().toISOString().slice(0, 10);
  const res = await call(`/api/clicks?startDate=${day}&endDate=${day}&pageSize=50`, { cookie: admin.cookie });
  expect(res.status).toBe(200);
  return (await res.json()) as { clicks: { clickId: string; exitedAt: string | null }[]; total: number; exitClicks: number };
}

afterEach(() => vi.restoreAllMocks());

beforeAll(async () => {
  admin = await makeAdmin();
});

beforeEach(async () => {
  await setReportTimeZone("UTC");
  await emptyClickStore();
  for (const table of ["click_shard_days", "click_shard_rollups", "click_moves", "attributed_clicks"]) await db().run(sql.raw(`delete from ${table}`));
  // The objects keep what earlier tests wrote: the legacy ones, and today's and tomorrow's shard-days.
  const today = clickDayOf(Date.now());
  const days = [today, today + 1].flatMap((day) => Array.from({ length: SHARDS }, (_, shard) => ({ day, shard })));
  await Promise.all([...legacyPlaces(), ...days].map((place) => env.CLICK_SHARDS.getByName(shardName(place)).empty()));
  forgetShardCounts();
});

describe("the move of D1's clicks into the legacy objects", () => {
  it(
    "moves D1's clicks through the cron's run once new clicks go to the shard-days, and the exit, the Click Log, the report and the postback find them",
    { timeout: 120_000 },
    async () => {
      const campaign = await campaignWithOffer("Moved");
      // Before the switch: old ids, in D1, one with an exit, counted by the rollup.
      const old = [
        await clickThrough(campaign, "plc=feed&cid=tt-1&ttclid=E.C.P.moved-0123456789"),
        await clickThrough(campaign, "plc=search&cid=tt-2"),
        await clickThrough(campaign, "plc=feed&cid=tt-3"),
      ];
      const exited = await visit(`/click?clickId=${old[0]}&cid=${campaign}`);
      expect(exited.headers.get("location")).toBe(`https://offer.test/go?s2=${old[0]}&plc=feed`);
      await rollUp();
      expect(await dailyOf(campaign)).toEqual({ clicks: 3, exits: 1 });

      // Nothing moves while new clicks still go to D1.
      expect(await cronMove(Date.now())).toBeNull();
      expect(await readClickMove(db())).toBeNull();

      // The switch: today has shards; new clicks go to their shard-day.
      const switchedAt = Date.now();
      await fixShardDays(db(), SHARDS, switchedAt);
      const fresh = await clickThrough(campaign, "plc=feed&cid=tt-4");
      expect(await d1ClickIds()).toEqual(old);
      // The cron records the switch; its run waits for the rollup to count D1's exits past it.
      const waiting = await cronMove(switchedAt);
      expect(waiting).toMatchObject({ moved: 0, idle: "the click rollup has not counted D1's exits up to the switch yet" });
      const move = await readClickMove(db());
      expect(move).toMatchObject({ startedAt: switchedAt, point: 0 });

      // An old id's exit after the switch goes to its legacy object, which keeps it until its click comes.
      const late = await visit(`/click?clickId=${old[1]}&cid=${campaign}`);
      expect(late.headers.get("location")).toBe(`https://offer.test/go?s2=${old[1]}&plc=search`);
      expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, old[1]!))).toEqual([]);
      expect((await legacyObject(old[1]!).size()).pendingExits).toBe(1);
      await visit(`/click?clickId=${old[2]}&cid=${campaign}`);
      expect(await legacyHeld()).toEqual({ clicks: 0, pendingExits: 2 });

      // The rollup passes the switch; the next cron's run moves every click, the late exits applied to theirs.
      await rollUp(true, switchedAt + MOVE_SETTLE_MS);
      const moved = await cronMove(switchedAt + MOVE_SETTLE_MS + 60_000);
      expect(moved).toMatchObject({ moved: 3, idle: "D1 holds no more clicks to move" });
      expect(await d1ClickIds()).toEqual([]);
      expect(await legacyHeld()).toEqual({ clicks: 3, pendingExits: 0 });
      // The Stats report shows the late exits at once, before the rollup counts them.
      const today = dayIn(Date.now(), "UTC");
      const live = await report(admin.cookie, { startDate: today, endDate: today, groupBy: "campaign" });
      expect(rowByKey(live, String(campaign))).toMatchObject({ linkClicks: 4, exitClicks: 3 });
      const [first] = await legacyObject(old[0]!).lookup([old[0]!]);
      expect(first).toMatchObject({ clickId: old[0], campaignId: campaign, placement: "feed" });
      // D1's exit row went with its click.
      expect(await db().select().from(landerClicks)).toEqual([]);
      // Nothing is left to move: the cron starts no run.
      const runId = (await readClickMove(db()))?.runId;
      await shardDaysJob.run({ db: db(), env: env as Bindings, now: Date.now() });
      expect((await readClickMove(db()))?.runId).toBe(runId);

      // The report counts every click once: D1's exit as D1 counted it, the late exit from the legacy object.
      await rollUp(true, switchedAt + MOVE_SETTLE_MS + 120_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 3 });
      await rollUp(true, switchedAt + MOVE_SETTLE_MS + 180_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 3 });

      // The Click Log lists each click once, wherever it is, with its exit.
      const log = await clickLogOfToday();
      expect(log.clicks.map((r) => r.clickId).sort()).toEqual([...old, fresh].sort());
      expect(log).toMatchObject({ total: 4, exitClicks: 3 });
      expect(
        log.clicks
          .filter((r) => r.exitedAt !== null)
          .map((r) => r.clickId)
          .sort(),
      ).toEqual([...old].sort());

      // The confirmation before deleting the campaign counts the moved clicks and the shard-day's.
      const impact = await call(`/api/campaigns/${campaign}/deletion-impact`, { cookie: admin.cookie });
      expect(await impact.json()).toMatchObject({ campaigns: [{ id: campaign, clicks: 4 }], clicks: 4 });

      // The lander's exit of a moved click finds it in its legacy object: sent on with its own values, counted once.
      forgetShardCounts();
      const again = await visit(`/click?clickId=${old[0]}&cid=${campaign}`);
      expect(again.headers.get("location")).toBe(`https://offer.test/go?s2=${old[0]}&plc=feed`);
      await rollUp(true, Date.now());
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 3 });

      // CAKE's postback of the moved click (sub2 as the offer link carried it) is credited to its
      // campaign, and sent to TikTok with its ttclid, read from the legacy object.
      await configure();
      const fake = serveFake(createTikTokEventsFake());
      const sending = sendingEnv();
      const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid: "L-moved-1", oid: "11", price: "9.00", s1: "mb", s2: old[0]!, s3: "" });
      expect(await (await callWith(sending, `/postback/cake?${q}`)).json()).toEqual({ ok: true, result: "counted" });
      const credited = await db().get<{ cents: number }>(sql`select sum(revenue_cents) as cents from cake_attributed_daily where campaign_id = ${campaign}`);
      expect(credited?.cents).toBe(900);
      const send = async () => (await db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, "L-moved-1")))[0];
      await vi.waitUntil(async () => (await send())?.status === "sent", { timeout: 10_000, interval: 50 });
      expect(await send()).toMatchObject({ clickId: old[0] });
      expect(fake.received()).toMatchObject([{ event_id: "L-moved-1", user: { ttclid: "E.C.P.moved-0123456789" } }]);
      await configure({ pixelCode: "" });
    },
  );

  it(
    "stores and counts every click once through a step cut off after writing the objects, and a rollup rebuilt in the middle",
    { timeout: 120_000 },
    async () => {
      const campaign = await campaignWithOffer("Resumed");
      const old = await clicksInD1(campaign, 6);
      await visit(`/click?clickId=${old[2]}&cid=${campaign}`);
      await rollUp();
      const now = Date.now();
      await fixShardDays(db(), SHARDS, now);
      await startClickMove(db(), now);
      const settled = now + MOVE_SETTLE_MS;
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now, limit: 2 })).toMatchObject({ moved: 0 });
      await rollUp(true, settled);

      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 2 })).toMatchObject({ moved: 2 });
      // A step cut off after writing its objects, before D1 recorded it: the clicks are in both stores.
      const next = await db()
        .select()
        .from(clicks)
        .where(sql`${clicks.id} > ${(await readClickMove(db()))!.point}`)
        .orderBy(clicks.id)
        .limit(2);
      for (const row of next) await legacyObject(row.clickId).move([row], [], [], settled);
      expect(await legacyHeld()).toMatchObject({ clicks: 4 });
      // Meanwhile the Click Log lists each click once, and counts it once: a legacy object is read
      // only up to the recorded point.
      const both = await clickLogOfToday();
      expect(both.clicks.map((r) => r.clickId).sort()).toEqual([...old].sort());
      expect(both).toMatchObject({ total: 6, exitClicks: 1 });
      // Run again, it records them, holding each once.
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 2 })).toMatchObject({ moved: 2 });
      expect(await legacyHeld()).toMatchObject({ clicks: 4 });
      expect(await d1ClickIds()).toEqual(old.slice(4));
      await rollUp(true, settled);
      expect(await dailyOf(campaign)).toEqual({ clicks: 6, exits: 1 });

      // The report time zone changes: the rollup is rebuilt from every store, and the move waits
      // until the legacy objects are counted again.
      await setReportTimeZone("America/New_York");
      await rollUpClicks(db(), { now: settled + 5 * 60_000 });
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 2 })).toEqual({
        moved: 0,
        kept: 0,
        point: 4,
        idle: "the click rollup is counting the legacy objects again",
      });
      await rollUpShardDays(db(), env.CLICK_SHARDS, { now: settled + 5 * 60_000 });
      expect(await dailyOf(campaign)).toEqual({ clicks: 6, exits: 1 });
      // The rest moves, the rollup's anchor with it; each click still counted once, and the rollup not rebuilt for the anchor.
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 2 })).toMatchObject({ moved: 2 });
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 2 })).toMatchObject({ moved: 0, idle: "D1 holds no more clicks to move" });
      expect(await d1ClickIds()).toEqual([]);
      expect(await legacyHeld()).toMatchObject({ clicks: 6 });
      expect((await rollUpClicks(db(), { now: settled + 10 * 60_000 })).rebuilt).toBe(false);
      await rollUp(true, settled + 10 * 60_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 6, exits: 1 });
      expect(await db().select({ moved: clickMoves.moved }).from(clickMoves).get()).toEqual({ moved: 6 });

      // A click still in the queue at the switch reaches D1 now: it takes an id past every one D1
      // held, so the rollup counts it and the move takes it.
      const straggler = crypto.randomUUID();
      await insertClicksOnce(db(), [{ clickId: straggler, campaignId: campaign, clickedAt: settled - HOUR, placement: "late" }]);
      const [{ id }] = (await db().select({ id: clicks.id }).from(clicks)) as [{ id: number }];
      expect(id).toBeGreaterThan(6);
      await rollUp(true, settled + 15 * 60_000);
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled + 15 * 60_000 })).toMatchObject({ moved: 1 });
      await rollUp(true, settled + 20 * 60_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 7, exits: 1 });
    },
  );

  it(
    "goes on past a click whose legacy object holds another under its id: that click stays in D1 with its exit, counted once",
    { timeout: 120_000 },
    async () => {
      const campaign = await campaignWithOffer("Kept");
      const old = await clicksInD1(campaign, 4);
      await visit(`/click?clickId=${old[1]}&cid=${campaign}`);
      await rollUp();
      const switchedAt = Date.now();
      await fixShardDays(db(), SHARDS, switchedAt);
      expect(await cronMove(switchedAt)).toMatchObject({ moved: 0, idle: "the click rollup has not counted D1's exits up to the switch yet" });
      const settled = switchedAt + MOVE_SETTLE_MS;
      await rollUp(true, settled);
      // old[1]'s legacy object holds a different click under its id (no path writes one; the
      // move's check guards against it): another time and address, no exit.
      const [row] = await db().select().from(clicks).where(eq(clicks.clickId, old[1]!));
      const other = { ...row!, id: 0, clickedAt: row!.clickedAt - HOUR, ipAddress: "198.51.100.7", exitedAt: null };
      expect(await legacyObject(old[1]!).move([other], [], [], settled)).toMatchObject({ held: 1, conflicts: [] });

      // The cron's run moves the other three and leaves old[1] in D1, with its exit, rather than stopping.
      const run = await cronMove(settled + 60_000);
      expect(run).toMatchObject({ moved: 3, kept: 1, idle: "D1 holds no more clicks to move" });
      expect(await readClickMove(db())).toMatchObject({ moved: 3, kept: 1 });
      expect(await d1ClickIds()).toEqual([old[1]]);
      expect(await db().select({ clickId: landerClicks.clickId }).from(landerClicks)).toEqual([{ clickId: old[1] }]);
      // The object keeps its own click, and D1's exit went nowhere near it.
      expect(await legacyObject(old[1]!).lookup([old[1]!])).toMatchObject([{ clickId: old[1], campaignId: campaign }]);
      expect((await legacySizes()).reduce((n, s) => n + s.exits, 0)).toBe(0);
      expect(await legacyHeld()).toEqual({ clicks: 4, pendingExits: 0 });
      // Nothing is left to move: the next cron starts no run.
      const runId = (await readClickMove(db()))?.runId;
      await shardDaysJob.run({ db: db(), env: env as Bindings, now: settled + 120_000 });
      expect((await readClickMove(db()))?.runId).toBe(runId);

      // Each of the four clicks counted once, the exit with its click in D1.
      await rollUp(true, settled + 180_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 1 });
      const log = await clickLogOfToday();
      expect(log).toMatchObject({ total: 4, exitClicks: 1 });
      expect(log.clicks.filter((r) => r.clickId === old[1] && r.exitedAt !== null)).toHaveLength(1);
    },
  );

  it(
    "counts an exit that waited in its legacy object while the rollup moved on, and keeps CAKE's credit of a moved click through a rebuilt day",
    { timeout: 120_000 },
    async () => {
      const campaign = await campaignWithOffer("Waited");
      const old = await clicksInD1(campaign, 4);
      // CAKE reported a conversion of old[3] before the switch: D1's click is credited.
      const day = dayIn(Date.now(), "UTC");
      const offer = (await db().get<{ id: number }>(sql`select offer_id as id from campaigns where id = ${campaign}`))!.id;
      await seedCake([{ date: day, offerId: offer, subid2: old[3]!, conversions: 1, revenueCents: 500 }]);
      await rebuildAttributed(db(), { start: day, end: day });
      const credited = async () =>
        (await db().get<{ cents: number | null }>(sql`select sum(revenue_cents) as cents from cake_attributed_daily where campaign_id = ${campaign}`))?.cents;
      expect(await credited()).toBe(500);
      await rollUp();
      const now = Date.now();
      await fixShardDays(db(), SHARDS, now);
      await startClickMove(db(), now);
      // After the switch old[2]'s visitor leaves: the exit waits in its legacy object.
      await visit(`/click?clickId=${old[2]}&cid=${campaign}`);
      const settled = now + MOVE_SETTLE_MS;
      await rollUp(true, settled);
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled, limit: 1 })).toMatchObject({ moved: 1 });
      // The cron's rollup runs between steps: the legacy objects' exit watermarks move past the exit.
      await rollUp(true, settled + 10 * 60_000);
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now: settled + 11 * 60_000, limit: 3 })).toMatchObject({ moved: 3 });
      await rollUp(true, settled + 20 * 60_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 1 });
      await rollUp(true, settled + 30 * 60_000);
      expect(await dailyOf(campaign)).toEqual({ clicks: 4, exits: 1 });
      // The converted click left D1 with a copy: the day rebuilt by a later pull still credits its campaign.
      await rebuildAttributed(db(), { start: day, end: day });
      expect(await credited()).toBe(500);
      expect((await db().select({ clickId: attributedClicks.clickId }).from(attributedClicks)).map((r) => r.clickId)).toEqual([old[3]]);
      // The copy keeps the click's campaign and ad, not the visitor: those stay in the legacy object.
      expect(await db().select().from(attributedClicks)).toMatchObject([{ clickId: old[3], campaignId: campaign, ipAddress: null, userAgent: null }]);
      expect(await legacyObject(old[3]!).clickRows([old[3]!])).toMatchObject([
        { clickId: old[3], ipAddress: expect.any(String), userAgent: expect.any(String) },
      ]);
    },
  );

  it(
    "archives the moved clicks of a day with D1's, drops them from the legacy objects, and empties those once none is left",
    { timeout: 120_000 },
    async () => {
      const now = Date.now();
      const today = clickDayOf(now);
      const campaign = await campaignWithOffer("Archived moved");
      const [older, old] = await seedClicks([
        { campaignId: campaign, at: clickDayStart(today - 3) + HOUR, placement: "older" },
        { campaignId: campaign, at: clickDayStart(today - 2) + HOUR, placement: "old" },
      ]);
      // Today's, before now: in a day's first hour, an hour ago would be yesterday's.
      const [newest] = await seedClicks([{ campaignId: campaign, at: Math.max(clickDayStart(today), now - HOUR), placement: "newest" }]);
      await rollUp(true, now);
      await fixShardDays(db(), SHARDS, now);
      await startClickMove(db(), now);
      await rollUp(true, now + MOVE_SETTLE_MS);
      expect(await moveClicksStep(db(), env.CLICK_SHARDS, { now })).toMatchObject({ moved: 3 });
      expect(await d1ClickIds()).toEqual([]);

      // The oldest day passes the retention: its file holds the moved click, which leaves its legacy object.
      const first = await cron(clickDayStart(today - 2 + RETENTION) + HOUR, { days: RETENTION });
      const olderDay = dayIn(clickDayStart(today - 3), "UTC");
      expect(first).toMatchObject({ archived: [{ day: olderDay, rows: 1 }], finished: [olderDay], waiting: null });
      expect(await archivedRows(olderDay)).toEqual([expect.stringMatching(new RegExp(`^${older},Archived moved,`))]);
      expect(await legacyHeld()).toMatchObject({ clicks: 2 });
      expect(await legacyObject(old!).lookup([old!])).toHaveLength(1);
      forgetShardCounts();
      expect(await readClickMove(db())).toMatchObject({ fromMs: clickDayStart(today - 2) });

      // Every day passes it: the moved clicks are archived, today's (D1's newest, the rollup's
      // anchor once) too, and the legacy objects are emptied (D1 holds nothing left to move), after
      // which nothing reads them.
      const second = await cron(clickDayStart(today + RETENTION + 1) + HOUR, { days: RETENTION });
      const days = [dayIn(clickDayStart(today - 2), "UTC"), dayIn(now, "UTC")];
      expect(second).toMatchObject({ finished: days, waiting: null });
      expect(second.archived.map((a) => a.day)).toEqual(days);
      expect(await archivedRows(dayIn(now, "UTC"))).toEqual([expect.stringMatching(new RegExp(`^${newest},Archived moved,`))]);
      expect(await archivedRows(dayIn(clickDayStart(today - 2), "UTC"))).toEqual([expect.stringMatching(new RegExp(`^${old},Archived moved,`))]);
      expect(await legacyHeld()).toEqual({ clicks: 0, pendingExits: 0 });
      const legacyRow = await db().select().from(clickShardDays).where(eq(clickShardDays.day, LEGACY_DAY)).get();
      expect(legacyRow?.emptiedAt).not.toBeNull();
      forgetShardCounts();
      expect((await shardCounts(db())).has(LEGACY_DAY)).toBe(false);
    },
  );

  it("archives and deletes D1's newest click (the rollup's anchor) once the move has started, without a rebuild", { timeout: 120_000 }, async () => {
    const now = Date.now();
    const today = clickDayOf(now);
    const campaign = await campaignWithOffer("Anchor archived");
    const [newest] = await seedClicks([{ campaignId: campaign, at: clickDayStart(today - 1) + HOUR, placement: "newest" }]);
    await rollUp(true, now);
    await fixShardDays(db(), SHARDS, now);
    // The switch; no step has run yet (the rollup has not passed it) when the day's retention comes.
    await startClickMove(db(), now);
    const done = await cron(clickDayStart(today - 1 + RETENTION + 1) + HOUR, { days: RETENTION });
    const day = dayIn(clickDayStart(today - 1), "UTC");
    expect(done).toMatchObject({ archived: [{ day, rows: 1 }], finished: [day], waiting: null });
    expect(await archivedRows(day)).toEqual([expect.stringMatching(new RegExp(`^${newest},Anchor archived,`))]);
    expect(await d1ClickIds()).toEqual([]);
    expect((await rollUpClicks(db(), { now: now + MOVE_SETTLE_MS })).rebuilt).toBe(false);
    expect(await dailyOf(campaign)).toEqual({ clicks: 1, exits: 0 });
  });
});
