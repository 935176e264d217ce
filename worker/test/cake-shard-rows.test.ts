/**
 * CAKE's click report rows of shard-day clicks, kept in their objects (tracking/cake-shards.ts),
 * through the days around them: a visitor who reaches the offer days after the link, a row CAKE
 * stops reporting, the rebuild's margin days, rows D1 held before, a deleted campaign whose id
 * SQLite gives again, and a pull that changes nothing. Clicks are written straight into shard-day
 * objects of past days (the chain from the tracking link is click-shard-conversions.test.ts's), and
 * CAKE's report is the fake.
 */
import { introspectWorkflow } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { rebuildAttributed } from "../src/db/queries/cake";
import { insertClicksOnce, type NewClick } from "../src/db/queries/clicks";
import { keptCampaigns } from "../src/db/queries/campaigns";
import { purgeOldRuns } from "../src/db/queries/sync-runs";
import { campaigns, clickShardDays, syncRuns } from "../src/db/schema";
import type { Bindings } from "../src/env";
import type { CakeClick } from "../src/integrations/cake";
import { cakeStagingBuffer } from "../src/sync/cake-sync";
import { runCakePull, type CakePullParams, type StepRunner } from "../src/sync/cake-pull-workflow";
import { runSync } from "../src/sync/run-sync";
import { clickDayOf, clickDayStart, newClickId, shardName, type ClickPlace } from "../src/tracking/click-id";
import { forgetShardCounts } from "../src/tracking/shard-days";
import { call, db, makeAdmin, type TestUser } from "./helpers";
import { configuredEnv, createFakes, fakeHttp, type Fakes } from "./performance-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const NOW = Date.now();
const TODAY = clickDayOf(NOW);
const dateOf = (day: number) => new Date(clickDayStart(day)).toISOString().slice(0, 10);
let admin: TestUser;

beforeAll(async () => {
  admin = await makeAdmin();
  // One shard a day for the last 20 days and tomorrow, as the cron would have fixed them.
  await db()
    .insert(clickShardDays)
    .values(Array.from({ length: 22 }, (_, i) => ({ day: TODAY - 20 + i, shards: 1, createdAt: NOW })))
    .onConflictDoNothing();
  forgetShardCounts();
});

/** A click stored in its shard-day object (as the clicks queue stores one), at noon UTC of `day`. */
async function storedClick(campaignId: number, day: number, over: Partial<NewClick> = {}) {
  const place: ClickPlace = { day, shard: 0 };
  const clickId = await newClickId(env.SESSION_SECRET, place);
  const click: NewClick = {
    clickId,
    campaignId,
    clickedAt: clickDayStart(day) + 12 * 3_600_000,
    ipAddress: "198.51.100.7",
    userAgent: "Mozilla/5.0 (iPhone)",
    tiktokCampaignId: "tt-review",
    placement: "feed",
    campaignName: "Review",
    bot: false,
    ...over,
  };
  expect(await env.CLICK_SHARDS.getByName(shardName(place)).write([click])).toMatchObject({ written: 1 });
  return clickId;
}

/** A campaign made a month ago, before the clicks these tests store in past days. */
async function olderCampaign(name: string) {
  const id = await campaignWithOffer(name);
  await db()
    .update(campaigns)
    .set({ createdAt: NOW - 30 * 86_400_000 })
    .where(eq(campaigns.id, id));
  return id;
}

const pull = (fakes: Fakes, days: number) =>
  runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: NOW }, { source: "cake", trigger: "manual", days });

const clicksOn = async (date: string, campaignId?: number) =>
  (
    await db().get<{ n: number | null }>(
      sql`select sum(clicks) as n from cake_attributed_daily where date = ${date} ${campaignId === undefined ? sql`` : sql`and campaign_id = ${campaignId}`}`,
    )
  )?.n ?? 0;

describe("CAKE's click rows in shard-day objects", () => {
  it("keep a shard-day click's report row dated on a margin day of the rebuild when its object is days older", async () => {
    // The visit is 6 days ago; the visitor comes back to the offer page (tab restored, back
    // button, bookmark: the offer URL still carries s2) 3 days ago, so CAKE dates its click then.
    const campaignId = await olderCampaign("Late offer click");
    const sub2 = await storedClick(campaignId, TODAY - 6);
    const date = dateOf(TODAY - 3);
    // The same story for a click D1 holds (a layout-0 id), as every click was before: the control.
    const d1Campaign = await olderCampaign("Late offer click, D1");
    const d1Sub2 = crypto.randomUUID();
    await insertClicksOnce(db(), [
      { clickId: d1Sub2, campaignId: d1Campaign, clickedAt: clickDayStart(TODAY - 6) + 12 * 3_600_000, ipAddress: "198.51.100.8", bot: false },
    ]);
    const fakes = createFakes();
    fakes.cake.state.clicks.push(
      { click_id: 1, click_date: `${date}T10:00:00`, offer_id: 21, offer_name: "Late", subid_1: "mb", subid_2: sub2 },
      { click_id: 11, click_date: `${date}T10:05:00`, offer_id: 21, offer_name: "Late", subid_1: "mb", subid_2: d1Sub2 },
    );

    // The daily pull (7 days): the row goes to the click's object, which is asked for its sums.
    expect((await pull(fakes, 7)).status).toBe("ok");
    expect(await clicksOn(date, campaignId)).toBe(1);
    expect(await clicksOn(date, d1Campaign)).toBe(1);

    // The recent pull (2 days: pulls yesterday and today, rebuilds from 3 days ago): the object of
    // 6 days ago is asked too, recorded as holding a row of that day, as D1's cake_stats row is kept.
    expect((await pull(fakes, 2)).status).toBe("ok");
    expect({ shardCampaign: await clicksOn(date, campaignId), d1Campaign: await clicksOn(date, d1Campaign), anyCampaign: await clicksOn(date) }).toEqual({
      shardCampaign: 1,
      d1Campaign: 1,
      anyCampaign: 2,
    });
  });

  it("drop a row CAKE stops reporting even when the click's object is days older than the pulled days", async () => {
    const campaignId = await olderCampaign("Stale late row");
    const first = await storedClick(campaignId, TODAY - 12);
    const second = await storedClick(campaignId, TODAY - 12);
    const date = dateOf(TODAY - 3);
    const fakes = createFakes();
    const row = { click_id: 3, click_date: `${date}T10:00:00`, offer_id: 23, offer_name: "Stale", subid_1: "mb3", subid_2: first };
    fakes.cake.state.clicks.push(row);
    // Pulls 3 days ago to today: the row goes to the object of 12 days ago.
    expect((await pull(fakes, 4)).status).toBe("ok");
    expect(await clicksOn(date, campaignId)).toBe(1);
    // CAKE no longer reports it (a click it filtered out after all); the same days pulled again.
    fakes.cake.state.clicks.splice(fakes.cake.state.clicks.indexOf(row), 1);
    expect((await pull(fakes, 4)).status).toBe("ok");
    expect(await clicksOn(date, campaignId)).toBe(0);
    // Another late click of that day's visitors, today; the recent pull rebuilds from 3 days ago.
    fakes.cake.state.clicks.push({ click_id: 4, click_date: `${dateOf(TODAY)}T10:00:00`, offer_id: 23, offer_name: "Stale", subid_1: "mb3", subid_2: second });
    expect((await pull(fakes, 2)).status).toBe("ok");
    expect(await clicksOn(dateOf(TODAY), campaignId)).toBe(1);
    // The row CAKE stopped reporting is not back in the rollup.
    expect(await clicksOn(date, campaignId)).toBe(0);
  });

  it("count a deleted campaign's clicks as Direct: a new campaign gets a new id, and one that took the id before is newer than the clicks", async () => {
    const campaignId = await olderCampaign("Newest, to be deleted");
    const sub2 = await storedClick(campaignId, TODAY, { tiktokCampaignId: "tt-old", clickedAt: NOW - 3_600_000 });
    const date = dateOf(TODAY);
    const fakes = createFakes();
    fakes.cake.state.clicks.push({ click_id: 2, click_date: `${date}T13:00:00`, offer_id: 22, offer_name: "Gone", subid_1: "mb2", subid_2: sub2 });
    expect((await pull(fakes, 1)).status).toBe("ok");
    expect(await clicksOn(date, campaignId)).toBe(1);

    // Deleted (D1's clicks of it would go with it), then a new campaign is made: it gets a new id,
    // though SQLite would give the deleted one's (the highest) again.
    expect((await call(`/api/campaigns/${campaignId}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect(await campaignWithOffer("Made after")).toBeGreaterThan(campaignId);
    // A campaign that took the id before ids were kept from reuse (migration 0024) is newer than the click.
    await db()
      .insert(campaigns)
      .values({ id: campaignId, name: "Took the id before", landerId: (await db().select().from(campaigns).limit(1))[0]!.landerId, createdAt: NOW });
    expect((await pull(fakes, 1)).status).toBe("ok");
    const rows = await db().all<{ campaignId: number; tiktokCampaignId: string; clicks: number }>(
      sql`select campaign_id as campaignId, tiktok_campaign_id as tiktokCampaignId, clicks from cake_attributed_daily
          where date = ${date} and subid1 = 'mb2'`,
    );
    expect(rows).toEqual([{ campaignId: 0, tiktokCampaignId: "", clicks: 1 }]);
  });

  it("keep a row dated the day after its object's UTC day, on the rebuild's first day, counted", async () => {
    const campaignId = await olderCampaign("East of UTC");
    const sub2 = await storedClick(campaignId, TODAY - 4);
    const date = dateOf(TODAY - 3);
    const fakes = createFakes();
    fakes.cake.state.clicks.push({ click_id: 5, click_date: `${date}T01:00:00`, offer_id: 24, offer_name: "East", subid_1: "mb5", subid_2: sub2 });
    expect((await pull(fakes, 7)).status).toBe("ok");
    expect((await pull(fakes, 2)).status).toBe("ok");
    expect(await clicksOn(date, campaignId)).toBe(1);
  });

  it("count each click once over two-week and short pulls of several objects, with the rows D1 held before", async () => {
    const campaignId = await olderCampaign("Two weeks");
    const fakes = createFakes();
    const days = [TODAY - 12, TODAY - 8, TODAY - 7, TODAY - 6, TODAY - 1];
    for (const [i, day] of days.entries()) {
      const sub2 = await storedClick(campaignId, day);
      fakes.cake.state.clicks.push({
        click_id: 50 + i,
        click_date: `${dateOf(day)}T10:00:00`,
        offer_id: 25,
        offer_name: "Weeks",
        subid_1: "mb6",
        subid_2: sub2,
      });
    }
    // What pulls left before the rows went to the objects: cake_stats rows with the clicks (no copies: the total by sub1 needs none).
    for (const c of fakes.cake.state.clicks.filter((c) => c.subid_1 === "mb6")) {
      await db().run(sql`insert into cake_stats (date, offer_id, offer_name, subid1, subid2, subid3, clicks, conversions, revenue_cents, updated_at)
        values (${c.click_date.slice(0, 10)}, 25, 'Weeks', 'mb6', ${c.subid_2!}, '', 1, 0, 0, ${NOW})`);
    }
    // ... and the rollups it built from them.
    await rebuildAttributed(db(), { start: dateOf(TODAY - 15), end: dateOf(TODAY) });
    const total = async () => (await db().get<{ n: number | null }>(sql`select sum(clicks) as n from cake_attributed_daily where subid1 = 'mb6'`))?.n ?? 0;
    for (const n of [2, 14, 14, 2, 4]) {
      expect((await pull(fakes, n)).status).toBe("ok");
      expect({ n, total: await total() }).toEqual({ n, total: 5 });
    }
  });

  it("sum a key's rows across the report's pages, held and staged in the objects in one call and kept in D1", async () => {
    const campaignId = await olderCampaign("Paged");
    const sub2 = await storedClick(campaignId, TODAY);
    const d1Campaign = await olderCampaign("Paged, D1");
    const d1Sub2 = crypto.randomUUID();
    await insertClicksOnce(db(), [{ clickId: d1Sub2, campaignId: d1Campaign, clickedAt: NOW - 3_600_000, ipAddress: "198.51.100.9", bot: false }]);
    const fakes = createFakes();
    // One row a page: each click of a key on a page of its own (the same visitor at the offer twice).
    fakes.cake.state.maxPageRows = 1;
    const row = (click_id: number, subid_2: string) => ({
      click_id,
      click_date: `${dateOf(TODAY)}T10:0${click_id}:00`,
      offer_id: 28,
      offer_name: "Paged",
      subid_1: "mb8",
      subid_2,
    });
    fakes.cake.state.clicks.push(row(1, sub2), row(2, d1Sub2), row(3, sub2), row(4, d1Sub2));
    // The object's rows of the four pages are held and staged in one call.
    const counted = configuredEnv();
    const objects = counted.CLICK_SHARDS;
    const staged: number[] = [];
    counted.CLICK_SHARDS = {
      getByName: (name: string) => {
        const real = objects.getByName(name);
        return {
          stageCakeClicks: (runId: number, rows: CakeClick[]) => {
            staged.push(rows.length);
            return real.stageCakeClicks(runId, rows);
          },
          applyCakeClicks: (...args: Parameters<typeof real.applyCakeClicks>) => real.applyCakeClicks(...args),
        };
      },
    } as unknown as typeof objects;
    const run = await runSync({ db: db(), env: counted, http: fakeHttp(fakes), now: NOW }, { source: "cake", trigger: "manual", days: 1 });
    expect(run).toMatchObject({ status: "ok", rowsFetched: 4 });
    expect(fakes.cake.state.requests.filter((r) => r.path.endsWith("/Clicks")).length).toBeGreaterThanOrEqual(4);
    expect(staged).toEqual([2]);
    expect(await clicksOn(dateOf(TODAY), campaignId)).toBe(2);
    expect(await clicksOn(dateOf(TODAY), d1Campaign)).toBe(2);
    // Pulled again: the same, not doubled.
    expect((await pull(fakes, 1)).status).toBe("ok");
    expect(await clicksOn(dateOf(TODAY), campaignId)).toBe(2);
    expect(await clicksOn(dateOf(TODAY), d1Campaign)).toBe(2);
  });

  it("sum a key staged in two calls of one pull, as when its rows come more than a buffer's worth of pages apart", async () => {
    const campaignId = await olderCampaign("Two calls");
    const day = TODAY - 2;
    const sub2 = await storedClick(campaignId, day);
    const object = env.CLICK_SHARDS.getByName(shardName({ day, shard: 0 }));
    const date = dateOf(day);
    const row: CakeClick = { date, offerId: 29, offerName: "Calls", subid1: "mb9", subid2: sub2, subid3: "", clicks: 1 };
    const runId = 900_001;
    expect(await object.stageCakeClicks(runId, [row])).toBe(1);
    expect(await object.stageCakeClicks(runId, [{ ...row, offerName: "" }])).toBe(1);
    const parts = await object.applyCakeClicks(runId, { start: date, end: date }, { start: date, end: date }, await keptCampaigns(db()));
    expect(parts.attributed.filter((r) => r.subid1 === "mb9")).toEqual([expect.objectContaining({ campaignId, offerName: "Calls", clicks: 2 })]);
  });

  it("hold the pages' rows by object and stage them once a buffer's worth has come, and the rest at the end", async () => {
    const calls: Record<string, number>[] = [];
    const buffer = cakeStagingBuffer(async (objects) => {
      calls.push(Object.fromEntries([...objects].map(([name, { rows }]) => [name, rows.length])));
    }, 3);
    const row = (subid2: string): CakeClick => ({ date: "2026-11-01", offerId: 1, offerName: "", subid1: "", subid2, subid3: "", clicks: 1 });
    const page = (groups: Record<string, number>) =>
      new Map(
        Object.entries(groups).map(([name, n]) => [name, { place: { day: 1, shard: 0 }, rows: Array.from({ length: n }, (_, i) => row(`${name}-${i}`)) }]),
      );
    await buffer.add(page({ a: 1, b: 1 }));
    expect(calls).toEqual([]);
    await buffer.add(page({ a: 1 }));
    expect(calls).toEqual([{ a: 2, b: 1 }]);
    await buffer.add(page({ b: 2 }));
    await buffer.add(new Map());
    expect(calls).toHaveLength(1);
    await buffer.flush();
    await buffer.flush();
    expect(calls).toEqual([{ a: 2, b: 1 }, { b: 2 }]);
  });

  it("report no rows written for a pull that changes nothing, as for D1's rows", async () => {
    const campaignId = await olderCampaign("Unchanged");
    const sub2 = await storedClick(campaignId, TODAY);
    const fakes = createFakes();
    fakes.cake.state.clicks.push({ click_id: 7, click_date: `${dateOf(TODAY)}T10:00:00`, offer_id: 27, offer_name: "Same", subid_1: "mb7", subid_2: sub2 });
    expect((await pull(fakes, 1)).rowsUpserted).toBeGreaterThan(0);
    const again = await pull(fakes, 1);
    expect({ status: again.status, rowsUpserted: again.rowsUpserted }).toEqual({ status: "ok", rowsUpserted: 0 });
  });
});

describe("a pull's conversions", () => {
  it("go on to TikTok and the webhooks a page at a time once written, every one of them, and leave nothing staged", async () => {
    const fakes = createFakes();
    const date = dateOf(TODAY);
    const n = 5_001;
    for (let i = 0; i < n; i++) {
      fakes.cake.state.conversions.push({
        conversion_id: `cv-page-${String(i).padStart(5, "0")}`,
        conversion_date: `${date}T09:00:00`,
        offer_id: 40,
        offer_name: "Pages",
        subid_1: "mb-pages",
        subid_2: "",
        price: "1.0000",
        disposition: "Approved",
      });
    }
    expect((await pull(fakes, 1)).status).toBe("ok");
    const handed = await db().get<{ ledger: number; webhooks: number; sends: number }>(sql`select
      (select count(*) from cake_conversions where conversion_id like 'cv-page-%') as ledger,
      (select count(*) from cake_conversions where conversion_id like 'cv-page-%' and webhook_at is not null) as webhooks,
      (select count(*) from tiktok_event_sends where conversion_id like 'cv-page-%') as sends`);
    expect(handed).toEqual({ ledger: n, webhooks: n, sends: n });
    expect(await db().all(sql`select * from cake_pull_conversions`)).toEqual([]);
  });
});

/**
 * The Workflow engine's part, played here: each step's callback, run again after a throw (up to
 * three tries, as the engine retries a step), and `again` steps run twice over (a step whose work was
 * done but whose result the engine lost), with each step's name in `names`.
 */
function engine(hooks: { before?: (name: string, attempt: number) => void; again?: (name: string) => boolean } = {}) {
  const names: string[] = [];
  const step = {
    do: async (name: string, ...rest: unknown[]) => {
      const callback = rest.at(-1) as () => Promise<unknown>;
      for (let attempt = 1; ; attempt++) {
        names.push(name);
        try {
          hooks.before?.(name, attempt);
          if (hooks.again?.(name)) await callback();
          return await callback();
        } catch (err) {
          if (attempt === 3) throw err;
        }
      }
    },
  } as unknown as StepRunner;
  return { step, names };
}

describe("a CAKE pull too long for one invocation", () => {
  /**
   * Seven report rows: two clicks each in today's and yesterday's objects and in D1 (each click
   * reported twice, on pages apart: the same visitor at the offer twice), and an id naming no click
   * (Direct). Sent one row a page, so a step of two rows is two pages; the second step's rows go to
   * both objects.
   */
  async function longReport(name: string) {
    const campaignId = await olderCampaign(name);
    const d1Campaign = await olderCampaign(`${name}, D1`);
    const today = await storedClick(campaignId, TODAY);
    const yesterday = await storedClick(campaignId, TODAY - 1);
    const d1Sub2 = crypto.randomUUID();
    await insertClicksOnce(db(), [{ clickId: d1Sub2, campaignId: d1Campaign, clickedAt: NOW - 3_600_000, ipAddress: "198.51.100.10", bot: false }]);
    const fakes = createFakes();
    fakes.cake.state.maxPageRows = 1;
    const row = (n: number, subid_2: string, day = TODAY) => ({
      click_id: n,
      click_date: `${dateOf(day)}T10:${String(n).padStart(2, "0")}:00`,
      offer_id: 30,
      offer_name: "Steps",
      subid_1: `mb-${name}`,
      subid_2,
    });
    fakes.cake.state.clicks.push(
      row(1, today),
      row(2, d1Sub2),
      row(3, yesterday, TODAY - 1),
      row(4, today),
      row(5, "not-a-click-id"),
      row(6, d1Sub2),
      row(7, yesterday, TODAY - 1),
    );
    fakes.cake.state.conversions.push({
      conversion_id: `cv-${name}`,
      conversion_date: `${dateOf(TODAY)}T11:00:00`,
      offer_id: 30,
      offer_name: "Steps",
      subid_1: `mb-${name}`,
      subid_2: today,
      price: "4.0000",
      disposition: "Approved",
    });
    const created: { id?: string; params?: CakePullParams }[] = [];
    const pullEnv = (stepRows: number) =>
      configuredEnv({
        CAKE_PULL_STEP_ROWS: String(stepRows),
        CAKE_PULL_WORKFLOW: {
          create: async (options: { id?: string; params?: CakePullParams }) => {
            created.push(options);
            return { id: options.id };
          },
        } as unknown as Bindings["CAKE_PULL_WORKFLOW"],
      });
    const start = (stepRows: number) =>
      runSync({ db: db(), env: pullEnv(stepRows), http: fakeHttp(fakes), now: NOW }, { source: "cake", trigger: "manual", days: 2 });
    const figures = async () => ({
      steps: await clicksOn(dateOf(TODAY), campaignId),
      stepsYesterday: await clicksOn(dateOf(TODAY - 1), campaignId),
      d1: await clicksOn(dateOf(TODAY), d1Campaign),
      direct: (
        await db().get<{ n: number | null }>(
          sql`select sum(clicks) as n from cake_attributed_daily where campaign_id = 0 and subid1 = ${`mb-${name}`} and date = ${dateOf(TODAY)}`,
        )
      )?.n,
      revenue: (await db().get<{ n: number | null }>(sql`select sum(revenue_cents) as n from cake_attributed_daily where campaign_id = ${campaignId}`))?.n,
    });
    const expected = { steps: 2, stepsYesterday: 2, d1: 2, direct: 1, revenue: 400 };
    return { fakes, created, pullEnv, start, figures, expected };
  }

  const runRow = async (id: number) => (await db().select().from(syncRuns).where(eq(syncRuns.id, id)))[0]!;

  it("goes on in steps of CAKE_PULL_STEP_ROWS, counts what one invocation counts, and closes its run", async () => {
    const { fakes, created, pullEnv, start, figures, expected } = await longReport("steps");
    const run = await start(2);
    expect(run.status).toBe("running");
    expect(created).toEqual([{ id: `cake-pull-${run.id}`, params: expect.objectContaining({ runId: run.id, stepRows: 2, savedFrom: null }) }]);
    expect(await runRow(run.id)).toMatchObject({ status: "running", heartbeatAt: expect.any(Number) });
    // Another sync waits for it, as for a run in one invocation.
    expect((await start(2)).status).toBe("skipped");

    const { step, names } = engine();
    const out = await runCakePull(step, pullEnv(2), created[0]!.params!, fakeHttp(fakes));
    expect(out).toMatchObject({ status: "ok", error: null });
    // A day at a time, newest first: today's five rows in steps of two, yesterday's two in one;
    // each day's conversions in steps of a tenth of that (one row), today's one and yesterday's none.
    const today = `${dateOf(TODAY)} to ${dateOf(TODAY)}`;
    const yesterday = `${dateOf(TODAY - 1)} to ${dateOf(TODAY - 1)}`;
    expect(names).toEqual([
      `read ${today} from row 1`,
      `read ${today} from row 3`,
      `read ${today} from row 5`,
      `read the conversions of ${today} from row 1`,
      `write ${today}`,
      `read ${yesterday} from row 1`,
      `read the conversions of ${yesterday} from row 1`,
      `write ${yesterday}`,
      "close",
    ]);
    expect(await figures()).toEqual(expected);
    expect(await runRow(run.id)).toMatchObject({ status: "ok", rowsFetched: 8, error: null, finishedAt: expect.any(Number) });
    expect(await db().all(sql`select * from cake_pull_rows`)).toEqual([]);
    expect(await db().all(sql`select * from cake_pull_conversions`)).toEqual([]);

    // The same days pulled in one invocation find nothing to change.
    const whole = await start(1_000);
    expect({ status: whole.status, rowsUpserted: whole.rowsUpserted }).toEqual({ status: "ok", rowsUpserted: 0 });
    expect(await figures()).toEqual(expected);
  });

  it("stages nothing twice when a step runs again: whole, after D1 failed behind its object's staging, or after an object failed; a write run again writes the same", async () => {
    const { fakes, created, pullEnv, start, figures, expected } = await longReport("again");
    const run = await start(2);
    const env2 = pullEnv(2);
    // D1 fails the first batch: the first step's, which keeps its D1 rows after its object has staged.
    const d1 = env2.DB;
    let d1Fails = true;
    env2.DB = new Proxy(d1, {
      get: (target, key: keyof D1Database) => {
        if (key === "batch") {
          return (statements: D1PreparedStatement[]) => {
            if (!d1Fails) return target.batch(statements);
            d1Fails = false;
            return Promise.reject(new Error("D1 busy"));
          };
        }
        const value = target[key];
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    // Yesterday's object fails the first time it is asked to stage.
    const objects = env2.CLICK_SHARDS;
    let objectFails = true;
    env2.CLICK_SHARDS = {
      getByName: (name: string) => {
        const real = objects.getByName(name);
        const stageCakeClicks = (...args: Parameters<typeof real.stageCakeClicks>) => {
          if (name === shardName({ day: TODAY - 1, shard: 0 }) && objectFails) {
            objectFails = false;
            return Promise.reject(new Error("object restarting"));
          }
          return real.stageCakeClicks(...args);
        };
        // Every other call (the copies of the converted clicks, the write) reaches the object.
        return new Proxy(real, {
          get: (target, method: keyof typeof real) =>
            method === "stageCakeClicks" ? stageCakeClicks : (...args: unknown[]) => (target[method] as (...a: unknown[]) => unknown)(...args),
        });
      },
    } as unknown as typeof objects;
    // And every step's work is done twice over, the writes' too (a step whose result the engine
    // lost): the second write finds what the steps kept and writes the same.
    const { step, names } = engine({ again: (name) => name.startsWith("read ") || name.startsWith("write ") });
    expect(await runCakePull(step, env2, created[0]!.params!, fakeHttp(fakes))).toMatchObject({ status: "ok" });
    expect({ d1Fails, objectFails }).toEqual({ d1Fails: false, objectFails: false });
    expect(names.filter((n) => n.endsWith("from row 1"))).toEqual([
      `read ${dateOf(TODAY)} to ${dateOf(TODAY)} from row 1`,
      `read ${dateOf(TODAY)} to ${dateOf(TODAY)} from row 1`,
      `read the conversions of ${dateOf(TODAY)} to ${dateOf(TODAY)} from row 1`,
      `read ${dateOf(TODAY - 1)} to ${dateOf(TODAY - 1)} from row 1`,
      `read ${dateOf(TODAY - 1)} to ${dateOf(TODAY - 1)} from row 1`,
      `read the conversions of ${dateOf(TODAY - 1)} to ${dateOf(TODAY - 1)} from row 1`,
    ]);
    expect(await figures()).toEqual(expected);
    expect(await runRow(run.id)).toMatchObject({ status: "ok" });
  });

  it("reads a day's conversions in steps of their own, staged in D1 until the day is written: a conversion repeated on a later page counts once, as last read", async () => {
    const { fakes, created, pullEnv, start, figures, expected } = await longReport("conversion steps");
    const campaignId = await olderCampaign("conversion steps, more");
    const first = await storedClick(campaignId, TODAY);
    const second = await storedClick(campaignId, TODAY);
    const conversion = (id: string, subid_2: string, price: string, minute: number) => ({
      conversion_id: id,
      conversion_date: `${dateOf(TODAY)}T12:${String(minute).padStart(2, "0")}:00`,
      offer_id: 31,
      offer_name: "Steps, more",
      subid_1: "mb-conversion-steps-more",
      subid_2,
      price,
      disposition: "Approved",
    });
    // The report changed between two steps: the network corrected a payout, and its row came again.
    fakes.cake.state.conversions.push(
      conversion("cv-more-1", first, "1.0000", 1),
      conversion("cv-more-2", second, "2.5000", 2),
      conversion("cv-more-1", first, "1.5000", 3),
    );
    const run = await start(2);
    expect(run.status).toBe("running");
    // Every conversions step's work done twice over: it replaces what it staged.
    const { step, names } = engine({ again: (name) => name.startsWith("read the conversions") });
    expect(await runCakePull(step, pullEnv(2), created[0]!.params!, fakeHttp(fakes))).toMatchObject({ status: "ok" });
    const today = `${dateOf(TODAY)} to ${dateOf(TODAY)}`;
    expect(names.filter((n) => n.includes(`conversions of ${today}`))).toEqual([1, 2, 3, 4].map((row) => `read the conversions of ${today} from row ${row}`));
    expect(await figures()).toEqual(expected);
    const ledger = await db().all<{ id: string; cents: number; counted: number }>(
      sql`select conversion_id as id, revenue_cents as cents, counted from cake_conversions where offer_id = 31 order by conversion_id`,
    );
    expect(ledger).toEqual([
      { id: "cv-more-1", cents: 150, counted: 1 },
      { id: "cv-more-2", cents: 250, counted: 1 },
    ]);
    const revenue = await db().get<{ n: number }>(sql`select sum(revenue_cents) as n from cake_attributed_daily where campaign_id = ${campaignId}`);
    expect(revenue?.n).toBe(400);
    // Both went on to TikTok once each, and nothing stays staged.
    const sends = await db().all<{ id: string }>(sql`select conversion_id as id from tiktok_event_sends where conversion_id like 'cv-more-%' order by 1`);
    expect(sends).toEqual([{ id: "cv-more-1" }, { id: "cv-more-2" }]);
    expect(await db().all(sql`select * from cake_pull_conversions`)).toEqual([]);
    expect(await runRow(run.id)).toMatchObject({ status: "ok", rowsFetched: 7 + 4, error: null });
  });

  it("goes on in steps for a network that does not say its report's length, when the row past CAKE_PULL_STEP_ROWS is there", async () => {
    const { fakes, created, pullEnv, figures, expected } = await longReport("no row count");
    fakes.cake.state.rowCount = false;
    // Without row_count, a short page is the report's end: pages of one row are asked for.
    const http = Object.assign(fakeHttp(fakes), { pageSize: 1 });
    const sync = (stepRows: number) => runSync({ db: db(), env: pullEnv(stepRows), http, now: NOW }, { source: "cake", trigger: "manual", days: 2 });

    // Seven rows fit under a step of a thousand: the pull stays in this invocation, having asked for row 1,001 alone.
    const whole = await sync(1_000);
    expect(whole.status).toBe("ok");
    expect(fakes.cake.state.requests.filter((r) => r.body.start_at_row === 1_001)).toEqual([
      { path: expect.stringContaining("/Clicks"), body: expect.objectContaining({ row_limit: 1 }) },
    ]);
    expect(created).toEqual([]);
    expect(await figures()).toEqual(expected);

    // Past a step of two, nothing is staged here and the steps take the days.
    const run = await sync(2);
    expect(run.status).toBe("running");
    expect(created).toHaveLength(1);
    const { step, names } = engine();
    expect(await runCakePull(step, pullEnv(2), created[0]!.params!, http)).toMatchObject({ status: "ok" });
    expect(names).toContain(`read ${dateOf(TODAY)} to ${dateOf(TODAY)} from row 5`);
    expect(await figures()).toEqual(expected);
    // And again in one invocation: nothing to change.
    expect(await sync(1_000)).toMatchObject({ status: "ok", rowsUpserted: 0 });
  });

  it("runs in the Workflow engine as CakePullWorkflow, whose env is the Worker's own (here without CAKE: the run says so)", async () => {
    const { fakes } = await longReport("engine");
    const introspector = await introspectWorkflow(env.CAKE_PULL_WORKFLOW);
    try {
      await introspector.modifyAll(async (m) => m.disableRetryDelays());
      const run = await runSync(
        { db: db(), env: configuredEnv({ CAKE_PULL_STEP_ROWS: "2" }), http: fakeHttp(fakes), now: NOW },
        { source: "cake", trigger: "manual", days: 1 },
      );
      expect(run.status).toBe("running");
      const [instance] = introspector.get();
      await instance!.waitForStatus("complete");
      const closed = await runRow(run.id);
      expect(closed).toMatchObject({ status: "error", finishedAt: expect.any(Number) });
      expect(closed.error).toMatch(/^CAKE is not configured: /);
    } finally {
      await introspector.dispose();
    }
  });

  it("closes its run with CAKE's error and the days saved before it", async () => {
    const { fakes, created, pullEnv, start } = await longReport("fails");
    // Ten days, a day at a time from the newest: CAKE fails on every try of the oldest day's first step.
    const run = await runSync({ db: db(), env: pullEnv(2), http: fakeHttp(fakes), now: NOW }, { source: "cake", trigger: "manual", days: 10 });
    expect(run.status).toBe("running");
    const newer = `${dateOf(TODAY - 8)} to ${dateOf(TODAY - 8)}`;
    const { step, names } = engine({
      before: (name) => {
        if (name.startsWith(`read ${dateOf(TODAY - 9)}`)) fakes.cake.failNext({ status: 500, json: { Message: "busy" } });
      },
    });
    const out = await runCakePull(step, pullEnv(2), created[0]!.params!, fakeHttp(fakes));
    expect(names).toContain(`write ${newer}`);
    expect(out.status).toBe("error");
    expect(out.error).toContain(`the days from ${dateOf(TODAY - 8)} to ${dateOf(TODAY)} were saved before that`);
    expect(await runRow(run.id)).toMatchObject({ status: "error", error: out.error });
    // Rows a stopped run kept (here: as if its older week had been read part way) go with the run history's purge.
    await db().run(sql`insert into cake_pull_rows (run_id, start, from_row, date, offer_id, offer_name, subid1, subid2, subid3, clicks)
      values (${run.id}, ${dateOf(TODAY - 9)}, 0, ${dateOf(TODAY - 9)}, 30, 'Steps', 'mb-fails', 'x', '', 1)`);
    await purgeOldRuns(db(), NOW);
    expect(await db().all(sql`select * from cake_pull_rows`)).toEqual([]);
    // The next sync is not held up by it.
    fakes.cake.state.failures.length = 0;
    expect((await start(1_000)).status).toBe("ok");
  });
});
