/**
 * The conversions leave D1 (retention/conversions.ts): once a day's clicks are archived and the
 * day is 35 days old, its ledger rows and TikTok sends go to R2 a chunk at a time and out of D1,
 * the reports keep their figures, and a postback repeating one of them counts nothing.
 */
import { env } from "cloudflare:workers";
import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lastPostbackAt } from "../src/db/queries/cake";
import { cakeAttributedDaily, cakeConversions, conversionArchives, tiktokEventSends } from "../src/db/schema";
import { rollUpShardDays } from "../src/jobs/roll-up-clicks";
import { dayIn } from "../src/lib/calendar-days";
import { archiveConversions, CONVERSION_CSV_HEADERS, conversionArchiveKey } from "../src/retention/conversions";
import { clickDayOf, clickDayStart, newClickId } from "../src/tracking/click-id";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { db, makeAdmin, type TestUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv } from "./performance-helpers";
import { cron, emptyClickStore } from "./retention-helpers";
import { clickThrough, rollUp, visit } from "./shard-helpers";
import { report, rowByKey, seedClicks, setReportTimeZone } from "./stats-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const RETENTION = 30;
const HOUR = 3_600_000;
let admin: TestUser;

async function postback(leadid: string, s2: string, price = "12.50") {
  const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid, oid: "11", price, s1: "mb-arch", s2, s3: "" });
  const res = await callWith(configuredEnv(), `/postback/cake?${q}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: string }).result;
}

/** The day's archived files, unzipped, as lines (header first) per object. */
async function archivedFiles(date: string) {
  const listed = await env.ARCHIVE.list({ prefix: `conversions/${date}/` });
  return Promise.all(
    listed.objects.map(async (o) => {
      const object = await env.ARCHIVE.get(o.key);
      const text = await new Response(object!.body.pipeThrough(new DecompressionStream("gzip"))).text();
      return {
        key: o.key,
        lines: text
          .replace(/^\uFEFF/, "")
          .trim()
          .split("\r\n"),
      };
    }),
  );
}

const ledgerOf = (ids: string[]) => db().select().from(cakeConversions).where(inArray(cakeConversions.conversionId, ids));
const sendsOf = (ids: string[]) => db().select().from(tiktokEventSends).where(inArray(tiktokEventSends.conversionId, ids));
const attributed = (campaignId: number) =>
  db()
    .select({ conversions: cakeAttributedDaily.conversions, revenueCents: cakeAttributedDaily.revenueCents })
    .from(cakeAttributedDaily)
    .where(eq(cakeAttributedDaily.campaignId, campaignId));

beforeAll(async () => {
  admin = await makeAdmin();
});

beforeEach(async () => {
  await setReportTimeZone("UTC");
  await emptyClickStore();
  for (const table of ["click_shard_days", "click_shard_rollups", "cake_conversions", "tiktok_event_sends", "conversion_archives"]) {
    await db().run(sql.raw(`delete from ${table}`));
  }
  const listed = await env.ARCHIVE.list({ prefix: "conversions/" });
  if (listed.objects.length) await env.ARCHIVE.delete(listed.objects.map((o) => o.key));
  forgetShardCounts();
});

describe("the conversions leaving D1", () => {
  it(
    "go to R2 with their TikTok sends once their clicks are archived and they are 35 days old; the report keeps them and a repeated postback counts nothing",
    { timeout: 120_000 },
    async () => {
      const now = Date.now();
      const today = clickDayOf(now);
      const day = dayIn(now, "UTC");
      await fixShardDays(db(), 4, now);
      const campaignId = await campaignWithOffer("Converted long ago");
      // A visitor through the tracking link and the lander's exit: the offer link carries the click id.
      const clickId = await clickThrough(campaignId, "plc=feed&cid=tt-arch");
      const exit = await visit(`/click?clickId=${clickId}&cid=${campaignId}`);
      const sub2 = new URL(exit.headers.get("location")!).searchParams.get("s2")!;
      expect(sub2).toBe(clickId);
      expect(await postback("L-arch-1", sub2)).toBe("counted");
      expect(await postback("L-arch-2", "", "3.00")).toBe("counted");
      const ids = ["L-arch-1", "L-arch-2"];
      const sends = await sendsOf(ids);
      expect(sends.length).toBeGreaterThan(0);
      expect(sends.filter((s) => s.status === "queued" || s.status === "sending")).toEqual([]);
      const postbackAt = await lastPostbackAt(db());
      expect(postbackAt).not.toBeNull();
      const figures = [{ conversions: 1, revenueCents: 1250 }];
      expect(await attributed(campaignId)).toEqual(figures);

      // Live traffic at each cron's time, and every click and exit counted by the rollup.
      const at = (days: number) => clickDayStart(today + days);
      await seedClicks([{ campaignId, at: at(36) - HOUR }]);
      await rollUpShardDays(db(), env.CLICK_SHARDS, { now });
      await rollUp(true, Date.now());

      // 32 days on the day's clicks are archived, but the conversions are not 35 days old: kept.
      const early = await cron(at(32), { days: RETENTION });
      expect(early.finished).toEqual([day]);
      expect(early.ticks.at(-1)!.conversions).toEqual({ through: dayIn(at(32 - 35), "UTC"), archived: [], waiting: null });
      expect(await ledgerOf(ids)).toHaveLength(2);

      // A send still on its way to TikTok holds the day back.
      await db().update(tiktokEventSends).set({ status: "queued" }).where(eq(tiktokEventSends.id, sends[0]!.id));
      const held = await cron(at(36), { days: RETENTION });
      expect(held.ticks.at(-1)!.conversions).toMatchObject({ through: day, archived: [] });
      expect(held.ticks.at(-1)!.conversions.waiting).toMatch(new RegExp(`^${day}: conversion L-arch-[12] is still being sent to TikTok$`));
      await db().update(tiktokEventSends).set({ status: sends[0]!.status }).where(eq(tiktokEventSends.id, sends[0]!.id));

      const gone = await cron(at(36), { days: RETENTION });
      expect(gone.ticks.at(-1)!.conversions).toMatchObject({ through: day, archived: [{ date: day, chunk: 1, conversions: 2, sends: sends.length }] });
      expect(await ledgerOf(ids)).toEqual([]);
      expect(await sendsOf(ids)).toEqual([]);
      expect(await db().select().from(conversionArchives)).toMatchObject([
        { date: day, chunk: 1, objectKey: conversionArchiveKey(day, 1), conversions: 2, sends: sends.length, lastPostbackAt: postbackAt },
      ]);
      const [file] = await archivedFiles(day);
      expect(file!.key).toBe(`conversions/${day}/0001.csv.gz`);
      expect(file!.lines[0]).toBe(CONVERSION_CSV_HEADERS.join(","));
      const line = file!.lines.find((l) => l.startsWith("L-arch-1,"))!;
      expect(line).toContain(`,postback,${day},11,`);
      expect(line).toContain(`,mb-arch,${sub2},,12.50,,Yes,`);
      expect(file!.lines.filter((l) => l.startsWith("L-arch-2,")).length).toBeGreaterThan(0);
      expect(file!.lines).toHaveLength(1 + sends.length + ids.filter((id) => !sends.some((s) => s.conversionId === id)).length);

      // The report's figures stay; the sync status still knows when the last postback came.
      expect(await attributed(campaignId)).toEqual(figures);
      const r = await report(admin.cookie, { startDate: day, endDate: day, groupBy: "campaign" });
      expect(rowByKey(r, String(campaignId))).toMatchObject({ revenue: "12.50", conversions: 1 });
      expect(await lastPostbackAt(db())).toBe(postbackAt);

      // The network sends the postback again: D1 no longer knows the conversion, and its click is
      // of an archived day, so nothing is counted (a new conversion would be in the next pull).
      expect(await postback("L-arch-1", sub2)).toBe("click-archived");
      expect(await attributed(campaignId)).toEqual(figures);
      expect(await ledgerOf(ids)).toEqual([]);
    },
  );

  it("leave a chunk at a time, each row in one file once, when two cron runs work at once", { timeout: 60_000 }, async () => {
    const ids = ["L-chunk-1", "L-chunk-2", "L-chunk-3", "L-chunk-4", "L-chunk-5"];
    for (const id of ids) expect(await postback(id, "", "1.00")).toBe("counted");
    const day = dayIn(Date.now(), "UTC");
    const later = Date.now() + 36 * 24 * HOUR;
    const run = (chunksPerRun: number) =>
      archiveConversions(db(), env.ARCHIVE, { now: later, clicksArchivedThrough: day, timeZone: "UTC", sizes: { chunkRows: 2, chunksPerRun } });

    // Two runs read the same first chunk: one records it, the other stops without deleting anything.
    const [a, b] = await Promise.all([run(1), run(1)]);
    expect([...a.archived, ...b.archived]).toEqual([{ date: day, chunk: 1, conversions: 2, sends: expect.any(Number), bytes: expect.any(Number) }]);
    expect([a.waiting, b.waiting].filter(Boolean)).toEqual([`${day}: chunk 1 was recorded by another run`]);
    expect(await ledgerOf(ids)).toHaveLength(3);

    const rest = await run(10);
    expect(rest.archived.map((c) => [c.chunk, c.conversions])).toEqual([
      [2, 2],
      [3, 1],
    ]);
    expect(await ledgerOf(ids)).toEqual([]);
    const files = await archivedFiles(day);
    expect(files.map((f) => f.key)).toEqual([1, 2, 3].map((n) => conversionArchiveKey(day, n)));
    const inFiles = files.flatMap((f) => f.lines.slice(1).map((l) => l.split(",")[0]));
    expect([...new Set(inFiles)].sort()).toEqual(ids);
    // Nothing is left to do: a run finds no day.
    expect(await run(10)).toEqual({ through: day, archived: [], waiting: null });
  });

  it("delete nothing while R2 fails, and the next run writes the chunk", { timeout: 60_000 }, async () => {
    const ids = ["L-down-1", "L-down-2"];
    for (const id of ids) expect(await postback(id, "", "2.00")).toBe("counted");
    const day = dayIn(Date.now(), "UTC");
    const options = { now: Date.now() + 36 * 24 * HOUR, clicksArchivedThrough: day, timeZone: "UTC" };
    const down = { put: () => Promise.reject(new Error("R2 is unavailable")) } as unknown as R2Bucket;
    expect(await archiveConversions(db(), down, options)).toEqual({ through: day, archived: [], waiting: `${day}: failed: R2 is unavailable` });
    expect(await ledgerOf(ids)).toHaveLength(2);
    expect(await db().select().from(conversionArchives)).toEqual([]);
    const next = await archiveConversions(db(), env.ARCHIVE, options);
    expect(next.archived).toMatchObject([{ date: day, chunk: 1, conversions: 2 }]);
    expect(await ledgerOf(ids)).toEqual([]);
  });

  it("refuse a postback for a click up to a day after the last day whose conversions left, and count any other", { timeout: 60_000 }, async () => {
    const today = clickDayOf(Date.now());
    const dateOf = (d: number) => dayIn(clickDayStart(d), "UTC");
    await db()
      .insert(conversionArchives)
      .values({
        date: dateOf(today - 3),
        chunk: 1,
        objectKey: conversionArchiveKey(dateOf(today - 3), 1),
        conversions: 1,
        sends: 0,
        bytes: 1,
        archivedAt: Date.now(),
      });
    const idOf = (d: number) => newClickId(env.SESSION_SECRET, { day: d, shard: 0 });
    // A day's margin for the report time zone: the ledger's days are its, the id's are UTC days.
    expect(await postback("L-edge-1", await idOf(today - 4))).toBe("click-archived");
    expect(await postback("L-edge-2", await idOf(today - 2))).toBe("click-archived");
    expect(await postback("L-edge-3", await idOf(today - 1))).toBe("counted");
    // No click, or an id that names no day: counted as always.
    expect(await postback("L-edge-4", "")).toBe("counted");
    expect(await postback("L-edge-5", "not-one-of-our-ids")).toBe("counted");
    const ledger = await ledgerOf(["L-edge-1", "L-edge-2", "L-edge-3", "L-edge-4", "L-edge-5"]);
    expect(ledger.map((r) => r.conversionId).sort()).toEqual(["L-edge-3", "L-edge-4", "L-edge-5"]);
  });
});
