import { beforeAll, describe, expect, it } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertClicks } from "../src/db/queries/clicks";
import { insertLander } from "../src/db/queries/landers";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { call, db, makeAdmin, type TestUser } from "./helpers";

const DAY = "2019-05-04";
let admin: TestUser;
let campaignId: number;

beforeAll(async () => {
  admin = await makeAdmin();
  const lander = await insertLander(db(), { name: "L", url: "https://lander.test/" }).get();
  campaignId = (await insertCampaign(db(), { name: "Visitors", landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get()).id;
  const at = (h: number) => Date.parse(`${DAY}T0${h}:00:00Z`);
  const person = { deviceType: "Mobile", os: "iOS", browser: "TikTok" };
  await insertClicks(db(), [
    { clickId: crypto.randomUUID(), campaignId, clickedAt: at(1), country: "US", ttclid: "tt-1", ...person },
    { clickId: crypto.randomUUID(), campaignId, clickedAt: at(2), country: "US", ...person, exitedAt: at(3) },
    { clickId: crypto.randomUUID(), campaignId, clickedAt: at(3), country: "DE", deviceType: "Desktop", os: "Windows", browser: "Chrome" },
    { clickId: crypto.randomUUID(), campaignId, clickedAt: at(4), bot: true, botReason: "ad review: TikTok landing-page preloader", country: "US" },
    { clickId: crypto.randomUUID(), campaignId, clickedAt: at(5), bot: true, botReason: "empty user agent" },
  ]);
});

const log = async (query: string) => {
  const res = await call(`/api/clicks?startDate=${DAY}&endDate=${DAY}&campaignId=${campaignId}${query}`, { cookie: admin.cookie });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    total: number;
    botClicks: number;
    exitClicks: number;
    clicks: { country: string | null; bot: boolean; botReason: string | null; ttclid: string | null }[];
  };
};

describe("the Click Log's visitor fields and filters", () => {
  it("keeps bot clicks in the log, flagged with their reason, and counts them", async () => {
    const all = await log("");
    expect(all.total).toBe(5);
    expect(all.botClicks).toBe(2);
    expect(all.clicks.filter((c) => c.bot).map((c) => c.botReason)).toEqual(["empty user agent", "ad review: TikTok landing-page preloader"]);
    expect(all.clicks.at(-1)).toMatchObject({ ttclid: "tt-1", country: "US" });
  });

  it("filters to people or bots, and by country, device, OS and browser, unknown included", async () => {
    expect((await log("&bot=human")).total).toBe(3);
    expect((await log("&bot=bot")).total).toBe(2);
    expect((await log("&country=US")).total).toBe(3);
    expect((await log("&country=US&bot=human")).total).toBe(2);
    expect((await log("&country=(unknown)")).total).toBe(1);
    expect((await log("&browser=TikTok&os=iOS&device=Mobile")).total).toBe(2);
    expect((await log("&device=(unknown)")).total).toBe(2);
    const csv = await (await call(`/api/clicks/export?startDate=${DAY}&endDate=${DAY}&campaignId=${campaignId}&bot=bot`, { cookie: admin.cookie })).text();
    expect(csv.trimEnd().split("\r\n")).toHaveLength(3);
  });

  it("refuses a bot filter it does not know", async () => {
    const res = await call(`/api/clicks?startDate=${DAY}&endDate=${DAY}&bot=maybe`, { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bot must be "all", "human" or "bot"' });
  });

  it("lists the days' countries, devices, systems and browsers with their clicks, rolled up or not", async () => {
    const facets = async () => (await call(`/api/clicks/facets?startDate=${DAY}&endDate=${DAY}`, { cookie: admin.cookie })).json();
    const before = await facets();
    expect(before).toEqual({
      countries: [
        { value: "US", clicks: 3 },
        { value: "", clicks: 1 },
        { value: "DE", clicks: 1 },
      ],
      devices: [
        { value: "", clicks: 2 },
        { value: "Mobile", clicks: 2 },
        { value: "Desktop", clicks: 1 },
      ],
      oses: [
        { value: "", clicks: 2 },
        { value: "iOS", clicks: 2 },
        { value: "Windows", clicks: 1 },
      ],
      browsers: [
        { value: "", clicks: 2 },
        { value: "TikTok", clicks: 2 },
        { value: "Chrome", clicks: 1 },
      ],
    });
    await rollUpClicks(db(), { now: Date.parse("2019-05-05T00:00:00Z") });
    expect(await facets()).toEqual(before);
  });
});
