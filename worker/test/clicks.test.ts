import { describe, expect, it } from "vitest";
import { insertClicks, type NewClick } from "../src/db/queries/clicks";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { writeSetting } from "../src/db/queries/settings";
import { dayIn } from "../src/lib/calendar-days";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser } from "./helpers";

async function campaign(name = "Campaign") {
  const lander = await insertLander(db(), { name: "LP", url: "https://lp.test/" }).get();
  return (await insertCampaign(db(), { name, landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get()).id;
}

let seq = 0;
async function seed(campaignId: number, rows: { at: string | number; exited?: boolean; values?: Partial<NewClick> }[]) {
  const clicks = rows.map(({ at, exited, values }) => {
    const clickedAt = typeof at === "number" ? at : Date.parse(at);
    return { clickId: `test-${campaignId}-${seq++}`, campaignId, clickedAt, exitedAt: exited ? clickedAt + 1000 : null, ...values };
  });
  await insertClicks(db(), clicks);
  return clicks;
}

/** GET /api/clicks through the typed client: its query and its answer have the route's own types. */
type ClickLogQuery = Parameters<ReturnType<typeof client>["clicks"]["$get"]>[0]["query"];
const clickLog = async (user: { cookie: string }, query: ClickLogQuery) => bodyOf(await client(user).clicks.$get({ query }), 200);

describe("GET /api/clicks", () => {
  it("counts and pages in the chosen days, endDate inclusive, newest first", async () => {
    const admin = await makeAdmin();
    const id = await campaign("Spring");
    await seed(id, [
      { at: "2024-12-31T23:59:59.999Z" },
      { at: "2025-01-01T00:00:00.000Z", exited: true },
      { at: "2025-01-03T12:00:00.000Z" },
      { at: "2025-01-07T23:59:59.999Z", exited: true },
      { at: "2025-01-08T00:00:00.000Z" },
    ]);
    const log = await clickLog(admin, { startDate: "2025-01-01", endDate: "2025-01-07", campaignId: String(id), pageSize: "2" });
    expect(log).toMatchObject({
      startDate: "2025-01-01",
      endDate: "2025-01-07",
      timeZone: "UTC",
      total: 3,
      exitClicks: 2,
      ctr: 66.67,
      page: 1,
      pageSize: 2,
      totalPages: 2,
    });
    expect(log.clicks.map((c) => c.clickedAt)).toEqual(["2025-01-07T23:59:59.999Z", "2025-01-03T12:00:00.000Z"]);
    expect(log.clicks[0]).toMatchObject({ campaign: "Spring", exitedAt: "2025-01-08T00:00:00.999Z" });

    const page2 = await clickLog(admin, { startDate: "2025-01-01", endDate: "2025-01-07", campaignId: String(id), pageSize: "2", page: "2" });
    expect(page2.clicks.map((c) => c.clickedAt)).toEqual(["2025-01-01T00:00:00.000Z"]);
    const beyond = await clickLog(admin, { startDate: "2025-01-01", endDate: "2025-01-07", campaignId: String(id), pageSize: "2", page: "9" });
    expect(beyond).toMatchObject({ total: 3, clicks: [] });
  });

  it("reads a single day as that whole day", async () => {
    const admin = await makeAdmin();
    const id = await campaign();
    await seed(id, [{ at: "2025-02-10T00:00:00Z" }, { at: "2025-02-10T23:59:59.999Z" }, { at: "2025-02-11T00:00:00Z" }]);
    expect((await clickLog(admin, { startDate: "2025-02-10", endDate: "2025-02-10", campaignId: String(id) })).total).toBe(2);
  });

  it("answers zero CTR without clicks, and rounds it to two decimals", async () => {
    const admin = await makeAdmin();
    const empty = await campaign();
    expect(await clickLog(admin, { startDate: "2025-03-01", endDate: "2025-03-01", campaignId: String(empty) })).toMatchObject({
      total: 0,
      exitClicks: 0,
      ctr: 0,
      totalPages: 1,
      clicks: [],
    });
    const id = await campaign();
    await seed(id, [{ at: "2025-03-02T01:00:00Z", exited: true }, { at: "2025-03-02T02:00:00Z" }, { at: "2025-03-02T03:00:00Z" }]);
    expect((await clickLog(admin, { startDate: "2025-03-02", endDate: "2025-03-02", campaignId: String(id) })).ctr).toBe(33.33);
  });

  it("defaults to the last 7 days, today included", async () => {
    const admin = await makeAdmin();
    const id = await campaign();
    const now = Date.now();
    await seed(id, [{ at: now - 1000 }, { at: now - 6 * 86_400_000 }, { at: now - 9 * 86_400_000 }]);
    const log = await clickLog(admin, { campaignId: String(id) });
    expect(log.endDate).toBe(dayIn(now, "UTC"));
    expect(log.total).toBe(2);
  });

  it("reads days in the report time zone", async () => {
    const admin = await makeAdmin();
    const id = await campaign();
    // 03:00 UTC on Jan 2 is still Jan 1 in New York.
    await seed(id, [{ at: "2025-01-02T03:00:00Z" }]);
    await writeSetting(db(), "report_timezone", "America/New_York");
    try {
      const ny = await clickLog(admin, { startDate: "2025-01-01", endDate: "2025-01-01", campaignId: String(id) });
      expect(ny).toMatchObject({ timeZone: "America/New_York", total: 1 });
    } finally {
      await writeSetting(db(), "report_timezone", "UTC");
    }
    expect((await clickLog(admin, { startDate: "2025-01-01", endDate: "2025-01-01", campaignId: String(id) })).total).toBe(0);
  });

  it.each([
    ["startDate=2025-02-30&endDate=2025-03-01", "startDate must be a real date written YYYY-MM-DD"],
    ["startDate=01/02/2025", "startDate must be a real date written YYYY-MM-DD"],
    ["startDate=2025-03-02&endDate=2025-03-01", "startDate must not be after endDate"],
    ["pageSize=500", "pageSize must be from 1 to 200"],
    ["page=0", "page must be a whole number from 1"],
    ["campaignId=abc", "campaignId must be a campaign id"],
  ])("refuses %s with 400", async (query, message) => {
    const admin = await makeAdmin();
    const res = await call(`/api/clicks?${query}`, { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe(message);
  });

  it("is for members with clicks, by-campaign too (its counts are the log's)", async () => {
    const viewer = await makeUser("user", ["dashboard"]);
    expect((await call("/api/clicks", { cookie: viewer.cookie })).status).toBe(403);
    expect((await call("/api/clicks/export", { cookie: viewer.cookie })).status).toBe(403);
    expect((await call("/api/clicks/by-campaign", { cookie: viewer.cookie })).status).toBe(403);
    const clicker = await makeUser("user", ["clicks"]);
    expect((await call("/api/clicks", { cookie: clicker.cookie })).status).toBe(200);
    expect((await call("/api/clicks/by-campaign", { cookie: clicker.cookie })).status).toBe(200);
  });
});

describe("GET /api/clicks/by-campaign", () => {
  it("sums clicks and exits per campaign in the days, with CTR", async () => {
    const admin = await makeAdmin();
    const a = await campaign();
    const b = await campaign();
    await seed(a, [{ at: "2019-05-01T10:00:00Z", exited: true }, { at: "2019-05-02T10:00:00Z" }, { at: "2019-05-04T00:00:00Z", exited: true }]);
    await seed(b, [{ at: "2019-05-03T23:59:59Z", exited: true }, { at: "2019-04-30T23:59:59Z" }]);
    const rows = await bodyOf(await client(admin).clicks["by-campaign"].$get({ query: { startDate: "2019-05-01", endDate: "2019-05-03" } }), 200);
    expect(rows).toEqual([
      { campaignId: a, campaignName: "Campaign", totalClicks: 2, exitClicks: 1, ctr: 50 },
      { campaignId: b, campaignName: "Campaign", totalClicks: 1, exitClicks: 1, ctr: 100 },
    ]);
  });
});

describe("GET /api/clicks/export", () => {
  const parseCsv = (text: string) =>
    text
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");

  it("downloads the product's columns, then the visitor's, newest first, with formula injection defused", async () => {
    const admin = await makeAdmin();
    const id = await campaign('Summer, "Hot"');
    const [older, newer] = await seed(id, [
      {
        at: "2018-06-01T10:00:00Z",
        exited: true,
        values: {
          campaignName: '=HYPERLINK("https://evil.example")',
          placement: "+feed",
          ipAddress: "203.0.113.5",
          userAgent: "Mozilla/5.0 (X; -1)",
          ttclid: "E.C.P.x1",
          country: "US",
          region: "New York, NY",
          city: "=cmd",
          asn: 701,
          asOrganization: "Verizon",
          deviceType: "Mobile",
          os: "iOS",
          browser: "TikTok",
          bot: true,
          botReason: "empty user agent",
        },
      },
      { at: "2018-06-02T10:00:00Z", values: { adGroupName: "@SUM(1)", creativeName: "-2+3", tiktokCampaignId: "1799" } },
    ]);
    const res = await call(`/api/clicks/export?startDate=2018-06-01&endDate=2018-06-02&campaignId=${id}`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="click-log-${dayIn(Date.now(), "UTC")}.csv"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // The UTF-8 byte-order mark (Response.text() would hide it).
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = parseCsv(new TextDecoder().decode(bytes));
    expect(lines[0]).toBe(
      "Click ID,Campaign,Clicked At (UTC),Exited,Exit Time (UTC),TikTok Campaign ID,TikTok Ad Group ID,TikTok Creative ID,Placement,Campaign Name,Ad Group Name,Creative Name,IP Address,User Agent," +
        "TTCLID,Country,Region,City,ASN,ISP,Device,OS,Browser,Bot,Bot Reason",
    );
    expect(lines[1]).toBe(`${newer!.clickId},"Summer, ""Hot""",2018-06-02T10:00:00.000Z,No,,1799,,,,,'@SUM(1),'-2+3,,,,,,,,,,,,No,`);
    expect(lines[2]).toBe(
      `${older!.clickId},"Summer, ""Hot""",2018-06-01T10:00:00.000Z,Yes,2018-06-01T10:00:01.000Z,,,,'+feed,"'=HYPERLINK(""https://evil.example"")",,,203.0.113.5,Mozilla/5.0 (X; -1),` +
        `E.C.P.x1,US,"New York, NY",'=cmd,701,Verizon,Mobile,iOS,TikTok,Yes,empty user agent`,
    );
    expect(lines).toHaveLength(3);
  });

  it("walks every row exactly once across pages, ties on the same instant included", async () => {
    const admin = await makeAdmin();
    const id = await campaign();
    const base = Date.parse("2017-03-01T00:00:00Z");
    // 2,345 clicks over ~470 distinct instants: pages of 1,000 end in the middle of ties.
    const seeded = await seed(
      id,
      Array.from({ length: 2345 }, (_, i) => ({ at: base + Math.floor(i / 5) * 1000 })),
    );
    const lines = parseCsv(await (await call(`/api/clicks/export?startDate=2017-03-01&endDate=2017-03-01&campaignId=${id}`, { cookie: admin.cookie })).text());
    const ids = lines.slice(1).map((l) => l.split(",")[0]!);
    expect(ids).toHaveLength(2345);
    expect(new Set(ids)).toEqual(new Set(seeded.map((c) => c.clickId)));
    const times = lines.slice(1).map((l) => Date.parse(l.split(",")[2]!));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it("validates like the log", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/clicks/export?endDate=2025-13-01", { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});
