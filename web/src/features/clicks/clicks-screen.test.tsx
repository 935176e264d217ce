import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { browserInZone } from "@/test/browser-zone";
import { member, renderWithUser } from "@/test/render";
import type { Click, ClickLog, ClicksPipeline } from "./api";
import ClicksScreen from "./clicks-screen";

// A browser in New York looking at a team whose report time zone is Manila (UTC+8, 13 hours
// ahead of New York in November): 16:23 UTC on Nov 25 is 00:23 on Nov 26 in Manila, the day the
// range counts it on, and 11:23 on Nov 25 on the browser's clock.
const REPORT_ZONE = "Asia/Manila";
browserInZone("America/New_York");

const click: Click = {
  id: 1,
  clickId: "c0ffee00-0000-4000-8000-000000000001",
  campaignId: 3,
  campaign: "Spring sweeps",
  tiktokCampaignId: null,
  tiktokAdGroupId: null,
  tiktokCreativeId: null,
  placement: null,
  campaignName: null,
  adGroupName: null,
  creativeName: null,
  ipAddress: "203.0.113.9",
  userAgent: null,
  ttclid: null,
  country: null,
  region: null,
  city: null,
  asn: null,
  asOrganization: null,
  deviceType: null,
  os: null,
  browser: null,
  bot: false,
  botReason: null,
  clickedAt: "2026-11-25T16:23:05.000Z",
  exitedAt: "2026-11-25T16:24:10.000Z",
};

const log: ClickLog = {
  startDate: "2026-11-20",
  endDate: "2026-11-26",
  timeZone: REPORT_ZONE,
  total: 1,
  exitClicks: 1,
  ctr: 100,
  botClicks: 0,
  page: 1,
  pageSize: 50,
  totalPages: 1,
  clicks: [click],
};

const onTime: ClicksPipeline = {
  delayed: false,
  reason: "lag",
  delaySeconds: 1,
  thresholdSeconds: 60,
  lastStoredAt: "2026-11-25T16:24:11.000Z",
  clicksPerMinuteBefore: null,
};

function answer(input: RequestInfo | URL) {
  const path = new URL(String(input), "http://localhost").pathname;
  if (path === "/api/clicks") return Response.json(log);
  if (path === "/api/clicks/facets") return Response.json({ countries: [], devices: [], oses: [], browsers: [] });
  if (path === "/api/clicks/retention")
    return Response.json({ retentionDays: 90, retentionProblem: null, archivedBefore: null, reachesPastRetention: false, archives: [] });
  if (path === "/api/clicks/refused") return Response.json({ clicks: 0, exits: 0, days: [] });
  if (path === "/api/clicks/pipeline") return Response.json(onTime);
  return Response.json([]);
}

/** The Click Log at `search` (after the range), its API answered by `respond`. */
function renderClickLog(search = "", respond: (input: RequestInfo | URL) => Response = answer) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => respond(input)),
  );
  renderWithUser(
    <MemoryRouter initialEntries={[`/clicks?startDate=2026-11-20&endDate=2026-11-26${search}`]}>
      <ClicksScreen />
    </MemoryRouter>,
    member(["clicks"]),
    { timeZone: REPORT_ZONE },
  );
}

describe("Click Log times", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows a click at the report time zone's time, and names the zone, whatever the browser's zone", async () => {
    // The test's premise: this process's clock is New York's.
    expect(new Date(click.clickedAt).getHours()).toBe(11);
    renderClickLog();
    const table = await screen.findByRole("table", { name: "Click log" });
    expect(within(table).getByRole("columnheader", { name: `Clicked At (${REPORT_ZONE})` })).toBeTruthy();
    await within(table).findByText("Nov 26, 2026 00:23:05");
    expect(within(table).getByText("Nov 26, 2026 00:24:10")).toBeTruthy();
    expect(within(table).queryByText(/Nov 25, 2026/)).toBeNull();
    expect(within(table).getByText("Nov 26, 2026 00:23:05").getAttribute("title")).toBe(`Nov 26, 2026 00:23:05 (${REPORT_ZONE})`);
  });
});

describe("Click Log on a phone", () => {
  afterEach(() => vi.unstubAllGlobals());

  const bot: Click = { ...click, id: 2, clickId: "b0770000-0000-4000-8000-000000000002", bot: true, botReason: "ad review: TikTok landing-page preloader" };

  const renderAt = (search: string, clicks: Click[]) =>
    renderClickLog(search, (input) =>
      new URL(String(input), "http://localhost").pathname === "/api/clicks" ? Response.json({ ...log, clicks, total: clicks.length }) : answer(input),
    );

  it("folds the visitor filters behind a button that counts the active ones", async () => {
    renderAt("&bot=human&country=US", [click]);
    const toggle = await screen.findByRole("button", { name: "Filters (2 active)" });
    const panel = document.getElementById(toggle.getAttribute("aria-controls")!)!;
    expect(panel.getAttribute("aria-label")).toBe("Visitor filters");
    // Folded on a phone (max-sm:hidden), always open from sm up (the button is sm:hidden).
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(panel.className).toContain("max-sm:hidden");
    expect(toggle.className).toContain("sm:hidden");
    await userEvent.setup().click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(panel.className).not.toContain("max-sm:hidden");
  });

  it("pins the campaign and click id as the first column, and shows a bot's reason on a tap or a key press", async () => {
    renderAt("", [bot]);
    const table = await screen.findByRole("table", { name: "Click log" });
    expect(within(table).getAllByRole("columnheader")[0]!.textContent).toBe("Campaign / Click ID");
    const first = await within(table).findByText("Spring sweeps");
    expect(first.closest("td")).toBe(within(table).getAllByRole("row")[1]!.querySelector("td"));
    expect(first.closest("td")!.textContent).toContain(bot.clickId.slice(0, 8));

    const badge = within(table).getByRole("button", { name: `Bot: ${bot.botReason}` });
    expect(within(table).queryByText(bot.botReason!)).toBeNull();
    const user = userEvent.setup();
    await user.click(badge);
    expect(badge.getAttribute("aria-expanded")).toBe("true");
    expect(within(table).getByText(bot.botReason!).id).toBe(badge.getAttribute("aria-controls"));
    // The keyboard reaches it too: Enter closes it again.
    badge.focus();
    await user.keyboard("{Enter}");
    expect(within(table).queryByText(bot.botReason!)).toBeNull();
  });
});

describe("Click Log when clicks are delayed", () => {
  afterEach(() => vi.unstubAllGlobals());

  const renderWith = (pipeline: ClicksPipeline) =>
    renderClickLog("", (input) => (new URL(String(input), "http://localhost").pathname === "/api/clicks/pipeline" ? Response.json(pipeline) : answer(input)));

  it("says how long the newest clicks may take to appear when the queue is behind past the threshold", async () => {
    renderWith({ ...onTime, delayed: true, delaySeconds: 185 });
    const notice = await screen.findByTestId("delay-notice");
    expect(within(notice).getByRole("heading").textContent).toBe("Clicks are delayed");
    expect(notice.textContent).toContain("The newest clicks may take about 3 minutes to appear here.");
    expect(notice.textContent).toContain("more than 60 seconds behind");
  }, 15_000);

  it("words a silence as a possibility, with the rate before it", async () => {
    renderWith({ ...onTime, delayed: true, reason: "silent", delaySeconds: 720, clicksPerMinuteBefore: 240 });
    const notice = await screen.findByTestId("delay-notice");
    expect(within(notice).getByRole("heading").textContent).toBe("Clicks may be delayed");
    expect(notice.textContent).toContain("No clicks have been stored for about 12 minutes, though about 240 a minute were coming in before that.");
  }, 15_000);

  it("says nothing while clicks are on time", async () => {
    renderWith(onTime);
    await screen.findByRole("table", { name: "Click log" });
    await screen.findByText("Spring sweeps");
    expect(screen.queryByTestId("delay-notice")).toBeNull();
  }, 15_000);
});
