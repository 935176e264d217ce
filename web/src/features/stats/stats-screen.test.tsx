import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import Papa from "papaparse";
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
    linkClicks: visits + 7,
    exitClicks: Math.floor(visits / 2),
    landerCtr: visits ? (Math.floor(visits / 2) / (visits + 7)) * 100 : 0,
    botShare: visits ? 1.5 : 0,
  };
};
/** Direct: CAKE's visits no click of ours came from, so none of our own figures. */
const noClicks = { linkClicks: null, exitClicks: null, landerCtr: null, botShare: null };

const row = (key: string, name: string, campaignId: number | null, m: Omit<ReportRow, "key" | "name" | "campaignId" | "spendMethod">): ReportRow => ({
  key,
  name,
  campaignId,
  spendMethod: "attributed",
  ...m,
});

const ROWS = [
  row("1", "Alpha", 1, metrics(100, 5, "250.00", "80.00")),
  row("2", "Bravo", 2, metrics(400, 2, "90.00", "120.00")),
  row("direct", "Direct", null, { ...metrics(20, 1, "30.00", "0.00"), ...noClicks }),
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

/** Presses Download CSV and answers the file's text. */
async function downloadCsv(): Promise<string> {
  let blob: Blob | undefined;
  Object.assign(URL, {
    createObjectURL: vi.fn((b: Blob) => {
      blob = b;
      return "blob:stats";
    }),
    revokeObjectURL: vi.fn(),
  });
  const clicked: string[] = [];
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    clicked.push(this.download);
  });
  try {
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Download CSV" })));
  } finally {
    click.mockRestore();
  }
  expect(clicked).toEqual([expect.stringMatching(/^stats-\d{4}-\d{2}-\d{2}\.csv$/)]);
  return blob!.text();
}

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

// Each test renders the whole screen and waits on its queries: seconds on a busy machine.
describe("Stats screen", { timeout: 30_000 }, () => {
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

  it("shows each row's own traffic on every tab: Device has Link Clicks, Exit Clicks, Lander CTR and Bot Share", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    fireEvent.mouseDown(screen.getByRole("tab", { name: "Device" }), { button: 0 });
    await waitFor(() => expect(within(table()).getByRole("columnheader", { name: "Device" })).toBeTruthy());
    await waitFor(() => expect(bodyNames()).toEqual(["1", "2", "direct"]));
    const headers = within(table())
      .getAllByRole("columnheader")
      .map((th) => th.getAttribute("aria-label"));
    expect(headers).toEqual(expect.arrayContaining(["Link Clicks (clicks on our tracking link)", "Bot Share (bot-flagged clicks / all our clicks)"]));
    const bravo = within(table())
      .getAllByRole("row")
      .find((r) => r.getAttribute("data-key") === "2")!;
    expect(within(bravo).getByText("407")).toBeTruthy();
    expect(within(bravo).getByText("49.14%")).toBeTruthy();
    // No click of ours is behind Direct: a dash, not 0.
    const direct = within(table())
      .getAllByRole("row")
      .find((r) => r.getAttribute("data-key") === "direct")!;
    expect(within(direct).getAllByText("—")).toHaveLength(4);
    // The column chooser offers them on every tab, without a "Campaigns tab only".
    fireEvent.click(screen.getByRole("button", { name: "Columns" }));
    expect((await screen.findByRole("checkbox", { name: "Link Clicks (clicks on our tracking link)" })).getAttribute("aria-checked")).toBe("true");
    expect(screen.queryByText("Campaigns tab only")).toBeNull();
  });

  it("says how our clicks reach the offers, which our clicks do not record", async () => {
    renderScreen();
    await screen.findByText("Alpha");
    expect(screen.queryByText(/Our clicks do not record/)).toBeNull();
    fireEvent.mouseDown(screen.getByRole("tab", { name: "Offers" }), { button: 0 });
    expect(await screen.findByText(/Our clicks do not record the offer: .* campaigns CAKE reported under each offer/)).toBeTruthy();
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

  it("exports the table as shown, column for column: its headers, its rows in its order, its figures without $ and %", async () => {
    ROWS.push(row("3", '=HYPERLINK("http://x")', 3, metrics(1, 0, "0.00", "5.00")));
    try {
      renderScreen();
      await screen.findByText("Alpha");
      // The user's table: EPV hidden, sorted by Visits.
      fireEvent.click(screen.getByRole("button", { name: "Columns" }));
      fireEvent.click(await screen.findByRole("checkbox", { name: "EPV (earnings per visit)" }));
      fireEvent.click(within(within(table()).getByRole("columnheader", { name: /Visits/ })).getByRole("button"));
      await waitFor(() => expect(bodyNames()).toEqual(["2", "1", "direct", "3"]));

      const lines = (await downloadCsv())
        .replace(/^\uFEFF/, "")
        .trim()
        .split("\r\n");
      const file = lines.map((l) => Papa.parse<string[]>(l).data[0]!);
      // The header: what each column header says on screen.
      const shown = within(table())
        .getAllByRole("columnheader")
        .map((th) => th.textContent!)
        .filter(Boolean);
      expect(file[0]).toEqual(shown);
      expect(file[0]).toEqual([
        "Campaign",
        "Visits",
        "Conv",
        "Revenue",
        "Cost",
        "Profit",
        "ROI",
        "ROAS",
        "vCR",
        "CPV",
        "Link Clicks",
        "Exit Clicks",
        "Lander CTR",
        "Bot Share",
      ]);
      // Each row: the table's cells, as plain numbers ($, %, x and thousands separators dropped; "—" empty).
      const plain = (cell: string) => (cell === "—" ? "" : cell.replace(/[$,%x]/g, ""));
      const cells = within(table())
        .getAllByRole("row")
        .slice(1, -1)
        .map((tr) =>
          within(tr)
            .getAllByRole("cell")
            .map((td) => td.textContent!)
            .slice(0, shown.length),
        );
      expect(file.slice(1).map((r) => r.slice(1))).toEqual(cells.map((r) => r.slice(1).map(plain)));
      expect(file.slice(1).map((r) => r[0])).toEqual(["Bravo", "Alpha", "Direct", '\'=HYPERLINK("http://x")']);
      expect(lines[1]).toBe("Bravo,400,2,90.00,120.00,-30.00,-25.0,0.75,0.50,0.300,407,200,49.14,1.50");
      expect(lines[3]).toBe("Direct,20,1,30.00,0.00,30.00,0.0,0.00,5.00,0.000,,,,");
    } finally {
      ROWS.pop();
    }
  });

  it("on a phone, shows a card per row with the key figures, the rest on request, sorted and filtered by keyboard-reachable controls", async () => {
    const viewport = (window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } }).happyDOM;
    viewport.setViewport({ width: 390, height: 844 });
    try {
      renderScreen();
      const list = await screen.findByRole("list", { name: "Stats" });
      expect(screen.queryByRole("table", { name: "Stats" })).toBeNull();
      const cards = () => within(screen.getByRole("list", { name: "Stats" })).getAllByRole("listitem");
      expect(cards().map((c) => c.getAttribute("data-key"))).toEqual(["1", "2", "direct"]);

      // The key figures, named: revenue, cost, profit, ROI, then visits and our link clicks.
      const alpha = within(list).getByRole("listitem", { name: "Alpha" });
      const figures = (card: HTMLElement) =>
        within(card)
          .getAllByRole("term")
          .map((dt) => [dt.textContent, dt.nextElementSibling!.textContent]);
      expect(figures(alpha)).toEqual([
        ["Revenue", "$250.00"],
        ["Cost", "$80.00"],
        ["Profit", "$170.00"],
        ["ROI", "212.5%"],
        ["Visits", "100"],
        ["Link Clicks", "107"],
      ]);
      // The other eight on request.
      const more = within(alpha).getByRole("button", { name: "8 more figures" });
      expect(more.getAttribute("aria-expanded")).toBe("false");
      fireEvent.click(more);
      expect(more.getAttribute("aria-expanded")).toBe("true");
      expect(figures(alpha).map(([label]) => label)).toEqual(expect.arrayContaining(["vCR", "EPV", "Bot Share"]));
      expect(figures(alpha)).toHaveLength(14);

      // The totals follow the rows.
      expect(figures(screen.getByRole("region", { name: "Totals" })).slice(0, 3)).toEqual([
        ["Revenue", "$370.00"],
        ["Cost", "$200.00"],
        ["Profit", "$170.00"],
      ]);

      // Sorting without headers: a labelled select and a button that reverses the order.
      expect(screen.getByRole("combobox", { name: "Sort by" }).textContent).toBe("Revenue");
      fireEvent.click(screen.getByRole("button", { name: "Reverse the order (now largest first)" }));
      await waitFor(() => expect(cards().map((c) => c.getAttribute("data-key"))).toEqual(["direct", "2", "1"]));

      // A campaign card's name filters by it, as a table row does.
      fireEvent.click(within(list).getByRole("button", { name: "Filter by campaign Bravo" }));
      expect(await screen.findByText("Campaign: Bravo")).toBeTruthy();
      expect(within(list).queryByRole("button", { name: /Direct/ })).toBeNull();
    } finally {
      viewport.setViewport({ width: 1024, height: 768 });
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
