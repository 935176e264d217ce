import { introspectWorkflowInstance } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { archiveKey, insertRun, runInstanceId } from "../src/db/queries/click-archives";
import { recordExit } from "../src/db/queries/clicks";
import { clickArchiveRuns, clickArchives, clickDailyStats, clicks, landerClicks } from "../src/db/schema";
import { clickRetentionJob } from "../src/jobs/click-retention";
import { JOBS, runScheduled } from "../src/jobs";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import {
  afterChunk,
  ArchiveError,
  carryKey,
  completeUpload,
  countCsvRecords,
  EXPORT_START,
  exportChunk,
  openUpload,
  verifyChunk,
  type ArchivePart,
  type ExportedChunk,
} from "../src/retention/archive-day";
import { clicksRetention, DEFAULT_CLICKS_RETENTION_DAYS, type ArchiveRunParams } from "../src/retention/config";
import { runRetention, RUN_STALE_MS } from "../src/retention/run-retention";
import { CLICK_CSV_HEADERS, clickCsv } from "../src/tracking/click-csv";
import { call, db, makeAdmin, makeUser, type TestUser } from "./helpers";
import { unconfiguredEnv } from "./performance-helpers";
import { cron as cronRuns, emptyClickStore, settled, settleRuns, tick } from "./retention-helpers";
import { report, seedCake, seedCampaign, seedClicks, seedOffer, seedSpend, setReportTimeZone, type ClickSeed } from "./stats-helpers";

const DAY = 86_400_000;
const RETENTION = 30;
const bucket = () => env.ARCHIVE;
/** An instant `days` whole days after `date`'s midnight UTC. */
const after = (date: string, days: number) => Date.parse(`${date}T00:00:00Z`) + days * DAY;

const rawCount = async () => (await db().all<{ n: number }>(sql`select count(*) as n from clicks`))[0]!.n;
const archives = () => db().select().from(clickArchives).orderBy(clickArchives.day);
const runs = () => db().select().from(clickArchiveRuns).orderBy(clickArchiveRuns.id);

/** The archived file, unzipped, as text (its header included). */
async function archiveText(day: string) {
  const object = await bucket().get(archiveKey(day));
  expect(object, `clicks/${day}.csv.gz`).not.toBeNull();
  return new Response(object!.body.pipeThrough(new DecompressionStream("gzip"))).text();
}

/** The rollup, then the retention's cron runs with the test's retention period and their Workflow runs. */
const cron = (now: number, options: Omit<Parameters<typeof cronRuns>[1], "days"> = {}) => cronRuns(now, { days: RETENTION, ...options });

/** Whether R2 still takes parts for an upload (an aborted or completed one does not). */
async function uploadOpen(objectKey: string, uploadId: string) {
  try {
    await bucket().resumeMultipartUpload(objectKey, uploadId).uploadPart(1, new Uint8Array(16));
    return true;
  } catch {
    return false;
  }
}

/**
 * The day's next run, made ahead of the cron (which then starts its instance) so a test can set
 * up that instance's faults first: its steps' errors mocked, the Workflow's retry delays off.
 */
async function runWithFaults(
  day: string,
  now: number,
  faults: (m: Parameters<Parameters<Awaited<ReturnType<typeof introspectWorkflowInstance>>["modify"]>[0]>[0]) => Promise<void>,
) {
  const { run } = await insertRun(db(), { day, run: 1, objectKey: archiveKey(day), startedAt: now });
  const instance = await introspectWorkflowInstance(env.ARCHIVE_WORKFLOW, runInstanceId(run));
  await instance.modify(async (m) => {
    await m.disableRetryDelays();
    await faults(m);
  });
  return { run, instance };
}

let admin: TestUser;
beforeEach(async () => {
  admin ??= await makeAdmin();
  await setReportTimeZone("UTC");
  // Each test starts from an empty click store: retention works through the days in order.
  await emptyClickStore();
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
    // The rollup and retention run side by side in one cron run; the next run starts the archive.
    await runScheduled({ ...unconfiguredEnv(), CLICKS_RETENTION_DAYS: "ninety" }, now);
    await runScheduled({ ...unconfiguredEnv(), CLICKS_RETENTION_DAYS: "ninety" }, now);
    expect(warn).toHaveBeenCalledWith(
      'click-retention: CLICKS_RETENTION_DAYS is "ninety", not a whole number of days from 7 to 3650; using the default of 90 days',
    );
    // The cron only started the Workflow; its run archives and deletes the day.
    expect((await settleRuns()).map((r) => [r.status, r.output?.day, r.output?.finished])).toEqual([["complete", "2020-01-01", true]]);
    expect((await archives()).map((a) => a.day)).toEqual(["2020-01-01"]);
    expect(await rawCount()).toBe(1);
    expect(DEFAULT_CLICKS_RETENTION_DAYS).toBe(90);
  }, 60_000);
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
  }, 60_000);

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
  }, 60_000);

  it("keeps a day until it is wholly past the retention, and a range inside the retention does not reach past it", async () => {
    const c = await seedCampaign();
    await seedClicks([
      { campaignId: c, at: "2020-01-01T12:00:00Z" },
      { campaignId: c, at: "2020-02-15T12:00:00Z" },
    ]);
    const dayEnd = after("2020-01-02", 0);
    const early = await cron(dayEnd + RETENTION * DAY - 1);
    expect(early).toMatchObject({ archived: [], waiting: null });
    expect(early.ticks[0]!.started).toBeNull();
    expect(await rawCount()).toBe(2);
    expect((await cron(dayEnd + RETENTION * DAY)).archived.map((a) => a.day)).toEqual(["2020-01-01"]);
    expect(await rawCount()).toBe(1);

    const now = Date.now();
    const recent = new Date(now - 3 * DAY).toISOString().slice(0, 10);
    const info = await call(`/api/clicks/retention?startDate=${recent}&endDate=${recent}`, { cookie: admin.cookie });
    expect(await info.json()).toMatchObject({ reachesPastRetention: false, archives: [] });
  }, 60_000);

  it("works in bounded steps: chunks of rows exported, statements of rows deleted, each a Workflow step", async () => {
    const c = await seedCampaign();
    await seedClicks(Array.from({ length: 12 }, (_, i) => ({ campaignId: c, at: after("2020-01-05", 0) + i * 60_000 })));
    await seedClicks([{ campaignId: c, at: after("2020-02-19", 0) }]);
    const log = vi.spyOn(console, "log");
    const run = await cron(after("2020-02-20", 0), { sizes: { chunkRows: 5, pageRows: 2, deleteRows: 2, deletesPerStep: 2 } });
    expect(run).toMatchObject({ archived: [{ day: "2020-01-05", rows: 12 }], finished: ["2020-01-05"], deleted: 12, waiting: null });
    const steps = log.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith("click-archive 2020-01-05"));
    const names = steps.map((line) => line.replace(/^click-archive 2020-01-05 run \d+: /, "").replace(/:.*$/, ""));
    // 12 clicks in chunks of 5 (the third one short: the file's end), read back chunk by chunk,
    // deleted 4 at a time (2 statements of 2) until a statement finds none.
    expect(names).toEqual([
      "plan",
      "export 1",
      "export 2",
      "export 3",
      "complete upload",
      "verify 1",
      "verify 2",
      "verify 3",
      "check the stores",
      "record",
      "delete 1",
      "delete 2",
      "delete 3",
      "delete 4",
      "empty shard-days",
      "finish",
    ]);
    expect(steps.find((line) => line.includes("export 3:"))).toMatch(/2 clicks, \d+ bytes gzipped, parts 1 uploaded, the file's end written/);
    // With the two steps that log nothing: the upload opened, the kept bytes cleaned up.
    expect(run.runs[0]!.output).toMatchObject({ archived: { rows: 12, parts: 1, chunks: 3 }, steps: 18 });
    expect(await rawCount()).toBe(1);
    expect((await archiveText("2020-01-05")).trim().split("\r\n")).toHaveLength(13);
  }, 60_000);

  it("two cron runs at once start one run of the day: its instance is named after the day and the run", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await rollUpClicks(db(), { now });
    const ticks = await Promise.all([0, 1].map(() => runRetention(db(), env, { now, days: RETENTION })));
    expect(await runs()).toHaveLength(1);
    const [only] = await runs();
    const id = runInstanceId(only!);
    expect(id).toBe(`clicks-2020-01-01-${only!.id}`);
    // One of them started it; the other found it started.
    expect(ticks.map((t) => t.started ?? t.running)).toEqual([id, id]);
    expect(ticks.filter((t) => t.started)).toHaveLength(1);
    expect((await settled(id)).output).toMatchObject({ archived: { rows: 2 }, finished: true });
    // A cron run while it goes leaves it alone; once it is over the next day starts.
    const more = await cron(now + 60_000);
    expect((await archives()).map((a) => [a.day, a.rows, a.deletedAt !== null])).toEqual([
      ["2020-01-01", 2, true],
      ["2020-01-03", 3, true],
    ]);
    expect(more.archived.map((a) => a.day)).toEqual(["2020-01-03"]);
    expect((await runs()).map((r) => [r.day, r.run, r.outcome])).toEqual([
      ["2020-01-01", 1, "finished"],
      ["2020-01-03", 1, "finished"],
    ]);
    expect(await rawCount()).toBe(1);
  }, 60_000);

  it("never touches a day the click rollup has not counted", async () => {
    const c = await seedCampaign();
    await seedClicks([{ campaignId: c, at: "2020-01-01T12:00:00Z" }]);
    await rollUpClicks(db(), { now: after("2020-01-02", 0) });
    // Stored after the rollup ran, into a day long past (a late write): not counted yet.
    await seedClicks([{ campaignId: c, at: "2020-01-01T13:00:00Z" }]);
    const run = await cron(after("2020-03-01", 0), { rollup: false });
    expect(run).toMatchObject({ archived: [], deleted: 0, waiting: "2020-01-01: the click rollup has not counted the whole day yet" });
    expect(await runs()).toEqual([]);
    expect(await rawCount()).toBe(2);
    expect(await archives()).toEqual([]);
    // Once the rollup has run (and traffic went on), the day goes.
    await seedClicks([{ campaignId: c, at: "2020-02-28T12:00:00Z" }]);
    expect((await cron(after("2020-03-01", 0))).finished).toEqual(["2020-01-01"]);
    expect((await archives())[0]!.rows).toBe(2);
  }, 60_000);

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
    const run = await cron(now, { rollup: false });
    expect(run.deleted).toBe(1);
    expect(run.waiting).toBe("2020-01-01: 1 archived clicks are kept until the click rollup has counted their exits or a newer click");
    // 10 minutes on, the rollup has counted the exit: the next run only deletes (the click and its exit row).
    const later = await cron(now + 10 * 60_000);
    expect(later).toMatchObject({ archived: [], deleted: 2, finished: ["2020-01-01"] });
    expect(later.runs[0]!.output!.steps).toBe(4);
    expect((await runs()).map((r) => [r.run, r.outcome])).toEqual([
      [1, "waiting: 2020-01-01: 1 archived clicks are kept until the click rollup has counted their exits or a newer click"],
      [2, "finished"],
    ]);
    const [row] = await db().select().from(clickDailyStats).where(eq(clickDailyStats.campaignId, c)).orderBy(clickDailyStats.date);
    expect(row).toMatchObject({ date: "2020-01-01", clicks: 2, exits: 1 });
  }, 60_000);

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
    expect((await cron(now, { rollup: false })).deleted).toBe(1);
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
  }, 60_000);
});

describe("faults", () => {
  it("a step that fails is tried again on its own: the steps before it are not run again", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    // R2 failing twice as the first chunk is read back (the Workflow's retry delays are off).
    await using _ = (await runWithFaults("2020-01-01", now, (m) => m.mockStepError({ name: "verify 1" }, new Error("R2 get failed (test)"), 2))).instance;
    const log = vi.spyOn(console, "log");
    const run = await cron(now);
    expect(run.finished).toEqual(["2020-01-01", "2020-01-03"]);
    const lines = log.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith("click-archive 2020-01-01"));
    expect(lines.filter((line) => / export 1: /.test(line))).toHaveLength(1);
    expect(lines.filter((line) => / complete upload: /.test(line))).toHaveLength(1);
    expect(lines.some((line) => / verify 1 \(try 3\): 2 clicks read back/.test(line))).toBe(true);
    expect(await rawCount()).toBe(1);
    expect(await countCsvRecords((await bucket().get(archiveKey("2020-01-01")))!.body.pipeThrough(new DecompressionStream("gzip")))).toBe(3);
  }, 60_000);

  it("a run that fails for good records nothing and deletes nothing; the next cron run aborts its upload and starts the day again", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    // R2 failing on every try of the second chunk: the instance gives up after its retries.
    const { run: failed, instance } = await runWithFaults("2020-01-01", now, (m) =>
      m.mockStepError({ name: "export 2" }, new Error("R2 uploadPart failed (test)")),
    );
    await using _ = instance;
    await rollUpClicks(db(), { now });
    const first = await tick(now, { days: RETENTION, sizes: { chunkRows: 1 } });
    expect(first.tick.running).toBe(runInstanceId(failed));
    expect(first.end).toMatchObject({ status: "errored", error: "R2 uploadPart failed (test)" });
    // The upload was opened (its id recorded first) and the first chunk kept for the second.
    const [open] = await runs();
    expect(open).toMatchObject({ day: "2020-01-01", run: 1, endedAt: null, uploadClosedAt: null });
    expect(await uploadOpen(open!.objectKey, open!.uploadId!)).toBe(true);
    expect(await bucket().head(carryKey(open!.id, 1))).not.toBeNull();
    expect(await archives()).toEqual([]);
    expect(await rawCount()).toBe(6);

    // The next cron run: the failed run ended, its upload aborted and its kept bytes deleted, the day started again.
    const next = await tick(now + 15 * 60_000, { days: RETENTION });
    expect(next.tick).toMatchObject({
      ended: [{ instance: runInstanceId(failed), outcome: "failed: errored: R2 uploadPart failed (test)" }],
      aborted: [runInstanceId(failed)],
      day: "2020-01-01",
    });
    expect(await uploadOpen(open!.objectKey, open!.uploadId!)).toBe(false);
    expect((await bucket().list({ prefix: `archive-work/${open!.id}/` })).objects).toEqual([]);
    expect(next.end).toMatchObject({ status: "complete", output: { archived: { rows: 2 }, finished: true } });
    expect((await runs()).map((r) => [r.run, r.outcome, r.uploadClosedAt !== null])).toEqual([
      [1, "failed: errored: R2 uploadPart failed (test)", true],
      [2, "finished", true],
    ]);
    expect((await cron(now + 30 * 60_000)).finished).toEqual(["2020-01-03"]);
    expect(await rawCount()).toBe(1);
  }, 60_000);

  it("a run killed after its file was written but before it was checked: nothing deleted; the next run writes the file again", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await using _ = (await runWithFaults("2020-01-01", now, (m) => m.mockStepError({ name: "check the stores" }, new Error("D1 unavailable (test)")))).instance;
    await rollUpClicks(db(), { now });
    expect((await tick(now, { days: RETENTION })).end).toMatchObject({ status: "errored" });
    // The file is there, but unchecked: no record, and every click still in D1.
    expect(await bucket().head(archiveKey("2020-01-01"))).not.toBeNull();
    expect(await archives()).toEqual([]);
    expect(await rawCount()).toBe(6);
    expect((await call("/api/clicks/archives/2020-01-01", { cookie: admin.cookie })).status).toBe(404);
    const run = await cron(now + 15 * 60_000);
    expect(run.finished).toEqual(["2020-01-01", "2020-01-03"]);
    expect((await runs()).map((r) => [r.day, r.run, r.outcome])).toEqual([
      ["2020-01-01", 1, "failed: errored: D1 unavailable (test)"],
      ["2020-01-01", 2, "finished"],
      ["2020-01-03", 1, "finished"],
    ]);
    expect(await countCsvRecords((await bucket().get(archiveKey("2020-01-01")))!.body.pipeThrough(new DecompressionStream("gzip")))).toBe(3);
  }, 60_000);

  it("a run that never comes back is given up on after hours: its upload aborted, the day's next run started", async () => {
    await threeDays();
    const now = after("2020-02-03", 0.5);
    await rollUpClicks(db(), { now });
    // What a run whose instance is lost leaves: its row, and the upload it opened.
    const { run: lost } = await insertRun(db(), { day: "2020-01-01", run: 1, objectKey: archiveKey("2020-01-01"), startedAt: now - RUN_STALE_MS - 1 });
    const upload = await bucket().createMultipartUpload(lost.objectKey);
    await db().update(clickArchiveRuns).set({ uploadId: upload.uploadId }).where(eq(clickArchiveRuns.id, lost.id));
    const result = await tick(now, { days: RETENTION });
    expect(result.tick).toMatchObject({
      ended: [{ instance: runInstanceId(lost), outcome: "failed: still going after 6 hours" }],
      aborted: [runInstanceId(lost)],
    });
    expect(await uploadOpen(lost.objectKey, upload.uploadId)).toBe(false);
    expect(result.end).toMatchObject({ status: "complete", output: { day: "2020-01-01", finished: true } });
    expect((await runs()).map((r) => r.run)).toEqual([1, 2]);
  }, 60_000);

  it("counts CSV records by line ends outside quotes, and refuses a cut-off file", async () => {
    const stream = (text: string) => new Blob([text]).stream();
    expect(await countCsvRecords(stream('a,b\r\n"x\r\ny",z\r\n"q""",w\r\n'))).toBe(3);
    await expect(countCsvRecords(stream('a,b\r\n"x\r\n'))).rejects.toThrow("the archive ends in the middle of a row");
    await expect(countCsvRecords(stream("a,b\r\nc"))).rejects.toThrow("the archive ends in the middle of a row");
  });
});

describe("the steps", () => {
  /** A day's run as the cron makes it, and its upload opened (the first steps). */
  async function openRun(day: string, startMs: number) {
    const { run } = await insertRun(db(), { day, run: 1, objectKey: archiveKey(day), startedAt: Date.now() });
    const p: ArchiveRunParams = { day, timeZone: "UTC", startMs, endMs: startMs + DAY, objectKey: run.objectKey, runId: run.id, startedAt: run.startedAt };
    return { ...p, ...(await openUpload(db(), bucket(), p)) };
  }
  /** Every export step of a day, as the Workflow runs them. */
  async function exportAll(p: Awaited<ReturnType<typeof openRun>>, sizes: Parameters<typeof exportChunk>[4]) {
    let state = EXPORT_START;
    const chunks: ExportedChunk[] = [];
    const parts: ArchivePart[] = [];
    for (;;) {
      const chunk = await exportChunk(db(), bucket(), p, state, sizes);
      chunks.push(chunk);
      parts.push(...chunk.parts);
      state = afterChunk(state, chunk);
      if (chunk.end) return { state, chunks, parts };
    }
  }

  it("a large day goes up in parts of one size, the bytes between steps kept aside; the file is the Click Log's CSV of the day, gzipped", async () => {
    const c = await seedCampaign({ name: "Big day" });
    const start = after("2021-06-01", 0);
    // 16,000 clicks whose user agents and ttclids are random hex (half of it survives gzip): about 11 MB gzipped.
    await db().run(sql`
      with recursive n(i) as (select 0 union all select i + 1 from n where i < 15999)
      insert into clicks (click_id, campaign_id, user_agent, ttclid, clicked_at, placement, campaign_name)
      select lower(hex(randomblob(16))), ${c}, hex(randomblob(127)), hex(randomblob(500)), ${start} + i * 5000,
        case i % 3 when 0 then 'feed' else null end, case i % 7 when 0 then 'Line' || char(13, 10) || 'break, "quoted"' else 'Sale ' || (i % 5) end
      from n`);
    const expected = await new Response((await clickCsv(db(), { startMs: start, endMs: start + DAY }, 5000)).body).text();
    const partBytes = 5 * 1024 * 1024;
    const p = await openRun("2021-06-01", start);
    const { state, chunks, parts } = await exportAll(p, { partBytes, chunkRows: 4500, pageRows: 2000, deleteRows: 1, deletesPerStep: 1 });
    expect(chunks.map((ch) => ch.rows)).toEqual([4500, 4500, 4500, 2500]);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.slice(0, -1).every((part) => part.size === partBytes)).toBe(true);
    expect(parts.at(-1)!.size).toBeLessThanOrEqual(partBytes);
    // Steps that ended inside a part kept the rest for the next step.
    expect(chunks.filter((ch) => !ch.end && ch.fileBytes % partBytes !== 0).length).toBeGreaterThan(0);
    for (const ch of chunks.filter((x) => !x.end && x.fileBytes % partBytes !== 0)) {
      expect((await bucket().head(carryKey(p.runId, ch.chunk)))!.size).toBe(ch.fileBytes % partBytes);
    }
    const done = await completeUpload(db(), bucket(), p, parts, { bytes: state.bytes, crc: state.crc, length: state.length });
    expect(done.bytes).toBe(state.bytes);
    expect(done.etag).toMatch(new RegExp(`-${parts.length}$`));
    for (const ch of chunks) expect(await verifyChunk(bucket(), p, ch)).toMatchObject({ rows: ch.rows });
    // One gzip stream: DecompressionStream (which refuses anything after a gzip member's end) reads it whole.
    expect(await archiveText("2021-06-01")).toBe(expected);
    expect(expected.split("\r\n")[0]).toBe(CLICK_CSV_HEADERS.join(","));
  }, 120_000);

  it("reading back refuses a file whose bytes are not the ones written, and a file that is cut short", async () => {
    const c = await seedCampaign();
    const start = after("2021-07-01", 0);
    await seedClicks(Array.from({ length: 30 }, (_, i) => ({ campaignId: c, at: start + i * 60_000, cname: `Campaign ${i}` })));
    const p = await openRun("2021-07-01", start);
    const { state, chunks, parts } = await exportAll(p, { partBytes: 5 * 1024 * 1024, chunkRows: 10, pageRows: 4, deleteRows: 1, deletesPerStep: 1 });
    await completeUpload(db(), bucket(), p, parts, { bytes: state.bytes, crc: state.crc, length: state.length });
    const good = new Uint8Array(await (await bucket().get(p.objectKey))!.arrayBuffer());
    // One byte of the second chunk changed (a torn or corrupted write).
    const bad = good.slice();
    bad[chunks[1]!.offset + 3]! ^= 0x55;
    await bucket().put(p.objectKey, bad);
    await expect(verifyChunk(bucket(), p, chunks[0]!)).resolves.toMatchObject({ rows: 10 });
    await expect(verifyChunk(bucket(), p, chunks[1]!)).rejects.toThrow();
    // Cut off after the first chunk.
    await bucket().put(p.objectKey, good.subarray(0, chunks[1]!.offset));
    await expect(verifyChunk(bucket(), p, chunks[1]!)).rejects.toThrow();
    const refused = await verifyChunk(bucket(), p, { ...chunks[0]!, rows: 11 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ArchiveError);
    expect(String(refused)).toContain("chunk 1: 11 clicks written, 10 read back");
  }, 60_000);
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
    const [recent] = await seedClicks([{ campaignId: a, at: "2021-04-30T12:00:00Z", tt: "tt0" }]);
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
    // A day within the retention: its CAKE rows stay (its attribution can still be rebuilt).
    await seedCake([{ date: "2021-04-30", offerId: 700, subid1: "mb9", subid2: recent!, clicks: 1, conversions: 1, revenueCents: 990 }]);
    await rollUpClicks(db(), { now: after("2021-03-10", 0) });
    const year = { startDate: "2021-01-01", endDate: "2021-12-31" };
    const cakeRows = async () =>
      Object.fromEntries(
        (await db().all<{ kept: number; n: number }>(sql`select date > '2021-03-06' as kept, count(*) as n from cake_stats group by 1`)).map((r) => [
          r.kept ? "recent" : "archived",
          r.n,
        ]),
      );
    expect(await cakeRows()).toEqual({ archived: 23, recent: 1 });
    const buyers = async () =>
      ((await (await call("/api/users/assignment-options", { cookie: admin.cookie })).json()) as { mediaBuyers: string[] }).mediaBuyers;
    expect(await buyers()).toEqual(["mb0", "mb1", "mb2", "mb9"]);
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
    // CAKE's per-click rows of the archived days are gone with their clicks; the rollups the
    // report read above, and the media buyers they name, stay.
    expect(await cakeRows()).toEqual({ recent: 1 });
    expect(await buyers()).toEqual(["mb0", "mb1", "mb2", "mb9"]);

    // The report time zone changes: the archived days keep their rows (nothing could rebuild them).
    await setReportTimeZone("America/New_York");
    const mismatch = strip(await report(admin.cookie, { ...year, groupBy: "campaign" }));
    expect(mismatch.totals).toEqual(before[0]!.totals);
    const rebuilt = await rollUpClicks(db(), { now: after("2021-05-01", 1) });
    expect(rebuilt.rebuilt).toBe(true);
    const afterRebuild = strip(await report(admin.cookie, { ...year, groupBy: "campaign" }));
    expect(afterRebuild.totals).toEqual(before[0]!.totals);
    expect(afterRebuild.rows.map((r) => [r.key, r.linkClicks, r.exitClicks])).toEqual(before[0]!.rows.map((r) => [r.key, r.linkClicks, r.exitClicks]));
  }, 120_000);

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
  }, 60_000);
});
