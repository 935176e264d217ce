import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { archiveKey } from "../src/db/queries/click-archives";
import { recordExit } from "../src/db/queries/clicks";
import { clickArchives, clickDailyStats, clicks, landerClicks } from "../src/db/schema";
import { clickRetentionJob } from "../src/jobs/click-retention";
import { JOBS, runScheduled } from "../src/jobs";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { countCsvRecords, putStream } from "../src/retention/archive-day";
import { clicksRetention, DEFAULT_CLICKS_RETENTION_DAYS } from "../src/retention/config";
import { runRetention } from "../src/retention/run-retention";
import { CLICK_CSV_HEADERS } from "../src/tracking/click-csv";
import { call, db, makeAdmin, makeUser, type TestUser } from "./helpers";
import { unconfiguredEnv } from "./performance-helpers";
import { report, seedCake, seedCampaign, seedClicks, seedOffer, seedSpend, setReportTimeZone, type ClickSeed } from "./stats-helpers";

const DAY = 86_400_000;
const RETENTION = 30;
const bucket = () => env.ARCHIVE;
/** An instant `days` whole days after `date`'s midnight UTC. */
const after = (date: string, days: number) => Date.parse(`${date}T00:00:00Z`) + days * DAY;

const rawCount = async () => (await db().all<{ n: number }>(sql`select count(*) as n from clicks`))[0]!.n;
const archives = () => db().select().from(clickArchives).orderBy(clickArchives.day);

/** The archived file, unzipped, as text (its header included). */
async function archiveText(day: string) {
  const object = await bucket().get(archiveKey(day));
  expect(object, `clicks/${day}.csv.gz`).not.toBeNull();
  return new Response(object!.body.pipeThrough(new DecompressionStream("gzip"))).text();
}

/** Rollup, then retention with the test's retention period, as the cron runs them. */
async function cron(now: number, options: { rowsPerRun?: number; deleteChunk?: number; target?: R2Bucket } = {}) {
  await rollUpClicks(db(), { now });
  return runRetention(db(), options.target ?? bucket(), { now, days: RETENTION, ...options });
}

/** An R2 bucket that fails the chosen calls (the rest go to the real local bucket). */
function failing(fail: Partial<Record<"put" | "get" | "createMultipartUpload", () => boolean>>): R2Bucket {
  const real = bucket();
  return new Proxy(real, {
    get(target, prop: string) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      const check = fail[prop as keyof typeof fail];
      return (...args: unknown[]) => {
        if (check?.()) return Promise.reject(new Error(`R2 ${prop} failed (test)`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

let admin: TestUser;
beforeEach(async () => {
  admin ??= await makeAdmin();
  await setReportTimeZone("UTC");
  // Each test starts from an empty click store: retention works through the days in order.
  for (const table of [
    "lander_clicks",
    "clicks",
    "click_daily_stats",
    "click_archives",
    "click_rollup_state",
    "refused_clicks",
    "cake_attributed_daily",
    "cake_stats",
    "tiktok_spend",
  ]) {
    await db().run(sql.raw(`delete from ${table}`));
  }
  const listed = await bucket().list({ prefix: "clicks/" });
  if (listed.objects.length) await bucket().delete(listed.objects.map((o) => o.key));
});
afterEach(() => vi.restoreAllMocks());

/**
 * Clicks on three days (the middle one has none), with exits, and one recent click: the rollup's
 * newest counted click stays in D1 until a newer one is counted, as live traffic provides.
 */
async function threeDays() {
  const c = await seedCampaign({ name: "Retained" });
  const rows: ClickSeed[] = [
    { campaignId: c, at: "2020-01-01T08:00:00Z", tt: "tt1", placement: "feed", exitedAt: "2020-01-01T08:00:30Z" },
    { campaignId: c, at: "2020-01-01T23:59:59.999Z", tt: "tt1", placement: "feed", cname: '=cmd|"x"', crname: "line\r\nbreak, comma" },
    { campaignId: c, at: "2020-01-03T00:00:00Z", tt: "tt2", placement: "pangle", exitedAt: "2020-01-03T00:01:00Z" },
    { campaignId: c, at: "2020-01-03T10:00:00Z", tt: "tt2" },
    { campaignId: c, at: "2020-01-03T12:00:00Z" },
    // Today's traffic, inside the retention.
    { campaignId: c, at: "2020-02-02T00:00:00Z" },
  ];
  const ids = await seedClicks(rows);
  return { c, ids };
}

describe("the retention setting", () => {
  it.each([
    [undefined, 90, null],
    ["", 90, null],
    [" 120 ", 120, null],
    ["7", 7, null],
    ["3650", 3650, null],
    ["6", 90, 'CLICKS_RETENTION_DAYS is "6", not a whole number of days from 7 to 3650; using the default of 90 days'],
    ["90.5", 90, 'CLICKS_RETENTION_DAYS is "90.5", not a whole number of days from 7 to 3650; using the default of 90 days'],
    ["ninety", 90, 'CLICKS_RETENTION_DAYS is "ninety", not a whole number of days from 7 to 3650; using the default of 90 days'],
    ["-5", 90, 'CLICKS_RETENTION_DAYS is "-5", not a whole number of days from 7 to 3650; using the default of 90 days'],
  ])("%j means %i days", (value, days, problem) => {
    expect(clicksRetention(value)).toEqual({ days, problem });
  });

  it("invalid: the cron logs a clear line and keeps the default 90 days", async () => {
    expect(JOBS).toContain(clickRetentionJob);
    const warn = vi.spyOn(console, "warn");
    const c = await seedCampaign();
    await seedClicks([
      { campaignId: c, at: "2020-01-01T12:00:00Z" },
      { campaignId: c, at: "2020-01-02T12:00:00Z" },
    ]);
    // 90 days before Apr 1 12:00 (2020 is a leap year) is Jan 2 12:00: Jan 1 is past it, Jan 2 not.
    const now = after("2020-04-01", 0.5);
    // The rollup and retention run side by side in one cron run; the next run archives.
    await runScheduled({ ...unconfiguredEnv(), CLICKS_RETENTION_DAYS: "ninety" }, now);
    await runScheduled({ ...unconfiguredEnv(), CLICKS_RETENTION_DAYS: "ninety" }, now);
    expect(warn).toHaveBeenCalledWith(
      'click-retention: CLICKS_RETENTION_DAYS is "ninety", not a whole number of days from 7 to 3650; using the default of 90 days',
    );
    expect((await archives()).map((a) => a.day)).toEqual(["2020-01-01"]);
    expect(await rawCount()).toBe(1);
    expect(DEFAULT_CLICKS_RETENTION_DAYS).toBe(90);
  });
});

describe("archiving and deleting raw clicks", () => {
  it("archives each day with clicks as the Click Log's CSV, reads it back, then deletes it; a day without clicks has no file", async () => {
    const { c } = await threeDays();
    // An exit row (lander_clicks) of the first click: it goes with its click.
    const [first] = await db().select().from(clicks).orderBy(clicks.id).limit(1);
    const offer = await seedOffer();
    await db()
      .insert(landerClicks)
      .values({ clickId: first!.clickId, offerId: offer, clickedAt: first!.clickedAt + 30_000 });

    // Jan 3 ends 30 days before Feb 3: Jan 1 and Jan 3 are past the retention on Feb 3 12:00.
    const run = await cron(after("2020-02-03", 0.5));
    // Five clicks and the exit row that went with its click.
    expect(run).toMatchObject({ finished: ["2020-01-01", "2020-01-03"], deleted: 6, waiting: null });
    expect(run.archived.map((a) => [a.day, a.rows])).toEqual([
      ["2020-01-01", 2],
      ["2020-01-03", 3],
    ]);
    expect(await rawCount()).toBe(1);
    expect(await db().select().from(landerClicks)).toEqual([]);
    const ledger = await archives();
    expect(ledger.map((a) => ({ day: a.day, rows: a.rows, exits: a.exits, deleted: a.deletedAt !== null }))).toEqual([
      { day: "2020-01-01", rows: 2, exits: 1, deleted: true },
      { day: "2020-01-03", rows: 3, exits: 1, deleted: true },
    ]);
    expect(ledger[0]).toMatchObject({ startMs: after("2020-01-01", 0), endMs: after("2020-01-02", 0), timeZone: "UTC", objectKey: "clicks/2020-01-01.csv.gz" });

    const text = await archiveText("2020-01-01");
    // A byte-order mark (the text reader drops it), the header, then newest first like the export;
    // formula-looking cells quoted as text, line breaks kept inside quotes.
    const raw = await new Response((await bucket().get(archiveKey("2020-01-01")))!.body.pipeThrough(new DecompressionStream("gzip"))).bytes();
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.startsWith(`${CLICK_CSV_HEADERS.join(",")}\r\n`)).toBe(true);
    const lines = text.split("\r\n");
    expect(lines[1]).toMatch(/^[0-9a-f-]{36},Retained,2020-01-01T23:59:59\.999Z,No,,tt1,,,feed,"'=cmd\|""x""",,"line$/);
    // The visitor columns follow (TTCLID ... Bot Reason): unknown for these seeded clicks, Bot "No".
    expect(lines[3]).toMatch(/^[0-9a-f-]{36},Retained,2020-01-01T08:00:00\.000Z,Yes,2020-01-01T08:00:30\.000Z,tt1,,,feed,,,,,,,,,,,,,,,No,$/);
    expect(await bucket().head(archiveKey("2020-01-02"))).toBeNull();

    // The Click Log offers the archived days of a range reaching past the retention.
    const member = await makeUser("user", ["clicks"]);
    const info = await call("/api/clicks/retention?startDate=2020-01-01&endDate=2020-01-31", { cookie: member.cookie });
    expect(await info.json()).toMatchObject({
      retentionDays: 90,
      retentionProblem: null,
      archivedBefore: "2020-01-04T00:00:00.000Z",
      reachesPastRetention: true,
      archives: [
        { day: "2020-01-01", rows: 2, from: "2020-01-01T00:00:00.000Z", to: "2020-01-02T00:00:00.000Z" },
        { day: "2020-01-03", rows: 3 },
      ],
    });
    const download = await call("/api/clicks/archives/2020-01-03", { cookie: member.cookie });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/gzip");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="clicks-2020-01-03.csv.gz"');
    const unzipped = await new Response(download.body!.pipeThrough(new DecompressionStream("gzip"))).text();
    expect(unzipped).toBe(await archiveText("2020-01-03"));
    expect(unzipped.trim().split("\r\n")).toHaveLength(4);
    expect(c).toBeGreaterThan(0);
  });

  it("answers 404 for a day that has no archive, 400 for a date that is no day, 403 without clicks", async () => {
    await threeDays();
    await cron(after("2020-02-03", 0.5));
    const missing = await call("/api/clicks/archives/2020-01-02", { cookie: admin.cookie });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No archive of 2020-01-02: only days older than the retention that had clicks are archived" });
    expect((await call("/api/clicks/archives/2031-01-01", { cookie: admin.cookie })).status).toBe(404);
    const bad = await call("/api/clicks/archives/2020-02-30", { cookie: admin.cookie });
    expect(bad.status).toBe(400);
    expect((await call("/api/clicks/archives/2020-01-01", { cookie: (await makeUser("user", ["dashboard"])).cookie })).status).toBe(403);
  });

  it("keeps a day until it is wholly past the retention, and a range inside the retention does not reach past it", async () => {
    const c = await seedCampaign();
    await seedClicks([
      { campaignId: c, at: "2020-01-01T12:00:00Z" },
      { campaignId: c, at: "2020-02-15T12:00:00Z" },
    ]);
    const dayEnd = after("2020-01-02", 0);
    expect((await cron(dayEnd + RETENTION * DAY - 1)).archived).toEqual([]);
    expect(await rawCount()).toBe(2);
    expect((await cron(dayEnd + RETENTION * DAY)).archived.map((a) => a.day)).toEqual(["2020-01-01"]);
    expect(await rawCount()).toBe(1);

    const now = Date.now();
    const recent = new Date(now - 3 * DAY).toISOString().slice(0, 10);
    const info = await call(`/api/clicks/retention?startDate=${recent}&endDate=${recent}`, { cookie: admin.cookie });
    expect(await info.json()).toMatchObject({ reachesPastRetention: false, archives: [] });
  });

  it("deletes a bounded number of rows per run; a run cut off half-way is finished by the next", async () => {
    const c = await seedCampaign();
    await seedClicks(Array.from({ length: 12 }, (_, i) => ({ campaignId: c, at: after("2020-01-05", 0) + i * 60_000 })));
    await seedClicks([{ campaignId: c, at: after("2020-02-19", 0) }]);
    const now = after("2020-02-20", 0);
    const first = await cron(now, { rowsPerRun: 5, deleteChunk: 2 });
    expect(first).toMatchObject({ deleted: 5, finished: [] });
    expect(first.waiting).toMatch(/5 rows deleted, this run's limit/);
    expect(first.archived.map((a) => [a.day, a.rows])).toEqual([["2020-01-05", 12]]);
    expect(await rawCount()).toBe(8);
    expect((await archives())[0]!.deletedAt).toBeNull();

    // The next run does not archive the day again: it carries on deleting.
    const second = await cron(now + 15 * 60_000, { rowsPerRun: 100, deleteChunk: 4 });
    expect(second).toMatchObject({ archived: [], deleted: 7, finished: ["2020-01-05"], waiting: null });
    expect(await rawCount()).toBe(1);
    expect((await archives())[0]!.rows).toBe(12);
    expect((await archiveText("2020-01-05")).trim().split("\r\n")).toHaveLength(13);
  });

  it("two runs at once archive each day once and delete its clicks once", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await rollUpClicks(db(), { now });
    const runs = await Promise.all([0, 1].map(() => runRetention(db(), bucket(), { now, days: RETENTION })));
    // Whatever one left (waiting on the other's record), the next run finishes.
    await cron(now + 60_000);
    expect((await archives()).map((a) => [a.day, a.rows, a.deletedAt !== null])).toEqual([
      ["2020-01-01", 2, true],
      ["2020-01-03", 3, true],
    ]);
    // The second run found the day claimed and left it: one file written per day.
    expect(runs.some((r) => r.waiting?.endsWith("another run is archiving it"))).toBe(true);
    expect(await rawCount()).toBe(1);
  });

  it("never touches a day the click rollup has not counted", async () => {
    const c = await seedCampaign();
    await seedClicks([{ campaignId: c, at: "2020-01-01T12:00:00Z" }]);
    await rollUpClicks(db(), { now: after("2020-01-02", 0) });
    // Stored after the rollup ran, into a day long past (a late write): not counted yet.
    await seedClicks([{ campaignId: c, at: "2020-01-01T13:00:00Z" }]);
    const run = await runRetention(db(), bucket(), { now: after("2020-03-01", 0), days: RETENTION });
    expect(run).toMatchObject({ archived: [], deleted: 0, waiting: "2020-01-01: the click rollup has not counted the whole day yet" });
    expect(await rawCount()).toBe(2);
    expect(await archives()).toEqual([]);
    // Once the rollup has run (and traffic went on), the day goes.
    await seedClicks([{ campaignId: c, at: "2020-02-28T12:00:00Z" }]);
    expect((await cron(after("2020-03-01", 0))).finished).toEqual(["2020-01-01"]);
    expect((await archives())[0]!.rows).toBe(2);
  });

  it("keeps a click whose exit the rollup has not counted until it has", async () => {
    const c = await seedCampaign();
    const offer = await seedOffer();
    const [late] = await seedClicks([{ campaignId: c, at: "2020-01-01T12:00:00Z" }]);
    await seedClicks([
      { campaignId: c, at: "2020-01-01T13:00:00Z" },
      { campaignId: c, at: "2020-02-28T13:00:00Z" },
    ]);
    const now = after("2020-03-01", 0);
    await rollUpClicks(db(), { now });
    // A visitor leaves the lander now: the exit is newer than the rollup's exit watermark.
    await recordExit(db(), { clickId: late!, offerId: offer, ipAddress: null, userAgent: null, at: now });
    const run = await runRetention(db(), bucket(), { now, days: RETENTION });
    expect(run.deleted).toBe(1);
    expect(run.waiting).toBe("2020-01-01: 1 archived clicks are kept until the click rollup has counted their exits or a newer click");
    // 10 minutes on, the rollup has counted the exit: the click goes, its exit still counted.
    const later = await cron(now + 10 * 60_000);
    // The click and its exit row.
    expect(later).toMatchObject({ deleted: 2, finished: ["2020-01-01"] });
    const [row] = await db().select().from(clickDailyStats).where(eq(clickDailyStats.campaignId, c)).orderBy(clickDailyStats.date);
    expect(row).toMatchObject({ date: "2020-01-01", clicks: 2, exits: 1 });
  });

  it("counts an archived click's late exit once, even when the rollup is rebuilt meanwhile", async () => {
    const c = await seedCampaign();
    const offer = await seedOffer();
    const [late] = await seedClicks([
      { campaignId: c, at: "2020-01-01T12:00:00Z" },
      { campaignId: c, at: "2020-01-01T13:00:00Z", exitedAt: "2020-01-01T13:01:00Z" },
      { campaignId: c, at: "2020-02-28T13:00:00Z" },
    ]);
    const now = after("2020-03-01", 0);
    await rollUpClicks(db(), { now });
    await recordExit(db(), { clickId: late!, offerId: offer, ipAddress: null, userAgent: null, at: now });
    expect((await runRetention(db(), bucket(), { now, days: RETENTION })).deleted).toBe(1);
    const sums = async () =>
      (await db().all<{ clicks: number; exits: number }>(sql`select sum(clicks) as clicks, sum(exits) as exits from click_daily_stats`))[0];
    // The time zone changes while the archived day still has a click with an uncounted exit.
    await setReportTimeZone("Asia/Tokyo");
    expect((await rollUpClicks(db(), { now: now + 60_000 })).rebuilt).toBe(true);
    expect(await sums()).toEqual({ clicks: 3, exits: 1 });
    expect((await cron(now + 20 * 60_000)).finished).toEqual(["2020-01-01"]);
    expect(await sums()).toEqual({ clicks: 3, exits: 2 });
    const r = await report(admin.cookie, { startDate: "2019-12-01", endDate: "2020-03-31", campaignId: c });
    expect(r.rows.find((x) => x.campaignId === c)).toMatchObject({ linkClicks: 3, exitClicks: 2 });
  });
});

describe("faults", () => {
  it("R2 failing while the archive is written: nothing recorded, nothing deleted; the next run does it", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await expect(cron(now, { target: failing({ put: () => true }) })).rejects.toThrow("R2 put failed (test)");
    expect(await archives()).toEqual([]);
    expect(await rawCount()).toBe(6);

    // The second day fails: the first stays archived and deleted, the second untouched.
    let puts = 0;
    await expect(cron(now, { target: failing({ put: () => ++puts === 2 }) })).rejects.toThrow("R2 put failed (test)");
    expect((await archives()).map((a) => [a.day, a.deletedAt !== null])).toEqual([["2020-01-01", true]]);
    expect(await rawCount()).toBe(4);

    expect((await cron(now)).finished).toEqual(["2020-01-03"]);
    expect(await rawCount()).toBe(1);
  });

  it("a run killed between writing the file and checking it: nothing deleted before the check; the next run finishes", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await expect(cron(now, { target: failing({ get: () => true }) })).rejects.toThrow("R2 get failed (test)");
    // The file is there, but unchecked: no record, and every click still in D1.
    expect(await bucket().head(archiveKey("2020-01-01"))).not.toBeNull();
    expect(await archives()).toEqual([]);
    expect(await rawCount()).toBe(6);
    const run = await cron(now);
    expect(run.finished).toEqual(["2020-01-01", "2020-01-03"]);
    const file = (await bucket().get(archiveKey("2020-01-01")))!;
    expect(await countCsvRecords(file.body.pipeThrough(new DecompressionStream("gzip")))).toBe(3);
  });

  it("a run cut off outright leaves its claim: the next run waits, the one after writes the day", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await rollUpClicks(db(), { now });
    // What a run cut off between claiming and recording leaves: a claim, maybe a file, no record.
    const startMs = after("2020-01-01", 0);
    await db()
      .insert(clickArchives)
      .values({
        day: "2020-01-01",
        timeZone: "UTC",
        startMs,
        endMs: startMs + DAY,
        objectKey: archiveKey("2020-01-01"),
        rows: 0,
        exits: 0,
        bytes: 0,
        maxClickId: 0,
        claimedAt: now,
      });
    const next = await cron(now + 15 * 60_000);
    expect(next).toMatchObject({ archived: [], deleted: 0, waiting: "2020-01-01: another run is archiving it" });
    expect(await rawCount()).toBe(6);
    const after30 = await cron(now + 30 * 60_000);
    expect(after30.finished).toEqual(["2020-01-01", "2020-01-03"]);
    const file = (await bucket().get(archiveKey("2020-01-01")))!;
    expect(await countCsvRecords(file.body.pipeThrough(new DecompressionStream("gzip")))).toBe(3);
  });

  it("a file that reads back short is refused and nothing is deleted", async () => {
    await threeDays();
    const real = bucket();
    // R2 hands back a file cut off after its header (a torn write).
    const torn = new Proxy(real, {
      get(target, prop: string) {
        if (prop !== "get") return (Reflect.get(target, prop) as (...a: unknown[]) => unknown).bind(target);
        return async (key: string) => {
          const object = await target.get(key);
          if (!object) return object;
          const text = await new Response(object.body.pipeThrough(new DecompressionStream("gzip"))).text();
          const cut = new Blob([text.slice(0, text.indexOf("\r\n") + 2)]).stream().pipeThrough(new CompressionStream("gzip"));
          return { ...object, size: object.size, body: cut };
        };
      },
    });
    await expect(cron(after("2020-02-03", 0.5), { target: torn })).rejects.toThrow("2020-01-01: 2 clicks written");
    expect(await archives()).toEqual([]);
    expect(await rawCount()).toBe(6);
  });

  it("uploads a large day in fixed-size parts, and aborts the upload when a part fails", async () => {
    const size = 13 * 1024 * 1024;
    const random = () => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          const n = Math.min(1024 * 1024, size - sent);
          const chunk = new Uint8Array(n);
          for (let i = 0; i < n; i += 65536) crypto.getRandomValues(chunk.subarray(i, Math.min(n, i + 65536)));
          controller.enqueue(chunk);
          sent += n;
          if (sent >= size) controller.close();
        },
      });
    };
    const partBytes = 5 * 1024 * 1024;
    expect(await putStream(bucket(), "clicks/multipart-test", random(), {}, partBytes)).toBe(size);
    expect((await bucket().head("clicks/multipart-test"))!.size).toBe(size);

    const real = bucket();
    let parts = 0;
    let aborted = false;
    const flaky = new Proxy(real, {
      get(target, prop: string) {
        if (prop !== "createMultipartUpload") return (Reflect.get(target, prop) as (...a: unknown[]) => unknown).bind(target);
        return async (key: string, options?: R2MultipartOptions) => {
          const upload = await target.createMultipartUpload(key, options);
          return {
            ...upload,
            key: upload.key,
            uploadId: upload.uploadId,
            uploadPart: (n: number, body: Uint8Array) => (++parts === 2 ? Promise.reject(new Error("part 2 lost")) : upload.uploadPart(n, body)),
            abort: () => ((aborted = true), upload.abort()),
            complete: (p: R2UploadedPart[]) => upload.complete(p),
          };
        };
      },
    });
    await expect(putStream(flaky, "clicks/multipart-failed", random(), {}, partBytes)).rejects.toThrow("part 2 lost");
    expect(aborted).toBe(true);
    expect(await bucket().head("clicks/multipart-failed")).toBeNull();
  }, 60_000);

  it("counts CSV records by line ends outside quotes, and refuses a cut-off file", async () => {
    const stream = (text: string) => new Blob([text]).stream();
    expect(await countCsvRecords(stream('a,b\r\n"x\r\ny",z\r\n"q""",w\r\n'))).toBe(3);
    await expect(countCsvRecords(stream('a,b\r\n"x\r\n'))).rejects.toThrow("the archive ends in the middle of a row");
    await expect(countCsvRecords(stream("a,b\r\nc"))).rejects.toThrow("the archive ends in the middle of a row");
  });
});

describe("the stats keep what the raw clicks said", () => {
  it("a report over the year is exactly what it was before the raw rows went", async () => {
    const offer = await seedOffer();
    const a = await seedCampaign({ name: "A", offerId: offer });
    const b = await seedCampaign({ name: "B", offerId: offer });
    const rows: ClickSeed[] = [];
    for (let d = 0; d < 6; d++) {
      for (let i = 0; i < 5 + d; i++) {
        const day = new Date(after("2021-03-01", d)).toISOString().slice(0, 10);
        rows.push({
          campaignId: i % 3 === 0 ? b : a,
          at: `${day}T${String(i + 1).padStart(2, "0")}:15:00Z`,
          tt: `tt${i % 2}`,
          adGroup: `ag${i % 3}`,
          placement: i % 2 ? "feed" : "pangle",
          cname: `TT ${i % 2}`,
          exitedAt: i % 2 ? `${day}T${String(i + 1).padStart(2, "0")}:16:00Z` : null,
        });
      }
    }
    const ids = await seedClicks(rows);
    await seedClicks([{ campaignId: a, at: "2021-04-30T12:00:00Z", tt: "tt0" }]);
    // CAKE saw every other click (sub2 = our click id); spend on both ad campaigns every day.
    await seedCake(
      ids
        .filter((_, i) => i % 2 === 0)
        .map((id, i) => ({
          date: String(rows[i * 2]!.at).slice(0, 10),
          offerId: 700 + (i % 2),
          offerName: `Net offer ${i % 2}`,
          subid1: `mb${i % 3}`,
          subid2: id,
          subid3: i % 4 ? `sp${i % 2}` : "",
          clicks: 1,
          conversions: i % 3 === 0 ? 1 : 0,
          revenueCents: i % 3 === 0 ? 1250 + i : 0,
        })),
    );
    await seedSpend(
      Array.from({ length: 6 }, (_, d) => new Date(after("2021-03-01", d)).toISOString().slice(0, 10)).flatMap((date, d) => [
        { date, tt: "tt0", cents: 1000 + d * 37 },
        { date, tt: "tt1", cents: 777 + d * 11 },
      ]),
    );
    await rollUpClicks(db(), { now: after("2021-03-10", 0) });
    const year = { startDate: "2021-01-01", endDate: "2021-12-31" };
    const groupings = ["campaign", "placement", "tiktokAdGroupId", "offer", "mediaBuyer", "spark", "lander"] as const;
    const strip = (r: Awaited<ReturnType<typeof report>>) => ({ rows: r.rows, totals: r.totals, daily: r.daily, spendNote: r.spendNote });
    const before = [];
    for (const groupBy of groupings) before.push(strip(await report(admin.cookie, { ...year, groupBy })));
    const campaignA = before[0]!.rows.find((r) => r.campaignId === a)!;
    expect(campaignA.linkClicks).toBeGreaterThan(0);
    expect(before[0]!.totals.revenue).not.toBe("0.00");

    const run = await cron(after("2021-05-01", 0));
    expect(run.finished).toHaveLength(6);
    expect(await rawCount()).toBe(1);
    for (const [i, groupBy] of groupings.entries()) {
      expect(strip(await report(admin.cookie, { ...year, groupBy })), groupBy).toEqual(before[i]);
    }

    // The report time zone changes: the archived days keep their rows (nothing could rebuild them).
    await setReportTimeZone("America/New_York");
    const mismatch = strip(await report(admin.cookie, { ...year, groupBy: "campaign" }));
    expect(mismatch.totals).toEqual(before[0]!.totals);
    const rebuilt = await rollUpClicks(db(), { now: after("2021-05-01", 1) });
    expect(rebuilt.rebuilt).toBe(true);
    const afterRebuild = strip(await report(admin.cookie, { ...year, groupBy: "campaign" }));
    expect(afterRebuild.totals).toEqual(before[0]!.totals);
    expect(afterRebuild.rows.map((r) => [r.key, r.linkClicks, r.exitClicks])).toEqual(before[0]!.rows.map((r) => [r.key, r.linkClicks, r.exitClicks]));
  }, 60_000);

  it("after a change of time zone, new days never land on an archived day's rows", async () => {
    const c = await seedCampaign();
    await seedClicks([
      { campaignId: c, at: "2022-01-09T12:00:00Z" },
      // 02:00 UTC on Jan 10 is still Jan 9 in New York.
      { campaignId: c, at: "2022-01-10T02:00:00Z" },
      { campaignId: c, at: "2022-01-10T12:00:00Z" },
      { campaignId: c, at: "2022-02-20T12:00:00Z" },
    ]);
    // Archive Jan 9 (UTC) only.
    await cron(after("2022-01-10", RETENTION));
    expect((await archives()).map((a) => a.day)).toEqual(["2022-01-09"]);
    await setReportTimeZone("America/New_York");
    await rollUpClicks(db(), { now: after("2022-01-10", RETENTION) + 60_000 });
    const rolled = await db().select({ date: clickDailyStats.date, clicks: clickDailyStats.clicks }).from(clickDailyStats).orderBy(clickDailyStats.date);
    // The archived day keeps its one click; the New York Jan 9 evening joins Jan 10.
    expect(rolled).toEqual([
      { date: "2022-01-09", clicks: 1 },
      { date: "2022-01-10", clicks: 2 },
      { date: "2022-02-20", clicks: 1 },
    ]);
    // The next archive is Jan 10 in New York, from where Jan 9 (UTC) ended.
    const run = await cron(after("2022-01-11", RETENTION) + 6 * 3_600_000);
    expect(run.archived.map((a) => [a.day, a.rows])).toEqual([["2022-01-10", 2]]);
    expect((await archives())[1]).toMatchObject({ timeZone: "America/New_York", startMs: after("2022-01-10", 0), endMs: Date.parse("2022-01-11T05:00:00Z") });
    // Another change and rebuild: every click still counted once.
    await setReportTimeZone("UTC");
    await rollUpClicks(db(), { now: after("2022-01-12", RETENTION) });
    const total = await db()
      .select({ n: sql<number>`sum(clicks)` })
      .from(clickDailyStats);
    expect(total[0]!.n).toBe(4);
  });
});
