import { eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { readRollupState, rollUpStep } from "../src/db/queries/click-rollup";
import { campaigns, clickDailyStats, clicks } from "../src/db/schema";
import { JOBS, runScheduled } from "../src/jobs";
import { EXIT_LAG_MS, rollUpClicks, rollUpClicksJob } from "../src/jobs/roll-up-clicks";
import { db, makeAdmin, type TestUser } from "./helpers";
import { unconfiguredEnv } from "./performance-helpers";
import { report, seedCampaign, seedClicks, setReportTimeZone } from "./stats-helpers";

const MIN = 60_000;

/** The rollup's rows of one campaign, in a stable order. */
const rolled = (campaignId: number) =>
  db()
    .select({
      date: clickDailyStats.date,
      tt: clickDailyStats.tiktokCampaignId,
      placement: clickDailyStats.placement,
      clicks: clickDailyStats.clicks,
      exits: clickDailyStats.exits,
    })
    .from(clickDailyStats)
    .where(eq(clickDailyStats.campaignId, campaignId))
    .orderBy(clickDailyStats.date, clickDailyStats.tiktokCampaignId, clickDailyStats.placement);

/** Our clicks and exits of one campaign over the days, as the report shows them. */
async function linkAndExits(admin: TestUser, campaignId: number, startDate: string, endDate = startDate) {
  const r = await report(admin.cookie, { startDate, endDate, campaignId });
  const row = r.rows.find((x) => x.campaignId === campaignId);
  return { linkClicks: row?.linkClicks ?? 0, exitClicks: row?.exitClicks ?? 0 };
}

let admin: TestUser;
beforeEach(async () => {
  admin ??= await makeAdmin();
  await setReportTimeZone("UTC");
});

describe("the click rollup job", () => {
  it("is one of the cron's jobs, and the scheduled handler runs it", async () => {
    expect(JOBS).toContain(rollUpClicksJob);
    const c = await seedCampaign();
    await seedClicks([{ campaignId: c, at: "2023-01-05T10:00:00Z", tt: "sched" }]);
    await runScheduled(unconfiguredEnv(), Date.parse("2023-01-06T00:00:00Z"));
    expect(await rolled(c)).toEqual([{ date: "2023-01-05", tt: "sched", placement: "", clicks: 1, exits: 0 }]);
  });

  it("rolls clicks up per day and click fields; running it again changes nothing", async () => {
    const c = await seedCampaign();
    await seedClicks([
      { campaignId: c, at: "2023-02-01T00:00:00Z", tt: "a", placement: "feed", exitedAt: "2023-02-01T00:00:30Z" },
      { campaignId: c, at: "2023-02-01T23:59:59.999Z", tt: "a", placement: "feed" },
      { campaignId: c, at: "2023-02-01T12:00:00Z", tt: "b", placement: "feed", exitedAt: "2023-02-01T12:05:00Z" },
      { campaignId: c, at: "2023-02-02T00:00:00Z", tt: "a", placement: "feed" },
      { campaignId: c, at: "2023-02-02T01:00:00Z" },
    ]);
    const now = Date.parse("2023-02-03T00:00:00Z");
    const first = await rollUpClicks(db(), { now });
    const expected = [
      { date: "2023-02-01", tt: "a", placement: "feed", clicks: 2, exits: 1 },
      { date: "2023-02-01", tt: "b", placement: "feed", clicks: 1, exits: 1 },
      { date: "2023-02-02", tt: "", placement: "", clicks: 1, exits: 0 },
      { date: "2023-02-02", tt: "a", placement: "feed", clicks: 1, exits: 0 },
    ];
    expect(await rolled(c)).toEqual(expected);
    const [{ maxId }] = (await db().all<{ maxId: number }>(sql`select max(id) as maxId from clicks`)) as [{ maxId: number }];
    expect(first.state).toMatchObject({ timeZone: "UTC", clickWatermark: maxId, exitWatermark: now - EXIT_LAG_MS });
    expect(await readRollupState(db())).toEqual(first.state);

    const again = await rollUpClicks(db(), { now });
    expect(again).toMatchObject({ rebuilt: false, steps: 0, behind: false });
    expect(await rolled(c)).toEqual(expected);
  });

  it("adds only what came since: new clicks, and the exits of rolled clicks stamped after the exit watermark", async () => {
    const c = await seedCampaign();
    const t0 = Date.parse("2023-03-01T10:00:00Z");
    const [old] = await seedClicks([{ campaignId: c, at: t0 }]);
    await rollUpClicks(db(), { now: t0 + 10 * MIN });
    expect(await rolled(c)).toEqual([{ date: "2023-03-01", tt: "", placement: "", clicks: 1, exits: 0 }]);

    // The old click exits 20 minutes in; a new click comes and exits at once; another exits a
    // minute before the next run: inside the lag, so that run leaves it to the live tail.
    await db()
      .update(clicks)
      .set({ exitedAt: t0 + 20 * MIN })
      .where(eq(clicks.clickId, old!));
    await seedClicks([
      { campaignId: c, at: t0 + 21 * MIN, exitedAt: t0 + 22 * MIN },
      { campaignId: c, at: t0 + 23 * MIN, exitedAt: t0 + 29 * MIN },
    ]);
    await rollUpClicks(db(), { now: t0 + 30 * MIN });
    expect(await rolled(c)).toEqual([{ date: "2023-03-01", tt: "", placement: "", clicks: 3, exits: 2 }]);
    expect(await linkAndExits(admin, c, "2023-03-01")).toEqual({ linkClicks: 3, exitClicks: 3 });

    await rollUpClicks(db(), { now: t0 + 45 * MIN });
    expect(await rolled(c)).toEqual([{ date: "2023-03-01", tt: "", placement: "", clicks: 3, exits: 3 }]);
    expect(await linkAndExits(admin, c, "2023-03-01")).toEqual({ linkClicks: 3, exitClicks: 3 });
  });

  it("gives the report the same figures before the cron ran, between its steps and after it", async () => {
    const c = await seedCampaign();
    const day = "2023-04-04";
    const rows = Array.from({ length: 7 }, (_, i) => ({
      campaignId: c,
      at: `${day}T0${i}:00:00Z`,
      tt: `t${i % 2}`,
      exitedAt: i % 3 === 0 ? `${day}T0${i}:30:00Z` : null,
    }));
    await seedClicks(rows);
    const expected = { linkClicks: 7, exitClicks: 3 };
    expect(await linkAndExits(admin, c, day)).toEqual(expected);
    // One step of 3 clicks, then stop (budget spent): the rest is the live tail.
    const partial = await rollUpClicks(db(), { now: Date.parse("2023-04-05T00:00:00Z"), chunk: 3, budgetMs: -1 });
    expect(partial.behind).toBe(true);
    expect(await linkAndExits(admin, c, day)).toEqual(expected);
    const done = await rollUpClicks(db(), { now: Date.parse("2023-04-05T00:00:00Z"), chunk: 3 });
    expect(done.behind).toBe(false);
    expect(done.steps).toBeGreaterThan(1);
    expect(await linkAndExits(admin, c, day)).toEqual(expected);
    expect((await rolled(c)).reduce((s, r) => s + r.clicks, 0)).toBe(7);
  });

  it("adds nothing when another run moved the watermarks first", async () => {
    const c = await seedCampaign();
    await rollUpClicks(db(), { now: Date.parse("2023-05-02T00:00:00Z") });
    const stale = (await readRollupState(db()))!;
    await seedClicks([{ campaignId: c, at: "2023-05-01T08:00:00Z" }]);
    const [{ maxId }] = (await db().all<{ maxId: number }>(sql`select max(id) as maxId from clicks`)) as [{ maxId: number }];
    const [{ clickId }] = (await db().select({ clickId: clicks.clickId }).from(clicks).where(eq(clicks.id, maxId))) as [{ clickId: string }];
    const target = { clickWatermark: maxId, anchorClickId: clickId, exitWatermark: stale.exitWatermark };
    expect(await rollUpStep(db(), stale, target, Date.now())).toBe(true);
    // The same step again, from the state both runs started from: refused, nothing added twice.
    expect(await rollUpStep(db(), stale, target, Date.now())).toBe(false);
    expect(await rolled(c)).toEqual([{ date: "2023-05-01", tt: "", placement: "", clicks: 1, exits: 0 }]);
  });

  it("notices reused click ids (the newest clicks' campaign deleted) and rebuilds", async () => {
    const keep = await seedCampaign();
    const doomed = await seedCampaign();
    await seedClicks([{ campaignId: keep, at: "2023-06-01T01:00:00Z" }]);
    await seedClicks([
      { campaignId: doomed, at: "2023-06-01T02:00:00Z" },
      { campaignId: doomed, at: "2023-06-01T03:00:00Z" },
    ]);
    await rollUpClicks(db(), { now: Date.parse("2023-06-02T00:00:00Z") });
    await db().delete(campaigns).where(eq(campaigns.id, doomed));
    // SQLite hands the deleted rows' ids out again: these clicks sit at or below the watermark.
    const fresh = await seedCampaign();
    await seedClicks([
      { campaignId: fresh, at: "2023-06-01T04:00:00Z" },
      { campaignId: fresh, at: "2023-06-01T05:00:00Z" },
    ]);
    const state = (await readRollupState(db()))!;
    const [{ minId }] = (await db().all<{ minId: number }>(sql`select min(id) as minId from clicks where campaign_id = ${fresh}`)) as [{ minId: number }];
    expect(minId).toBeLessThanOrEqual(state.clickWatermark);

    expect(await linkAndExits(admin, fresh, "2023-06-01")).toEqual({ linkClicks: 2, exitClicks: 0 });
    const run = await rollUpClicks(db(), { now: Date.parse("2023-06-02T00:10:00Z") });
    expect(run.rebuilt).toBe(true);
    expect(await rolled(fresh)).toEqual([{ date: "2023-06-01", tt: "", placement: "", clicks: 2, exits: 0 }]);
    expect(await rolled(keep)).toEqual([{ date: "2023-06-01", tt: "", placement: "", clicks: 1, exits: 0 }]);
    expect(await linkAndExits(admin, fresh, "2023-06-01")).toEqual({ linkClicks: 2, exitClicks: 0 });
  });
});

describe("report days in the report time zone", () => {
  // America/New_York: EST (UTC-5) until 2024-03-10 07:00Z, then EDT (UTC-4); that day has 23 hours.
  const instants = ["2024-03-10T04:59:59Z", "2024-03-10T05:00:00Z", "2024-03-11T03:59:59Z", "2024-03-11T04:00:00Z"];
  const perDay = async (c: number) => ({
    "2024-03-09": await linkAndExits(admin, c, "2024-03-09"),
    "2024-03-10": await linkAndExits(admin, c, "2024-03-10"),
    "2024-03-11": await linkAndExits(admin, c, "2024-03-11"),
  });

  it("counts a click on the zone's day, across a daylight-saving change, live and rolled up alike", async () => {
    await setReportTimeZone("America/New_York");
    const c = await seedCampaign();
    await seedClicks(instants.map((at) => ({ campaignId: c, at, exitedAt: at })));
    const expected = {
      "2024-03-09": { linkClicks: 1, exitClicks: 1 },
      "2024-03-10": { linkClicks: 2, exitClicks: 2 },
      "2024-03-11": { linkClicks: 1, exitClicks: 1 },
    };
    expect(await perDay(c)).toEqual(expected);
    await rollUpClicks(db(), { now: Date.parse("2024-03-12T00:00:00Z") });
    expect((await rolled(c)).map((r) => [r.date, r.clicks])).toEqual([
      ["2024-03-09", 1],
      ["2024-03-10", 2],
      ["2024-03-11", 1],
    ]);
    expect(await perDay(c)).toEqual(expected);
    const r = await report(admin.cookie, { startDate: "2024-03-10", endDate: "2024-03-10", campaignId: c });
    expect(r.timeZone).toBe("America/New_York");
  });

  it("rebuilds the rollup on the new zone's days when the setting changes, reading clicks until then", async () => {
    const c = await seedCampaign();
    await seedClicks(instants.map((at) => ({ campaignId: c, at })));
    await rollUpClicks(db(), { now: Date.parse("2024-03-12T00:00:00Z") });
    expect((await rolled(c)).map((r) => [r.date, r.clicks])).toEqual([
      ["2024-03-10", 2],
      ["2024-03-11", 2],
    ]);

    await setReportTimeZone("America/New_York");
    // The rollup still holds UTC days: the report must not use it.
    expect((await perDay(c))["2024-03-10"]).toEqual({ linkClicks: 2, exitClicks: 0 });
    expect((await perDay(c))["2024-03-09"]).toEqual({ linkClicks: 1, exitClicks: 0 });
    const run = await rollUpClicks(db(), { now: Date.parse("2024-03-12T00:05:00Z") });
    expect(run).toMatchObject({ rebuilt: true, behind: false, state: { timeZone: "America/New_York" } });
    expect((await rolled(c)).map((r) => [r.date, r.clicks])).toEqual([
      ["2024-03-09", 1],
      ["2024-03-10", 2],
      ["2024-03-11", 1],
    ]);
    expect((await perDay(c))["2024-03-11"]).toEqual({ linkClicks: 1, exitClicks: 0 });
  });
});
