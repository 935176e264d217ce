import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { member, renderWithUser } from "@/test/render";
import type { Report, ReportRow } from "./api";
import StatsScreen from "./stats-screen";

const metrics = (visits: number, conversions: number, revenue: string, spend: string) => {
  const profit = (Number(revenue) - Number(spend)).toFixed(2);
  return {
    visits,
    conversions,
    revenue,
    spend,
    profit,
    roi: Number(spend) ? ((Number(revenue) - Number(spend)) / Number(spend)) * 100 : 0,
    roas: Number(spend) ? Number(revenue) / Number(spend) : 0,
    cr: visits ? (conversions / visits) * 100 : 0,
    epv: visits ? (Number(revenue) / visits).toFixed(3) : "0.000",
    cpv: visits ? (Number(spend) / visits).toFixed(3) : "0.000",
    linkClicks: visits,
    exitClicks: Math.floor(visits / 2),
    landerCtr: visits ? 50 : null,
    botShare: visits ? 10 : null,
  };
};

const row = (key: string, name: string, campaignId: number | null, m: ReturnType<typeof metrics>): ReportRow => ({
  key,
  name,
  campaignId,
  spendMethod: "attributed",
  ...m,
});

const ROWS = [
  row("1", "Alpha", 1, metrics(100, 5, "250.00", "80.00")),
  row("2", "Bravo", 2, metrics(400, 2, "90.00", "120.00")),
  row("direct", "Direct", null, metrics(20, 1, "30.00", "0.00")),
];

function report(rows: ReportRow[], groupBy: Report["groupBy"] = "campaign"): Report {
  return {
    startDate: "2026-11-22",
    endDate: "2026-11-22",
    timeZone: "UTC",
    groupBy,
    rows,
    totals: { ...metrics(520, 8, "370.00", "200.00") },
    traffic: { linkClicks: 500, exitClicks: 250, landerCtr: 50 },
    spendNote: null,
    daily: [{ date: "2026-11-22", revenue: "370.00", spend: "200.00", profit: "170.00" }],
    lastSync: { cake: null, tiktok: null },
  };
}

/** The server: the report narrows to a campaign when the call names one. */
function route(url: URL): unknown {
  switch (url.pathname) {
    case "/api/stats/report": {
      const campaignId = url.searchParams.get("campaignId");
      return report(
        campaignId ? ROWS.filter((r) => String(r.campaignId) === campaignId) : ROWS,
        (url.searchParams.get("groupBy") ?? "campaign") as Report["groupBy"],
      );
    }
    case "/api/stats/filters":
      return { mediaBuyers: ["mb-ana", "mb-bo"] };
    case "/api/offers":
      return [];
    case "/api/sparks":
      return [];
    case "/api/user/preferences":
      return { visibleColumns: [], columnWidths: {} };
    default:
      throw new Error(`unexpected call ${url.pathname}`);
  }
}

const reportCalls = (fetchMock: ReturnType<typeof vi.fn>) =>
  fetchMock.mock.calls
    .map(([input]) => new URL(String(input instanceof Request ? input.url : input), "http://localhost"))
    .filter((u) => u.pathname === "/api/stats/report");

const renderScreen = () =>
  renderWithUser(
    <MemoryRouter>
      <StatsScreen />
      <Toaster />
    </MemoryRouter>,
    member(["dashboard"]),
  );

const table = () => screen.getByRole("table", { name: "Stats" });
const bodyNames = () =>
  within(table())
    .getAllByRole("row")
    .slice(1)
    .map((r) => r.getAttribute("data-key"))
    .filter(Boolean);

describe("Stats screen", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://localhost");
      // The preferences PUT answers what it stored: what it was sent.
      if (init?.method === "PUT") return Response.json(JSON.parse(String(init.body)));
      return Response.json(route(url));
    });
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sorts by revenue, largest first; the same column flips, a new column sorts descending", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    expect(bodyNames()).toEqual(["1", "2", "direct"]);
    const revenueHeader = within(table()).getByRole("columnheader", { name: /Revenue/ });
    expect(revenueHeader.getAttribute("aria-sort")).toBe("descending");

    fireEvent.click(within(revenueHeader).getByRole("button"));
    expect(bodyNames()).toEqual(["direct", "2", "1"]);
    expect(revenueHeader.getAttribute("aria-sort")).toBe("ascending");

    const visitsHeader = within(table()).getByRole("columnheader", { name: /Visits/ });
    fireEvent.click(within(visitsHeader).getByRole("button"));
    expect(bodyNames()).toEqual(["2", "1", "direct"]);
    expect(visitsHeader.getAttribute("aria-sort")).toBe("descending");
    expect(revenueHeader.getAttribute("aria-sort")).toBeNull();

    fireEvent.click(within(visitsHeader).getByRole("button"));
    expect(bodyNames()).toEqual(["direct", "1", "2"]);

    // Profit is a money column: -30.00 sorts below 20.00 and 30.00 (not as text).
    fireEvent.click(within(within(table()).getByRole("columnheader", { name: /Profit/ })).getByRole("button"));
    expect(bodyNames()).toEqual(["1", "direct", "2"]);

    // Link Clicks, Exit Clicks and Lander CTR are not sortable.
    expect(within(within(table()).getByRole("columnheader", { name: /Link Clicks/ })).queryByRole("button")).toBeNull();
  });

  it("shows the totals row and the six cards", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    const footer = within(table()).getAllByRole("row").at(-1)!;
    expect(within(footer).getByText("TOTALS")).toBeTruthy();
    expect(within(footer).getByText("$370.00")).toBeTruthy();
    expect(screen.getByText("CR 1.54%")).toBeTruthy();
    expect(screen.getByText("EPV $0.712")).toBeTruthy();
    expect(screen.getByText("ROI / ROAS").parentElement!.textContent).toContain("85.0% / 1.85x");
  });

  it("shows our own traffic (link clicks, exits, lander CTR) in every grouping, and says CAKE has not synced yet", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    const traffic = screen.getByRole("region", { name: "Our traffic" });
    expect(within(traffic).getByText("Link Clicks").nextElementSibling!.textContent).toBe("500");
    expect(within(traffic).getByText("Exit Clicks").nextElementSibling!.textContent).toBe("250");
    expect(within(traffic).getByText("Lander CTR").nextElementSibling!.textContent).toBe("50.00%");
    expect(within(traffic).getByText(/come from CAKE.*until their first sync/)).toBeTruthy();
    fireEvent.mouseDown(screen.getByRole("tab", { name: "Sparks" }), { button: 0 });
    await waitFor(() => expect(reportCalls(fetchMock).at(-1)!.searchParams.get("groupBy")).toBe("spark"));
    await waitFor(() =>
      expect(within(screen.getByRole("region", { name: "Our traffic" })).getByText("Link Clicks").nextElementSibling!.textContent).toBe("500"),
    );
  });

  it("a campaign row toggles the campaign filter, with the chip and the Filtered badge; Direct does not", async () => {
    renderScreen();
    await screen.findByText("Alpha");

    // Direct is not a campaign: clicking it changes nothing.
    fireEvent.click(within(table()).getByText("Direct"));
    expect(screen.queryByText(/^Campaign: /)).toBeNull();
    expect(within(table()).queryByRole("button", { name: /Direct/ })).toBeNull();

    fireEvent.click(within(table()).getByText("Bravo"));
    expect(await screen.findByText("Campaign: Bravo")).toBeTruthy();
    await waitFor(() => expect(bodyNames()).toEqual(["2"]));
    expect(reportCalls(fetchMock).at(-1)!.searchParams.get("campaignId")).toBe("2");
    const bravo = within(table()).getByRole("button", { name: "Clear the campaign filter Bravo" });
    expect(bravo.getAttribute("aria-pressed")).toBe("true");
    expect(within(table()).getByText("Filtered")).toBeTruthy();

    // Clicking the filtered row again clears the filter.
    fireEvent.click(bravo);
    await waitFor(() => expect(screen.queryByText("Campaign: Bravo")).toBeNull());
    await waitFor(() => expect(bodyNames()).toEqual(["1", "2", "direct"]));
    expect(within(table()).queryByText("Filtered")).toBeNull();
    expect(reportCalls(fetchMock).some((u) => !u.searchParams.has("campaignId"))).toBe(true);

    // The chip's x clears it too, and the filter stays while switching tabs.
    fireEvent.click(within(table()).getByText("Alpha"));
    await screen.findByText("Campaign: Alpha");
    fireEvent.mouseDown(screen.getByRole("tab", { name: "Sparks" }), { button: 0 });
    await waitFor(() => expect(reportCalls(fetchMock).at(-1)!.searchParams.get("groupBy")).toBe("spark"));
    expect(reportCalls(fetchMock).at(-1)!.searchParams.get("campaignId")).toBe("1");
    // Outside campaign grouping rows do not toggle the filter.
    expect(within(table()).queryByRole("button", { name: /Filter by campaign/ })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Remove the campaign filter Alpha" }));
    await waitFor(() => expect(screen.queryByText("Campaign: Alpha")).toBeNull());
    await waitFor(() => expect(reportCalls(fetchMock).at(-1)!.searchParams.has("campaignId")).toBe(false));
  });

  it("exports the rows in the table's order, formula-safe", async () => {
    ROWS.push(row("3", '=HYPERLINK("http://x")', 3, metrics(1, 0, "0.00", "5.00")));
    let blob: Blob | undefined;
    const createObjectURL = vi.fn((b: Blob) => {
      blob = b;
      return "blob:stats";
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    try {
      renderScreen();
      await screen.findByText("Alpha");
      await act(async () => fireEvent.click(screen.getByRole("button", { name: "Download CSV" })));
      expect(clicked).toEqual([expect.stringMatching(/^stats-\d{4}-\d{2}-\d{2}\.csv$/)]);
      const lines = (await blob!.text())
        .replace(/^\uFEFF/, "")
        .trim()
        .split("\r\n");
      expect(lines[0]).toBe("Name,Visits,Conversions,Revenue,Spend,Profit,ROI,ROAS,CR,EPC,CPV");
      expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(["Alpha", "Bravo", "Direct", `"'=HYPERLINK(""http://x"")"`]);
      expect(lines[2]).toBe("Bravo,400,2,90.00,120.00,-30.00,-25.0,0.75,0.50,0.225,0.300");
    } finally {
      ROWS.pop();
      click.mockRestore();
    }
  });

  it("saves the chosen columns and widths for the user, once the changes settle", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    const puts = () =>
      fetchMock.mock.calls
        .filter(([input, init]) => String(input).includes("/api/user/preferences") && (init as RequestInit | undefined)?.method === "PUT")
        .map(([, init]) => JSON.parse(String((init as RequestInit).body)) as { visibleColumns: string[]; columnWidths: Record<string, number> });

    fireEvent.click(screen.getByRole("button", { name: "Columns" }));
    fireEvent.click(await screen.findByRole("checkbox", { name: "EPV (earnings per visit)" }));
    expect(within(table()).queryByRole("columnheader", { name: "EPV (earnings per visit)" })).toBeNull();

    const handle = within(table()).getByRole("separator", { name: "Resize Campaign column" });
    expect(handle.getAttribute("aria-valuenow")).toBe("220");
    fireEvent.keyDown(handle, { key: "ArrowRight" });
    fireEvent.keyDown(handle, { key: "ArrowRight", shiftKey: true });
    expect(handle.getAttribute("aria-valuenow")).toBe("280");
    fireEvent.keyDown(handle, { key: "Home" });
    expect(handle.getAttribute("aria-valuenow")).toBe("40");
    fireEvent.keyDown(handle, { key: "ArrowRight" });

    // One save for the burst, with everything but EPV and the last width.
    expect(puts()).toEqual([]);
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]).toEqual({
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
      columnWidths: { name: 50 },
    });
  });

  it("after a refresh, stays busy until the user's columns arrive and never draws the default set first", async () => {
    let answerColumns: () => void = () => undefined;
    const columnsAnswered = new Promise<void>((resolve) => (answerColumns = resolve));
    fetchMock.mockImplementation(async (input: RequestInfo | URL) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://localhost");
      if (url.pathname !== "/api/user/preferences") return Response.json(route(url));
      await columnsAnswered;
      return Response.json({ visibleColumns: ["name", "visits", "revenue"], columnWidths: { name: 300 } });
    });
    renderScreen();
    await waitFor(() => expect(reportCalls(fetchMock)).toHaveLength(1));
    // The report is in; the table waits for the columns.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(table().getAttribute("aria-busy")).toBe("true");
    expect(within(table()).queryByText("Alpha")).toBeNull();

    answerColumns();
    await screen.findByText("Alpha");
    expect(table().getAttribute("aria-busy")).toBe("false");
    expect(within(table()).queryByRole("columnheader", { name: "EPV (earnings per visit)" })).toBeNull();
    expect(within(table()).getByRole("separator", { name: "Resize Campaign column" }).getAttribute("aria-valuenow")).toBe("300");
  });

  it("says so when there is nothing to show", async () => {
    fetchMock.mockImplementation(async (input: RequestInfo | URL) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://localhost");
      return Response.json(url.pathname === "/api/stats/report" ? report([]) : route(url));
    });
    renderScreen();
    expect(await screen.findByText("No data available for the selected filters")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Download CSV" }).hasAttribute("disabled")).toBe(true);
  });
});
