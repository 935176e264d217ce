import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { insertCampaign } from "../src/db/queries/campaigns";
import {
  countedClickCountsByCampaign,
  countedClickTotals,
  insertClicks,
  rolledClickCountsByCampaign,
  rolledClickTotals,
  type ClickFilter,
  type NewClick,
} from "../src/db/queries/clicks";
import { insertLander } from "../src/db/queries/landers";
import { writeSetting } from "../src/db/queries/settings";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { zoneDayRange } from "../src/lib/calendar-days";
import { call, db, makeAdmin, type TestUser } from "./helpers";

// The Click Log's totals from the click rollups plus what the cron has not rolled up yet, against
// the same totals counted click by click (db/queries/clicks.ts rolledClickTotals).
const ZONE = "Asia/Manila";
const DAYS = ["2019-05-03", "2019-05-04", "2019-05-05"];
let admin: TestUser;
let campaigns: number[];

/** Clicks over the three days (by Manila's clock, either side of its midnight), a mix of values. */
function clicksOf(campaignId: number, n: number, seed: number, exitedAt?: number): NewClick[] {
  const out: NewClick[] = [];
  for (let i = 0; i < n; i++) {
    const k = seed + i;
    const day = DAYS[k % 3]!;
    // 15:30-16:30 UTC is 23:30-00:30 in Manila: half of these fall on the next Manila day.
    const clickedAt = Date.parse(`${day}T${k % 2 ? "15:45" : "16:15"}:00Z`) + k * 1000;
    out.push({
      clickId: crypto.randomUUID(),
      campaignId,
      clickedAt,
      country: ["US", "DE", null][k % 3],
      deviceType: ["Mobile", "Desktop"][k % 2],
      os: k % 4 === 0 ? null : "iOS",
      browser: k % 5 === 0 ? "Chrome" : "TikTok",
      bot: k % 7 === 0,
      exitedAt: exitedAt ?? (k % 3 === 0 ? clickedAt + 5_000 : null),
    });
  }
  return out;
}

const FILTERS: { name: string; query: string; filter: Omit<ClickFilter, "startMs" | "endMs"> }[] = [
  { name: "everything", query: "", filter: {} },
  { name: "people", query: "&bot=human", filter: { bot: false } },
  { name: "bots", query: "&bot=bot", filter: { bot: true } },
  { name: "a country", query: "&country=US", filter: { country: "US" } },
  { name: "an unknown country", query: "&country=(unknown)", filter: { country: null } },
  { name: "a device among people", query: "&device=Mobile&bot=human", filter: { deviceType: "Mobile", bot: false } },
  { name: "an unknown OS", query: "&os=(unknown)", filter: { os: null } },
  { name: "a browser", query: "&browser=Chrome", filter: { browser: "Chrome" } },
];

const range = (startDate: string, endDate: string) => ({ startDate, endDate, timeZone: ZONE, ...zoneDayRange(startDate, endDate, ZONE) });

beforeAll(async () => {
  admin = await makeAdmin();
  await writeSetting(db(), "report_timezone", ZONE);
  const lander = await insertLander(db(), { name: "L", url: "https://lander.test/" }).get();
  campaigns = [];
  for (const name of ["Totals A", "Totals B"]) {
    campaigns.push((await insertCampaign(db(), { name, landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get()).id);
  }
  // Rolled up: these clicks and their exits.
  await insertClicks(db(), [...clicksOf(campaigns[0]!, 60, 0), ...clicksOf(campaigns[1]!, 30, 100)]);
  await rollUpClicks(db(), { now: Date.now() });
  // Not rolled up yet: newer clicks, and exits of rolled clicks stamped after the exit watermark.
  await insertClicks(db(), [...clicksOf(campaigns[0]!, 25, 200), ...clicksOf(campaigns[1]!, 10, 300, Date.now())]);
  await db().run(sql`update clicks set exited_at = ${Date.now()} where exited_at is null and id % 4 = 1 and id <= 90`);
});

const log = async (r: { startDate: string; endDate: string }, query: string) => {
  const res = await call(`/api/clicks?startDate=${r.startDate}&endDate=${r.endDate}${query}`, { cookie: admin.cookie });
  expect(res.status).toBe(200);
  return (await res.json()) as { total: number; exitClicks: number; botClicks: number; totalPages: number; clicks: unknown[] };
};

describe("the Click Log's totals from the rollups", () => {
  it("equal the clicks counted one by one, for every filter, rolled up or not", async () => {
    for (const r of [range(DAYS[0]!, DAYS[2]!), range(DAYS[1]!, DAYS[1]!), range("2019-05-05", "2019-05-06")]) {
      for (const campaign of [undefined, campaigns[1]]) {
        for (const f of FILTERS) {
          const filter = { ...f.filter, campaignId: campaign, startMs: r.startMs, endMs: r.endMs };
          const counted = await countedClickTotals(db(), filter);
          const rolled = await rolledClickTotals(db(), filter, r);
          // The rollup answers (one visitor value at most), and answers the same.
          expect(rolled, `${f.name}, ${r.startDate}-${r.endDate}, campaign ${campaign}`).toEqual(counted);
          const body = await log(r, `${f.query}${campaign ? `&campaignId=${campaign}` : ""}`);
          expect({ total: body.total, exits: body.exitClicks, bots: body.botClicks }).toEqual(counted);
        }
      }
    }
    // Something of each part was counted: the days hold rolled and unrolled clicks and exits.
    const all = await countedClickTotals(db(), { startMs: range(DAYS[0]!, DAYS[2]!).startMs, endMs: range(DAYS[0]!, DAYS[2]!).endMs });
    expect(all.total).toBeGreaterThan(100);
    expect(all.exits).toBeGreaterThan(30);
  });

  it("give the campaign filter's list too: clicks and exits per campaign, as counted", async () => {
    for (const r of [range(DAYS[0]!, DAYS[2]!), range(DAYS[2]!, DAYS[2]!), range("2019-06-01", "2019-06-02")]) {
      const filter = { startMs: r.startMs, endMs: r.endMs };
      const counted = await countedClickCountsByCampaign(db(), filter);
      expect(await rolledClickCountsByCampaign(db(), filter, r)).toEqual(counted);
      const res = await call(`/api/clicks/by-campaign?startDate=${r.startDate}&endDate=${r.endDate}`, { cookie: admin.cookie });
      const body = (await res.json()) as { campaignId: number; totalClicks: number; exitClicks: number }[];
      expect(body.map(({ campaignId, totalClicks, exitClicks }) => ({ campaignId, totalClicks, exitClicks }))).toEqual(
        counted.map(({ campaignId, totalClicks, exitClicks }) => ({ campaignId, totalClicks, exitClicks })),
      );
    }
    // Both campaigns over the three days; none in June (an answer, not "cannot say").
    expect((await rolledClickCountsByCampaign(db(), range(DAYS[0]!, DAYS[2]!), range(DAYS[0]!, DAYS[2]!)))?.length).toBe(2);
    expect(await rolledClickCountsByCampaign(db(), range("2019-06-01", "2019-06-02"), range("2019-06-01", "2019-06-02"))).toEqual([]);
    // Another zone's days: the rollups cannot say, and the list is counted.
    expect(await rolledClickCountsByCampaign(db(), range(DAYS[0]!, DAYS[2]!), { ...range(DAYS[0]!, DAYS[2]!), timeZone: "UTC" })).toBeNull();
  });

  it("give the visitor filters' lists as the clicks have them, rolled up or not", async () => {
    const r = range(DAYS[0]!, DAYS[2]!);
    const res = await call(`/api/clicks/facets?startDate=${r.startDate}&endDate=${r.endDate}`, { cookie: admin.cookie });
    const { countries } = (await res.json()) as { countries: { value: string; clicks: number }[] };
    const counted = await db().all<{ value: string; clicks: number }>(sql`
      select coalesce(country, '') as value, count(*) as clicks from clicks
      where clicked_at >= ${r.startMs} and clicked_at < ${r.endMs} group by 1 order by clicks desc, value`);
    expect(countries).toEqual(counted);
  });

  it("are counted click by click where the rollups cannot answer exactly", async () => {
    const r = range(DAYS[0]!, DAYS[2]!);
    const base = { startMs: r.startMs, endMs: r.endMs };
    // Two visitor values: the rollup holds one a row.
    expect(await rolledClickTotals(db(), { ...base, country: "US", browser: "TikTok" }, r)).toBeNull();
    const body = await log(r, "&country=US&browser=TikTok");
    expect(body.total).toBe((await countedClickTotals(db(), { ...base, country: "US", browser: "TikTok" })).total);
    // The rollup is on another zone's days (the setting just changed, the cron not yet run).
    expect(await rolledClickTotals(db(), base, { ...r, timeZone: "UTC" })).toBeNull();
  });

  it("leave the rollup alone up to the day after the last archived day", async () => {
    const archived = "2019-05-02";
    const { startMs, endMs } = zoneDayRange(archived, archived, ZONE);
    await db().run(sql`
      insert into click_archives (day, time_zone, start_ms, end_ms, object_key, rows, exits, bytes, max_click_id, claimed_at, archived_at)
      values (${archived}, ${ZONE}, ${startMs}, ${endMs}, 'clicks/2019-05-02.csv.gz', 0, 0, 0, 0, 0, 1)`);
    try {
      const next = range("2019-05-03", "2019-05-05");
      expect(await rolledClickTotals(db(), { startMs: next.startMs, endMs: next.endMs }, next)).toBeNull();
      const after = range("2019-05-04", "2019-05-05");
      expect(await rolledClickTotals(db(), { startMs: after.startMs, endMs: after.endMs }, after)).toEqual(
        await countedClickTotals(db(), { startMs: after.startMs, endMs: after.endMs }),
      );
      // The log still gives the exact count either way.
      const body = await log(next, "");
      expect(body.total).toBe((await countedClickTotals(db(), { startMs: next.startMs, endMs: next.endMs })).total);
    } finally {
      await db().run(sql`delete from click_archives where day = ${archived}`);
    }
  });
});
