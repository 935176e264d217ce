/**
 * The retention over the shard-day objects (docs/click-storage.md "Retention and the R2 archives",
 * retention/shard-days.ts): a day's clicks in D1 and in its objects go into the day's one file,
 * only once the rollup has counted them; the objects are emptied once the archived days cover
 * their whole UTC day and the rollup has counted their exits; a deleted campaign's clicks are in
 * no file and go with the objects; a rollup rebuilt after part of a UTC day was archived
 * counts nothing twice; and a rebuild just before the record keeps the day unrecorded.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { archiveKey, recordArchive } from "../src/db/queries/click-archives";
import { resetRollup } from "../src/db/queries/click-rollup";
import { clickArchiveRuns, clickArchives, clickShardDays } from "../src/db/schema";
import { rollUpClicks, rollUpShardDays } from "../src/jobs/roll-up-clicks";
import { dayIn } from "../src/lib/calendar-days";
import { clickDayOf, clickDayStart, newClickId, type ClickPlace } from "../src/tracking/click-id";
import { objectsCounted } from "../src/retention/shard-days";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { call, db, makeAdmin, type TestUser } from "./helpers";
import { archivedRows, cron, emptyClickStore, tick } from "./retention-helpers";
import { clickThrough, dailyOf, objectOf, placeOf, rollUp, visit } from "./shard-helpers";
import { seedClicks, setReportTimeZone } from "./stats-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const RETENTION = 30;
const SHARDS = 4;
const HOUR = 3_600_000;
let admin: TestUser;

const shardsOf = (day: number): ClickPlace[] => Array.from({ length: SHARDS }, (_, shard) => ({ day, shard }));
/** Each of the day's objects: its clicks, exits and pending exits. */
const contents = (day: number) =>
  Promise.all(shardsOf(day).map(async (place) => (({ clicks, exits, pendingExits }) => ({ clicks, exits, pendingExits }))(await objectOf(place).size())));
const emptiedAt = async (day: number) => (await db().select().from(clickShardDays).where(eq(clickShardDays.day, day)).get())?.emptiedAt ?? null;

/** A click the queue's consumer stores in its shard-day (its id names the place), at a chosen time. */
async function storeClick(place: ClickPlace, campaignId: number, clickedAt: number) {
  const clickId = await newClickId(env.SESSION_SECRET, place);
  await objectOf(place).write([{ clickId, campaignId, clickedAt, ipAddress: "203.0.113.9", placement: "feed" }]);
  return clickId;
}

beforeAll(async () => {
  admin = await makeAdmin();
});

beforeEach(async () => {
  await setReportTimeZone("UTC");
  await emptyClickStore();
  for (const table of ["click_shard_days", "click_shard_rollups"]) await db().run(sql.raw(`delete from ${table}`));
  forgetShardCounts();
});

describe("the retention of shard-day clicks", () => {
  it(
    "writes a day's clicks from D1 and its objects into one file once counted, then empties the objects once their exits are counted",
    { timeout: 120_000 },
    async () => {
      const now = Date.now();
      const today = clickDayOf(now);
      // What the cron does with CLICK_SHARDS_PER_DAY set (jobs/shard-days.ts).
      expect(await fixShardDays(db(), SHARDS, now)).toEqual([today, today + 1]);
      const kept = await campaignWithOffer("Archived");
      const gone = await campaignWithOffer("Deleted later");
      // The day of the switch: a click from before it, in D1.
      const [early] = await seedClicks([{ campaignId: kept, at: clickDayStart(today), placement: "d1" }]);
      const ids = [
        await clickThrough(kept, "plc=feed&cid=tt-a"),
        await clickThrough(kept, "plc=search&cid=tt-b"),
        await clickThrough(kept, "plc=feed&cid=tt-c"),
      ];
      for (const id of ids) expect((await placeOf(id)).day).toBe(today);
      const exit = await visit(`/click?clickId=${ids[0]}&cid=${kept}`);
      expect(exit.headers.get("location")).toBe(`https://offer.test/go?s2=${ids[0]}&plc=feed`);
      const orphan = await clickThrough(gone);
      expect((await call(`/api/campaigns/${gone}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);

      // The retention's day comes: live traffic in D1 by then (the rollup's newest counted click stays).
      const later = clickDayStart(today + RETENTION + 2);
      await seedClicks([{ campaignId: kept, at: later - HOUR }]);
      const day = dayIn(now, "UTC");

      // The objects' clicks are not counted yet: nothing is archived.
      const waiting = await cron(later, { days: RETENTION });
      expect(waiting.archived).toEqual([]);
      expect(waiting.waiting).toMatch(new RegExp(`^${day}: the click rollup has not counted the whole day yet \\([1-4] shard-day objects\\)$`));

      // Counted, but the exit came after the rollup's exit watermark: the file is written and
      // checked, D1's click deleted, and the objects kept.
      await rollUpShardDays(db(), env.CLICK_SHARDS, { now });
      const archived = await cron(later, { days: RETENTION });
      expect(archived).toMatchObject({ archived: [{ day, rows: 4 }], finished: [] });
      expect(archived.waiting).toBe(
        `${day}: 1 of day ${today}'s ${SHARDS} shard-day objects are kept until the click rollup has counted their clicks and exits`,
      );
      const rows = await archivedRows(day);
      expect(rows).toHaveLength(4);
      for (const id of [early!, ...ids])
        expect(
          rows.filter((r) => r.startsWith(`${id},`)),
          id,
        ).toHaveLength(1);
      expect(rows.some((r) => r.includes(orphan))).toBe(false);
      expect(rows.find((r) => r.startsWith(`${ids[0]},`))).toContain(",Archived,");
      expect(rows.find((r) => r.startsWith(`${ids[0]},`))).toMatch(/,Yes,/);
      expect(await emptiedAt(today)).toBeNull();
      const held = (await contents(today)).reduce((sum, c) => sum + c.clicks, 0);
      expect(held).toBe(4);

      // The exit counted (the rollup run past its lag after it, not after the test's start: under
      // load the visits before it took over a second): the next run empties every object of the
      // day, the deleted campaign's click with them.
      await rollUp(true, Date.now());
      const finished = await cron(later, { days: RETENTION });
      expect(finished).toMatchObject({ archived: [], finished: [day], waiting: null });
      expect(finished.runs[0]!.output).toMatchObject({ emptiedShardDays: [today] });
      expect(await contents(today)).toEqual(shardsOf(today).map(() => ({ clicks: 0, exits: 0, pendingExits: 0 })));
      expect(await emptiedAt(today)).not.toBeNull();
      // Tomorrow's objects are not wholly archived: kept.
      expect(await emptiedAt(today + 1)).toBeNull();

      // The report keeps every click, counted once; the file is the Click Log's archive of the day.
      expect(await dailyOf(kept)).toEqual({ clicks: 5, exits: 1 });
      const download = await call(`/api/clicks/archives/${day}`, { cookie: admin.cookie });
      expect(download.status).toBe(200);
      expect((await new Response(download.body!.pipeThrough(new DecompressionStream("gzip"))).text()).trim().split("\r\n")).toHaveLength(5);
      // An id of an emptied day names no stored click: on by cid, as for any unknown id.
      forgetShardCounts();
      const after = await visit(`/click?clickId=${ids[1]}&cid=${kept}`);
      expect(after.headers.get("location")).toBe("https://offer.test/go");
      expect(await contents(today)).toEqual(shardsOf(today).map(() => ({ clicks: 0, exits: 0, pendingExits: 0 })));
    },
  );

  it(
    "archives a UTC day split over two report days in two files, empties it after the second, and a rollup rebuilt between counts nothing twice",
    { timeout: 120_000 },
    async () => {
      await setReportTimeZone("America/New_York");
      const now = Date.now();
      const day = clickDayOf(now) - 40;
      const start = clickDayStart(day);
      // Two days with a count, as the cron fixed them then; the earlier holds only a deleted campaign's click.
      await fixShardDays(db(), SHARDS, clickDayStart(day - 2));
      await fixShardDays(db(), SHARDS, start);
      const campaign = await campaignWithOffer("Split day");
      const gone = await campaignWithOffer("Gone");
      await storeClick({ day: day - 2, shard: 2 }, gone, clickDayStart(day - 2) + 5 * HOUR);
      expect((await call(`/api/campaigns/${gone}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
      // 01:00 UTC is the evening before in New York; 12:00 UTC is the day itself.
      const evening = await storeClick({ day, shard: 0 }, campaign, start + HOUR);
      const noon = await storeClick({ day, shard: 1 }, campaign, start + 12 * HOUR);
      await rollUp(true, now);
      expect(await dailyOf(campaign)).toEqual({ clicks: 2, exits: 0 });

      // The first run: New York's earlier day, which ends inside the UTC day: that day's objects stay.
      const first = await tick(now, { days: RETENTION });
      const firstDay = dayIn(start + HOUR, "America/New_York");
      expect(first.end?.output).toMatchObject({ day: firstDay, archived: { rows: 1 }, finished: true });
      expect(await archivedRows(firstDay)).toEqual([expect.stringMatching(new RegExp(`^${evening},Split day,`))]);
      // The days wholly before the archived days' end are emptied (the deleted campaign's click with them); the split day is not.
      expect(first.end?.output?.emptiedShardDays).toEqual([day - 2, day - 1]);
      expect(await emptiedAt(day - 2)).not.toBeNull();
      expect(await emptiedAt(day)).toBeNull();

      // The report time zone changes: the rollup is rebuilt, keeping the archived day's rows, and
      // the split day's objects are counted again past the archived clicks only.
      await setReportTimeZone("UTC");
      await rollUpClicks(db(), { now });
      await rollUpShardDays(db(), env.CLICK_SHARDS, { now });
      expect(await dailyOf(campaign)).toEqual({ clicks: 2, exits: 0 });

      // A run cut off after emptying one object: the next one empties the rest.
      await objectOf({ day, shard: 0 }).empty();
      const second = await tick(now, { days: RETENTION });
      expect(second.end?.output).toMatchObject({ day: dayIn(start, "UTC"), archived: { rows: 1 }, finished: true, emptiedShardDays: [day] });
      expect(await archivedRows(dayIn(start, "UTC"))).toEqual([expect.stringMatching(new RegExp(`^${noon},Split day,`))]);
      expect(await contents(day)).toEqual(shardsOf(day).map(() => ({ clicks: 0, exits: 0, pendingExits: 0 })));
      expect(await emptiedAt(day + 1)).toBeNull();
      expect(await dailyOf(campaign)).toEqual({ clicks: 2, exits: 0 });
      // Nothing older than the retention is left.
      expect((await tick(now, { days: RETENTION })).tick).toMatchObject({ day: null, waiting: null });
    },
  );

  it(
    "dates the clicks after the archived days after them when the report time zone moves west, and counts each once through two rebuilds",
    { timeout: 120_000 },
    async () => {
      const now = Date.now();
      const day = clickDayOf(now) - 40;
      await fixShardDays(db(), SHARDS, clickDayStart(day));
      const campaign = await campaignWithOffer("Westward");
      await storeClick({ day, shard: 0 }, campaign, clickDayStart(day) + 12 * HOUR);
      // 01:00 UTC the next day: still the archived day's evening in New York.
      await storeClick({ day: day + 1, shard: 1 }, campaign, clickDayStart(day + 1) + HOUR);
      await rollUp(true, now);
      const first = await tick(now, { days: RETENTION });
      expect(first.end?.output).toMatchObject({ day: dayIn(clickDayStart(day), "UTC"), archived: { rows: 1 }, finished: true });
      expect(await emptiedAt(day)).not.toBeNull();
      const dates = async () =>
        (
          await db().all<{ date: string; clicks: number }>(
            sql`select date, sum(clicks) as clicks from click_daily_stats where campaign_id = ${campaign} group by date order by date`,
          )
        ).map((r) => [r.date, r.clicks]);
      for (const zone of ["America/New_York", "UTC"]) {
        await setReportTimeZone(zone);
        await rollUpClicks(db(), { now });
        await rollUpShardDays(db(), env.CLICK_SHARDS, { now });
        expect(await dailyOf(campaign), zone).toEqual({ clicks: 2, exits: 0 });
        // The archived day keeps its one click; the other is dated after it in either zone.
        expect(await dates(), zone).toEqual([
          [dayIn(clickDayStart(day), "UTC"), 1],
          [dayIn(clickDayStart(day + 1), "UTC"), 1],
        ]);
      }
    },
  );

  it("records no day whose objects' clicks a rollup rebuild started over after the last check of the stores", { timeout: 60_000 }, async () => {
    const now = Date.now();
    const day = clickDayOf(now) - 40;
    await fixShardDays(db(), SHARDS, clickDayStart(day));
    const campaign = await campaignWithOffer("Rebuilt meanwhile");
    await storeClick({ day, shard: 2 }, campaign, clickDayStart(day) + 12 * HOUR);
    await rollUp(true, now);
    // The record step's read: every object counted, and how far.
    const { uncounted, held } = await objectsCounted(db(), env.CLICK_SHARDS, shardsOf(day));
    expect(uncounted).toEqual([]);
    expect(held).toEqual([{ day, shard: 2, maxId: expect.any(Number) }]);
    const reportDay = dayIn(clickDayStart(day), "UTC");
    const [run] = await db()
      .insert(clickArchiveRuns)
      .values({ day: reportDay, run: 1, objectKey: archiveKey(reportDay), startedAt: now })
      .returning({ id: clickArchiveRuns.id });
    const archive = {
      day: reportDay,
      timeZone: "UTC",
      startMs: clickDayStart(day),
      endMs: clickDayStart(day + 1),
      objectKey: archiveKey(reportDay),
      rows: 1,
      exits: 0,
      bytes: 100,
      // D1 holds none of the day's clicks: its own check (the watermark at or past 0) holds after a rebuild too.
      maxClickId: 0,
      archivedAt: now,
    };
    // A rebuild (a new report time zone, and back) lands between that read and the record.
    await resetRollup(db(), "UTC", now);
    expect(await recordArchive(db(), archive, { id: run!.id, startedAt: now }, held)).toBe(false);
    expect(await db().select().from(clickArchives)).toEqual([]);
    // Once the rollup has counted the object again, the same record goes in.
    await rollUp(true, now);
    expect(await recordArchive(db(), archive, { id: run!.id, startedAt: now }, held)).toBe(true);
    expect((await db().select().from(clickArchives)).map((a) => a.day)).toEqual([reportDay]);
  });
});
