import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { formatEpvInterval, formatProbability, formatRateInterval, SplitTestDialog } from "./components/split-test-dialog";

const variant = (id: number, name: string, figures: { visits: number; exits: number; conversions: number; revenueCents: number; probabilityBest: number }) => ({
  id,
  name,
  paused: false,
  ...figures,
  ctr: figures.visits ? figures.exits / figures.visits : 0,
  cr: { value: figures.visits ? figures.conversions / figures.visits : 0, low: 0.016, high: 0.027 },
  epvCents: { value: figures.visits ? figures.revenueCents / figures.visits : 0, low: 30, high: 55 },
});

const METHOD = "Conversion rate: Wilson 95% intervals; probability best from Beta posteriors; winner needs 95% and a sequential test (mSPRT).";

/** What GET /api/campaigns/5/paths/11/split-test answers: Quiz B has won on landers, the single offer has nothing to beat. */
const decided = () => ({
  pathId: 11,
  name: "Germany",
  from: "2026-11-19T02:00:00.000Z",
  to: "2026-11-26T02:00:00.000Z",
  days: 7,
  metric: "cr",
  landers: {
    method: METHOD,
    verdict: "Quiz B beats Quiz A with 97% probability on conversion rate.",
    winner: 2 as number | null,
    moreVisitsEach: null,
    variants: [
      variant(1, "Quiz A", { visits: 1000, exits: 400, conversions: 21, revenueCents: 42_000, probabilityBest: 0.025 }),
      variant(2, "Quiz B", { visits: 1200, exits: 700, conversions: 40, revenueCents: 80_000, probabilityBest: 0.975 }),
    ],
  },
  offers: {
    method: METHOD,
    verdict: "Not decided: about 1,200 more visits each (conversion rate).",
    winner: null,
    moreVisitsEach: 1200,
    variants: [variant(7, "Sweeps offer", { visits: 2200, exits: 0, conversions: 61, revenueCents: 122_000, probabilityBest: 1 })],
  },
});

function stubApi(answer: () => Response) {
  const urls: URL[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(new URL(String(input), "http://localhost"), init);
      urls.push(new URL(request.url));
      return answer();
    }),
  );
  return urls;
}

const renderDialog = () =>
  renderWithUser(
    <>
      <SplitTestDialog campaignId={5} pathId={11} pathName="Germany" onClose={() => {}} />
      <Toaster />
    </>,
    admin(),
  );

describe("Split test formatting", () => {
  it("shows a rate with its 95% interval one decimal coarser, revenue per visit in dollars, and probability rounded down", () => {
    expect(formatRateInterval({ value: 0.021, low: 0.016, high: 0.027 })).toBe("2.10% (1.6–2.7%)");
    expect(formatEpvInterval({ value: 42, low: 30, high: 55 })).toBe("$0.42 ($0.30–$0.55)");
    expect(formatProbability(0.9749)).toBe("97%");
    expect(formatProbability(0.004)).toBe("<1%");
    expect(formatProbability(0)).toBe("0%");
    expect(formatProbability(1)).toBe("100%");
  });
});

describe("Split test dialog", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("says the verdict for landers and offers, highlights the winner, and lists each variant's figures", async () => {
    const urls = stubApi(() => Response.json(decided()));
    renderDialog();
    const landers = await screen.findByRole("region", { name: "Landers" });
    expect(urls[0]!.pathname).toBe("/api/campaigns/5/paths/11/split-test");
    // Until a period or metric is chosen the server picks the path's own.
    expect(urls[0]!.search).toBe("");
    expect(within(landers).getByText("Quiz B beats Quiz A with 97% probability on conversion rate.")).toBeTruthy();
    expect(within(landers).getByText(METHOD)).toBeTruthy();
    const table = within(landers).getByRole("table", { name: "Landers split test" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.getAttribute("data-winner"))).toEqual([null, "true"]);
    expect(within(rows[1]!).getByText("Winner")).toBeTruthy();
    expect(within(rows[0]!).queryByText("Winner")).toBeNull();
    expect(
      within(rows[0]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["Quiz A", "1,000", "400", "40.00%", "21", "2.10% (1.6–2.7%)", "$420.00", "$0.42 ($0.30–$0.55)", "2%"]);
    expect(within(rows[1]!).getAllByRole("cell").at(-1)!.textContent).toBe("97%");

    const offers = screen.getByRole("region", { name: "Offers" });
    expect(within(offers).getByText("Not decided: about 1,200 more visits each (conversion rate).")).toBeTruthy();
    expect(within(offers).queryByText("Winner")).toBeNull();
  });

  it("says there were no visits in the period instead of empty tables", async () => {
    stubApi(() => {
      const empty = decided();
      const none = { visits: 0, exits: 0, conversions: 0, revenueCents: 0, probabilityBest: 0.5 };
      empty.days = 14;
      empty.landers.winner = null;
      empty.landers.variants = [variant(1, "Quiz A", none), variant(2, "Quiz B", none)];
      empty.offers.variants = [variant(7, "Sweeps offer", { ...none, probabilityBest: 1 })];
      return Response.json(empty);
    });
    renderDialog();
    expect(await screen.findByText("No visits on this path in the last 14 days.")).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
    expect(screen.getByRole("list", { name: "Verdicts" }).textContent).toContain("Offers: Not decided");
  });

  it("toasts the server's message when the split test cannot be loaded", async () => {
    stubApi(() => Response.json({ error: "Path not found" }, { status: 404 }));
    renderDialog();
    await waitFor(() => expect(screen.getAllByText("Path not found").length).toBeGreaterThan(0));
    expect(screen.getByText("Could not load the split test. Try again in a moment.")).toBeTruthy();
  });
});
