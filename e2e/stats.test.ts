import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import Papa from "papaparse";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createCakeFake, type FakeCakeClick, type FakeCakeConversion } from "../worker/test/fakes/cake-fake";
import { createTikTokFake, type FakeTikTokRow } from "../worker/test/fakes/tiktok-fake";
import { serveFetch } from "../scripts/lib/serve-fetch.mjs";
import { callApi } from "./support/api";
import { useHarness } from "./support/harness";

/** Screens settle after a request or two: seconds on a loaded machine (harness.ts says how long Playwright's own waits allow). */
const POLL = { timeout: 30_000, interval: 100 };

// ---------------------------------------------------------------------------------------------
// A month of traffic, drawn from a seeded generator so every run (and every failure) is the same.
// The expected figures below are added up here from what the fakes will answer, never read back
// from Trackyard.
// ---------------------------------------------------------------------------------------------
function generator(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(20261122);
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;

const dayOffset = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
/** The report time zone is UTC (the default) and so is this machine's clock for the browser. */
const TODAY = new Date().toISOString().slice(0, 10);
const MONTH = Array.from({ length: 30 }, (_, i) => dayOffset(TODAY, i - 29));
/** Most activity is recent; a fifth of it lands today so the default (today) view has figures. */
const activityDay = () => (random() < 0.2 ? TODAY : pick(MONTH));

const LANDERS = [
  { name: "Quiz Lander", url: "https://lander.example.com/quiz" },
  { name: "Story Lander", url: "https://lander.example.com/story" },
];
/** Our offers, and the CAKE offer each one is at the network. */
const OFFERS = [
  {
    name: "Sweeps US",
    url: "https://offers.example.com/sweeps",
    utmTemplate: "s2={clickId}&s4={campaign}",
    cake: { id: 5101, name: "Sweeps US - CPA" },
    payouts: ["24.50", "31.00"],
  },
  {
    name: "Survey CA",
    url: "https://offers.example.com/survey",
    utmTemplate: "s2={clickId}&s4={adGroup}",
    cake: { id: 5202, name: "Survey CA - CPL" },
    payouts: ["38.00"],
  },
];
const SPARKS = [
  { name: "Hook: fast cuts", code: "<script>/* fast cuts spark */</script>" },
  { name: "UGC: testimonial", code: "<script>/* testimonial spark */</script>" },
];
const CAMPAIGNS = [
  { name: "Sweeps US - Ana", lander: 0, offer: 0, buyer: "ana", clicks: 40, tiktok: { id: "1790000000000101", name: "US Sweeps Broad" } },
  { name: "Survey CA - Bo", lander: 1, offer: 1, buyer: "bo", clicks: 25, tiktok: { id: "1790000000000202", name: "CA Survey Lookalike" } },
  { name: "Sweeps US - Bo", lander: 0, offer: 0, buyer: "bo", clicks: 20, tiktok: { id: "1790000000000303", name: "US Sweeps Retarget" } },
];
/** An ad campaign that spent but sent us no clicks: its spend reaches no group. */
const UNLINKED_TIKTOK = { id: "1790000000000909", name: "Brand Awareness" };
const ADVERTISER = "7000000000001";
const PLACEMENTS = ["TikTok", "Pangle"];

const cents = (amount: string) => Math.round(Number(amount.replace(/[$,]/g, "")) * 100);
const money = (c: number) => `${c < 0 ? "-" : ""}$${(Math.abs(c) / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const count = (n: number) => n.toLocaleString("en-US");

const tiktokRows: FakeTikTokRow[] = [];
for (const day of MONTH) {
  for (const c of [...CAMPAIGNS.map((x) => x.tiktok), ...(day >= dayOffset(TODAY, -2) ? [UNLINKED_TIKTOK] : [])]) {
    const spend = (1 + random() * 7).toFixed(2);
    tiktokRows.push({
      advertiserId: ADVERTISER,
      campaignId: c.id,
      campaignName: c.name,
      date: day,
      spend,
      impressions: String(800 + Math.floor(random() * 4000)),
      clicks: String(10 + Math.floor(random() * 90)),
      conversion: "-",
    });
  }
}

const cake = createCakeFake();
const tiktok = createTikTokFake({ advertiserIds: [ADVERTISER], rows: tiktokRows });

/** What one CAKE click row (a visit to the offer) and its conversions carry. */
interface Visit {
  day: string;
  buyer: string;
  offer: number;
  clickId: string;
  campaign: number | null;
  spark: number | null;
  revenueCents: number;
  conversions: number;
}
const visits: Visit[] = [];
let conversionSeq = 900_000;

/** Files a visit with CAKE (its click, and maybe a conversion) and remembers what it should count. */
function addVisit(v: Omit<Visit, "revenueCents" | "conversions">, sparkIds: string[]) {
  const offer = OFFERS[v.offer]!;
  const time = `${v.day}T${String(Math.floor(random() * 24)).padStart(2, "0")}:${String(Math.floor(random() * 60)).padStart(2, "0")}:00`;
  const subs = { subid_1: v.buyer, subid_2: v.clickId, subid_3: v.spark === null ? "" : sparkIds[v.spark]! };
  const click: FakeCakeClick = {
    click_id: `c${cake.state.clicks.length + 1}`,
    click_date: time,
    offer_id: offer.cake.id,
    offer_name: offer.cake.name,
    ...subs,
  };
  cake.state.clicks.push(click);
  const visit: Visit = { ...v, revenueCents: 0, conversions: 0 };
  const roll = random();
  if (roll < 0.4) {
    const price = pick(offer.payouts);
    const conversion: FakeCakeConversion = {
      conversion_id: ++conversionSeq,
      conversion_date: time,
      offer_id: offer.cake.id,
      offer_name: offer.cake.name,
      price,
      disposition: "Approved",
      ...subs,
    };
    cake.state.conversions.push(conversion);
    visit.revenueCents = cents(price);
    visit.conversions = 1;
  } else if (roll < 0.45) {
    // A rejected conversion is reported but never counted.
    cake.state.conversions.push({
      conversion_id: ++conversionSeq,
      conversion_date: time,
      offer_id: offer.cake.id,
      offer_name: offer.cake.name,
      price: pick(offer.payouts),
      disposition: "Rejected",
      ...subs,
    });
  }
  visits.push(visit);
}

function expected(days: string[], where: (v: Visit) => boolean = () => true) {
  const vs = visits.filter((v) => days.includes(v.day) && where(v));
  const revenue = vs.reduce((s, v) => s + v.revenueCents, 0);
  return { visits: vs.length, conversions: vs.reduce((s, v) => s + v.conversions, 0), revenue };
}
const spendOf = (days: string[]) => tiktokRows.filter((r) => days.includes(r.date)).reduce((s, r) => s + cents(r.spend), 0);

// ---------------------------------------------------------------------------------------------
// The fakes, served over HTTP on free ports for the Worker under wrangler dev.
// ---------------------------------------------------------------------------------------------
// Filled before the harness starts Trackyard (hooks run in order), which hands them to the Worker.
const vars: Record<string, string> = {};
const servers: Server[] = [];
beforeAll(async () => {
  const [cakeServer, tiktokServer] = await Promise.all([serveFetch(cake.handle), serveFetch(tiktok.handle)]);
  servers.push(cakeServer.server, tiktokServer.server);
  Object.assign(vars, {
    CAKE_BASE_URL: cakeServer.url,
    CAKE_API_KEY: cake.state.apiKey,
    CAKE_AFFILIATE_ID: cake.state.affiliateId,
    TIKTOK_BASE_URL: tiktokServer.url,
    TIKTOK_ACCESS_TOKEN: tiktok.state.accessToken,
    TIKTOK_ADVERTISER_IDS: ADVERTISER,
    // "Sync now" pulls the whole month, so one run fills it.
    SYNC_RECENT_DAYS: "30",
    SYNC_DAILY_DAYS: "30",
  });
});
const h = useHarness("stats", vars);
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

// ---------------------------------------------------------------------------------------------
// Page helpers
// ---------------------------------------------------------------------------------------------

const call = callApi;

async function statCard(page: Page, label: string) {
  const card = page
    .locator("main p")
    .filter({ hasText: new RegExp(`^${label.replace(/[/]/g, "\\/")}$`) })
    .locator("xpath=..");
  const [, value = "", note = ""] = await card.locator(":scope > p").allTextContents();
  return { value: value.trim(), note: note.trim() };
}
const cardValue = async (page: Page, label: string) => (await statCard(page, label)).value;

const statsTable = (page: Page) => page.getByRole("table", { name: "Stats" });
/** The body rows as their cells' text; the Name cell without its 'Filtered' badge. */
async function tableRows(page: Page): Promise<string[][]> {
  return statsTable(page)
    .locator("tbody tr")
    .evaluateAll((rows) =>
      rows.map((r) =>
        Array.from(r.querySelectorAll("td"), (td, i) =>
          (i === 0 ? (td.querySelector("button, span span")?.textContent ?? td.textContent ?? "") : (td.textContent ?? "")).trim(),
        ),
      ),
    );
}
const rowNames = async (page: Page) => (await tableRows(page)).map((r) => r[0]!);
async function headers(page: Page) {
  return statsTable(page)
    .locator("thead th")
    .evaluateAll((ths) => ths.map((th) => th.getAttribute("aria-label") ?? ""));
}
/** The TOTALS row, as column name → text. */
async function totalsRow(page: Page) {
  const names = await headers(page);
  const cells = (await statsTable(page).locator("tfoot td").allTextContents()).map((t) => t.trim());
  return Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ""]));
}

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}
async function chooseTab(page: Page, name: string) {
  await page.getByRole("tab", { name, exact: true }).click();
  await expect.poll(() => page.getByRole("tab", { name, exact: true }).getAttribute("aria-selected"), POLL).toBe("true");
}
/** Waits until the screen shows an answer for the current choices (no spinner in the table). */
async function settled(page: Page) {
  await expect.poll(() => statsTable(page).getAttribute("aria-busy"), POLL).toBe("false");
  await expect.poll(() => page.getByRole("status", { name: /Updating|Loading stats/ }).count(), POLL).toBe(0);
}

async function expectCards(page: Page, e: { visits: number; conversions: number; revenue: number; spend?: number }) {
  await expect.poll(() => cardValue(page, "Revenue"), POLL).toBe(money(e.revenue));
  expect(await cardValue(page, "Visits")).toBe(count(e.visits));
  expect(await cardValue(page, "Conversions")).toBe(count(e.conversions));
  expect((await statCard(page, "Conversions")).note).toBe(`CR ${(e.visits ? (e.conversions / e.visits) * 100 : 0).toFixed(2)}%`);
  if (e.spend !== undefined) {
    expect(await cardValue(page, "Spend")).toBe(money(e.spend));
    expect(await cardValue(page, "Profit")).toBe(money(e.revenue - e.spend));
  }
}

async function shot(page: Page, name: string) {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await h.shot(page, name);
}

const ADMIN = { username: "stats-admin", password: "stats-admin-password" };

// ---------------------------------------------------------------------------------------------

test("a month of tracked clicks, CAKE revenue and TikTok spend: tabs, variables, filters, sort, drill-down, CSV", { timeout: 300_000 }, async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();

  // First run: the first admin lands on the (empty) dashboard.
  await page.goto("/auth");
  await page.getByRole("button", { name: "Create admin account" }).waitFor();
  await page.getByLabel("Username").fill(ADMIN.username);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Create admin account" }).click();
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await page.getByText("No data available for the selected filters").waitFor();
  const sources = page.getByRole("region", { name: "Data sources" });
  await sources.getByText("never synced").first().waitFor();
  await shot(page, "01-empty");

  // Landers, offers, sparks and campaigns, as an admin sets them up.
  const landers = [];
  for (const l of LANDERS) landers.push(await call<{ id: number }>(page, "POST", "/api/landers", l));
  const offers = [];
  for (const o of OFFERS) offers.push(await call<{ id: number }>(page, "POST", "/api/offers", { name: o.name, url: o.url, utmTemplate: o.utmTemplate }));
  const sparkIds: string[] = [];
  for (const s of SPARKS) sparkIds.push((await call<{ sparkId: string }>(page, "POST", "/api/sparks", s)).sparkId);
  const campaignIds: number[] = [];
  for (const c of CAMPAIGNS) {
    const created = await call<{ id: number }>(page, "POST", "/api/campaigns", {
      name: c.name,
      landerId: landers[c.lander]!.id,
      offerId: offers[c.offer]!.id,
      bhToggle: true,
    });
    campaignIds.push(created.id);
  }
  // Back on the dashboard, the filters offer what was just set up.
  await page.reload();
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();

  // Ad traffic through the real tracking link (with TikTok's macros filled in); about 60% of the
  // visitors go on to the offer through /click, and CAKE reports those visits over the month.
  let ip = 0;
  const clickThrough = async (ci: number) => {
    const c = CAMPAIGNS[ci]!;
    const adGroup = pick(["01", "02"]);
    const creative = pick(["a", "b", "c"]);
    const q = new URLSearchParams({
      cid: c.tiktok.id,
      ad: `${c.tiktok.id.slice(-3)}${adGroup}`,
      cr: `${c.tiktok.id.slice(-3)}${adGroup}${creative}`,
      plc: pick(PLACEMENTS),
      cname: c.tiktok.name,
      aname: `${c.tiktok.name} / AG ${adGroup}`,
      crname: `Video ${creative.toUpperCase()}`,
    });
    const headers = { "cf-connecting-ip": `203.0.113.${(ip++ % 250) + 1}`, "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) musical_ly" };
    const r = await fetch(`${h.url}/r/${campaignIds[ci]}?${q}`, { redirect: "manual", headers });
    expect(r.status).toBe(302);
    const clickId = new URL(r.headers.get("location")!).searchParams.get("clickId")!;
    if (random() < 0.6) {
      const exit = await fetch(`${h.url}/click?clickId=${clickId}&cid=${campaignIds[ci]}`, { redirect: "manual", headers });
      expect(exit.status).toBe(302);
      expect(exit.headers.get("location")).toContain(clickId);
      const roll = random();
      addVisit({ day: activityDay(), buyer: c.buyer, offer: c.offer, clickId, campaign: ci, spark: roll < 0.4 ? 0 : roll < 0.7 ? 1 : null }, sparkIds);
    }
    return clickId;
  };
  const order = CAMPAIGNS.flatMap((c, ci) => Array.from({ length: c.clicks }, () => ci));
  const clickIds: string[] = [];
  for (let i = 0; i < order.length; i += 10) clickIds.push(...(await Promise.all(order.slice(i, i + 10).map(clickThrough))));
  // Visits CAKE saw that did not come through our links (organic, another tracker): 'Direct'.
  for (let i = 0; i < 8; i++) addVisit({ day: activityDay(), buyer: "ana", offer: 0, clickId: i % 2 ? "" : `ext-${i}`, campaign: null, spark: null }, sparkIds);

  // Every click is stored (written after the answer) before CAKE's rows are joined to them.
  await expect
    .poll(async () => {
      const r = await call<{ rows: { linkClicks: number | null }[] }>(page, "GET", `/api/stats/report?startDate=${TODAY}&endDate=${TODAY}&groupBy=campaign`);
      return r.rows.reduce((s, row) => s + (row.linkClicks ?? 0), 0);
    }, POLL)
    .toBe(clickIds.length);

  // A real sync of both sources from the admin strip.
  await sources.getByRole("button", { name: "Sync now" }).click();
  await page.getByText("Sync finished").first().waitFor();
  await expect.poll(() => sources.getByText(/last synced/).count(), POLL).toBe(2);
  const month = { ...expected(MONTH), spend: spendOf(MONTH) };
  const today = { ...expected([TODAY]), spend: spendOf([TODAY]) };
  expect(month.conversions).toBeGreaterThan(10);
  expect(today.visits).toBeGreaterThan(0);
  await settled(page);
  await expectCards(page, today);
  await shot(page, "02-today-after-sync");

  // The month, through the date-range picker's quick range.
  await page.getByRole("button", { name: /^Date range:/ }).click();
  await page.getByRole("button", { name: "Last 30 days", exact: true }).click();
  await page.getByRole("button", { name: "Apply" }).click();
  await settled(page);
  await expectCards(page, month);
  // The spend of the campaign nobody clicked shows as its own row, so the totals add up.
  expect(await rowNames(page)).toContain("Unattributed spend");
  const campaignRows = await rowNames(page);
  for (const c of CAMPAIGNS) expect(campaignRows).toContain(c.name);
  expect(campaignRows).toContain("Direct");
  // Default sort: revenue, largest first.
  const revenueIndex = (await headers(page)).indexOf("Revenue");
  const revenues = (await tableRows(page)).map((r) => cents(r[revenueIndex]!));
  expect(revenues).toEqual([...revenues].sort((a, b) => b - a));
  expect((await totalsRow(page))["Revenue"]).toBe(money(month.revenue));
  expect((await totalsRow(page))["Link Clicks (clicks on our tracking link)"]).toBe(count(clickIds.length));
  await page.getByText("Revenue, spend and profit per day").waitFor();
  await page.locator(".recharts-surface").first().waitFor();
  await shot(page, "03-month-campaigns");

  // Every grouping: the totals are the month's whatever the rows, our own clicks included.
  const LINK_CLICKS = "Link Clicks (clicks on our tracking link)";
  // [tab, Name header, rows it must show, whether each of our clicks is in exactly one row]
  const tabs: [string, string, string[], boolean][] = [
    ["Sparks", "Spark", ["No Spark", ...SPARKS.map((s) => s.name)], false],
    ["Offers", "Offer", OFFERS.map((o) => o.cake.name), false],
    ["Landers", "Lander", LANDERS.map((l) => l.name), true],
    ["Media Buyer", "Media Buyer", ["ana", "bo"], false],
    ["Device", "Device", [], true],
    ["Country", "Country", [], true],
  ];
  for (const [tab, nameHeader, names, partition] of tabs) {
    await chooseTab(page, tab);
    await settled(page);
    await expect.poll(async () => (await headers(page))[0], POLL).toBe(nameHeader);
    const shown = await rowNames(page);
    for (const n of names) expect(shown).toContain(n);
    expect((await totalsRow(page))["Revenue"]).toBe(money(month.revenue));
    // Our own traffic on every tab: the totals count each click once; where the grouping is a
    // field of the click (its lander, device, country), the rows share the clicks out exactly.
    expect((await totalsRow(page))[LINK_CLICKS]).toBe(count(clickIds.length));
    if (partition) {
      const linkIndex = (await headers(page)).indexOf(LINK_CLICKS);
      const perRow = (await tableRows(page)).map((r) => Number(r[linkIndex]!.replace(/,/g, "")) || 0);
      expect([tab, perRow.reduce((a, b) => a + b, 0)]).toEqual([tab, clickIds.length]);
    }
    await shot(page, `04-tab-${tab.toLowerCase().replace(/ /g, "-")}`);
  }
  // One spark's row holds exactly the visits and revenue CAKE filed under its id (sub3).
  await chooseTab(page, "Sparks");
  await settled(page);
  const bySpark = expected(MONTH, (v) => v.spark === 0);
  const sparkHeaders = await headers(page);
  const sparkRow = (await tableRows(page)).find((r) => r[0] === SPARKS[0]!.name)!;
  expect(sparkRow[sparkHeaders.indexOf("Revenue")]).toBe(money(bySpark.revenue));
  expect(sparkRow[sparkHeaders.indexOf("Visits")]).toBe(count(bySpark.visits));

  // A tracking-field variable: grouped by TikTok campaign id, straight from our clicks' macros.
  await chooseTab(page, "Campaigns");
  await choose(page, "Variables (Tracking Fields)", "Campaign ID");
  await settled(page);
  await expect.poll(async () => (await headers(page))[0], POLL).toBe("Campaign ID");
  // The header follows the URL at once; the rows follow when the new grouping's answer arrives.
  const missingIds = async () => {
    const names = await rowNames(page);
    return CAMPAIGNS.map((c) => c.tiktok.id).filter((id) => !names.includes(id));
  };
  await expect.poll(missingIds, POLL).toEqual([]);
  expect((await totalsRow(page))["Revenue"]).toBe(money(month.revenue));
  await shot(page, "05-variable-campaign-id");
  await choose(page, "Variables (Tracking Fields)", "No Variable Selected");
  await expect.poll(() => page.getByRole("tab", { name: "Campaigns" }).getAttribute("aria-selected"), POLL).toBe("true");

  // Filters: a media buyer, then an offer (ours: the campaigns sending to it).
  await choose(page, "Media Buyer", "bo");
  await settled(page);
  await expectCards(
    page,
    expected(MONTH, (v) => v.buyer === "bo"),
  );
  await shot(page, "06-filter-media-buyer");
  await choose(page, "Media Buyer", "All Media Buyers");
  await choose(page, "Offer", "Survey CA");
  await settled(page);
  await expectCards(
    page,
    expected(MONTH, (v) => v.campaign !== null && CAMPAIGNS[v.campaign]!.offer === 1),
  );
  await choose(page, "Offer", "All Offers");
  await choose(page, "Spark", `${SPARKS[1]!.name} (${sparkIds[1]})`);
  await settled(page);
  await expectCards(
    page,
    expected(MONTH, (v) => v.spark === 1),
  );
  await choose(page, "Spark", "No Spark");
  await settled(page);
  await expectCards(
    page,
    expected(MONTH, (v) => v.spark === null),
  );
  await choose(page, "Spark", "All Sparks");
  await settled(page);
  await expectCards(page, month);

  // Sorting: a new column sorts descending, the same column again ascending.
  await statsTable(page).getByRole("button", { name: "Sort by Visits" }).click();
  const visitsHeader = statsTable(page).getByRole("columnheader", { name: "Visits", exact: true });
  // The sort is part of the URL: the table follows once the navigation commits.
  await expect.poll(() => visitsHeader.getAttribute("aria-sort"), POLL).toBe("descending");
  const visitsIndex = (await headers(page)).indexOf("Visits");
  const visitCounts = async () => (await tableRows(page)).map((r) => Number(r[visitsIndex]!.replace(/,/g, "")));
  expect(await visitCounts()).toEqual([...(await visitCounts())].sort((a, b) => b - a));
  await statsTable(page).getByRole("button", { name: "Sort by Visits" }).click();
  await expect.poll(() => visitsHeader.getAttribute("aria-sort"), POLL).toBe("ascending");
  expect(await visitCounts()).toEqual([...(await visitCounts())].sort((a, b) => a - b));
  await shot(page, "07-sorted-by-visits-ascending");

  // Drill into a campaign: the row toggles the filter, the chip shows, other tabs keep it.
  const ana = CAMPAIGNS[0]!;
  const anaFigures = expected(MONTH, (v) => v.campaign === 0);
  await statsTable(page).getByRole("row").filter({ hasText: ana.name }).click();
  await page.getByText(`Campaign: ${ana.name}`).waitFor();
  await settled(page);
  expect(await rowNames(page)).toEqual([ana.name]);
  await statsTable(page).getByText("Filtered").waitFor();
  await expectCards(page, anaFigures);
  await shot(page, "08-drilled-into-campaign");
  await chooseTab(page, "Sparks");
  await settled(page);
  expect((await totalsRow(page))["Revenue"]).toBe(money(anaFigures.revenue));
  await shot(page, "09-campaign-by-spark");
  await page.getByRole("button", { name: `Remove the campaign filter ${ana.name}` }).click();
  await expect.poll(() => page.getByText(`Campaign: ${ana.name}`).count(), POLL).toBe(0);
  await settled(page);
  await expectCards(page, month);
  // ... and clicking the filtered row again clears it.
  await chooseTab(page, "Campaigns");
  await settled(page);
  await statsTable(page)
    .getByRole("button", { name: `Filter by campaign ${ana.name}` })
    .click();
  await page.getByText(`Campaign: ${ana.name}`).waitFor();
  await statsTable(page)
    .getByRole("button", { name: `Clear the campaign filter ${ana.name}` })
    .click();
  await expect.poll(() => page.getByText(`Campaign: ${ana.name}`).count(), POLL).toBe(0);
  // Direct is not a campaign: it does not filter.
  await settled(page);
  await statsTable(page).getByRole("row").filter({ hasText: "Direct" }).click();
  expect(await page.getByText(/^Campaign: /).count()).toBe(0);

  // Export: the file's rows add up to the cards.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toBe(`stats-${TODAY}.csv`);
  const csv = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
  const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  // The file is the table, column for column: its headers, its rows, its figures without $, % and x.
  const fields = [
    "Campaign",
    "Visits",
    "Conv",
    "Revenue",
    "Cost",
    "Profit",
    "ROI",
    "ROAS",
    "vCR",
    "EPV",
    "CPV",
    "Link Clicks",
    "Exit Clicks",
    "Lander CTR",
    "Bot Share",
  ];
  expect(parsed.meta.fields).toEqual(fields);
  expect(
    await statsTable(page)
      .locator("thead th")
      .evaluateAll((ths) => ths.map((th) => th.textContent ?? "").filter(Boolean)),
  ).toEqual(fields);
  const plain = (cell: string) => (cell === "—" ? "" : cell.replace(/[$,%x]/g, ""));
  expect(parsed.data.map((r) => fields.map((f) => r[f]))).toEqual(
    (await tableRows(page)).map((r) => r.slice(0, fields.length).map((c, i) => (i ? plain(c) : c))),
  );
  const sum = (col: string) => parsed.data.reduce((s, r) => s + cents(r[col]!), 0);
  expect(money(sum("Revenue"))).toBe(await cardValue(page, "Revenue"));
  expect(money(sum("Cost"))).toBe(await cardValue(page, "Spend"));
  expect(money(sum("Profit"))).toBe(await cardValue(page, "Profit"));
  expect(count(parsed.data.reduce((s, r) => s + Number(r.Visits), 0))).toBe(await cardValue(page, "Visits"));
  expect(count(parsed.data.reduce((s, r) => s + Number(r.Conv), 0))).toBe(await cardValue(page, "Conversions"));

  // Columns: hide EPV and widen Name with the keyboard; both follow the user after a reload.
  await page.getByRole("button", { name: "Columns" }).click();
  await page.getByRole("checkbox", { name: "EPV (earnings per visit)" }).click();
  await page.keyboard.press("Escape");
  const handle = statsTable(page).getByRole("separator", { name: "Resize Campaign column" });
  const before = Number(await handle.getAttribute("aria-valuenow"));
  await handle.focus();
  const saved = page.waitForResponse((r) => r.url().endsWith("/api/user/preferences") && r.request().method() === "PUT" && r.ok());
  for (let i = 0; i < 4; i++) await page.keyboard.press("Shift+ArrowRight");
  await saved;
  await expect
    .poll(() => call<{ visibleColumns: string[]; columnWidths: Record<string, number> }>(page, "GET", "/api/user/preferences"), POLL)
    .toEqual({
      visibleColumns: [
        "name",
        "visits",
        "conversions",
        "revenue",
        "spend",
        "profit",
        "roi",
        "roas",
        "cr",
        "cpv",
        "linkClicks",
        "exitClicks",
        "landerCtr",
        "botShare",
      ],
      columnWidths: { name: before + 200 },
    });
  // The mouse works too: drag Revenue's edge 40 px to the right.
  const revenueHandle = statsTable(page).getByRole("separator", { name: "Resize Revenue column" });
  const revenueBefore = Number(await revenueHandle.getAttribute("aria-valuenow"));
  const box = (await revenueHandle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 20, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  expect(Number(await revenueHandle.getAttribute("aria-valuenow"))).toBe(revenueBefore + 40);
  await expect
    .poll(async () => (await call<{ columnWidths: Record<string, number> }>(page, "GET", "/api/user/preferences")).columnWidths, POLL)
    .toEqual({ name: before + 200, revenue: revenueBefore + 40 });
  await page.reload();
  await settled(page);
  expect(await headers(page)).not.toContain("EPV (earnings per visit)");
  expect(Number(await statsTable(page).getByRole("separator", { name: "Resize Campaign column" }).getAttribute("aria-valuenow"))).toBe(before + 200);
  expect(Number(await statsTable(page).getByRole("separator", { name: "Resize Revenue column" }).getAttribute("aria-valuenow"))).toBe(revenueBefore + 40);
  await page.locator(".recharts-surface").first().waitFor();
  await shot(page, "10-columns-saved");

  // A phone: summary cards two by two, and a card per row with its key figures instead of the table.
  const names = await rowNames(page);
  await page.setViewportSize({ width: 390, height: 844 });
  const phoneRows = page.getByRole("list", { name: "Stats" }).getByRole("listitem");
  await expect.poll(() => phoneRows.evaluateAll((items) => items.map((li) => li.getAttribute("aria-label"))), POLL).toEqual(names);
  const first = await phoneRows.first().getByRole("term").allTextContents();
  expect(first).toEqual(["Revenue", "Cost", "Profit", "ROI", "Visits", "Link Clicks"]);
  await shot(page, "11-phone");
  await page.setViewportSize({ width: 1280, height: 860 });

  // The offers screen: the last 30 days by default, from the same CAKE rows.
  await page.goto("/offers");
  await page.getByRole("heading", { name: "Offers" }).waitFor();
  await expect.poll(async () => (await statCard(page, "Total Revenue")).value, POLL).toBe(money(month.revenue));
  expect((await statCard(page, "CAKE Clicks")).value).toBe(count(month.visits));
  expect((await statCard(page, "Total Conversions")).value).toBe(count(month.conversions));
  const offerTable = page.getByRole("table", { name: "Offer performance" });
  for (const o of OFFERS) await offerTable.getByRole("cell", { name: o.cake.name }).waitFor();
  await shot(page, "12-offers");
  await ctx.close();
});
