import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { DataSources } from "./data-sources";

const source = (s: "cake" | "tiktok", extra: Record<string, unknown>) => ({
  source: s,
  label: s === "cake" ? "CAKE" : "TikTok",
  configured: true,
  problems: [],
  fix: [],
  lastRun: null,
  lastSuccessAt: null,
  ...extra,
});

const STATUS = {
  reportTimezone: "UTC",
  schedule: { everyMinutes: 15, recent: 3, daily: 14 },
  sources: [
    source("cake", { lastSuccessAt: new Date(Date.now() - 5 * 60_000).toISOString() }),
    source("tiktok", {
      configured: false,
      problems: ["TIKTOK_ACCESS_TOKEN is not set", "TIKTOK_ADVERTISER_IDS must be numbers separated by commas (not: abc)"],
      fix: [
        { name: "TIKTOK_ACCESS_TOKEN", secret: true, what: "a Business API access token", problem: "TIKTOK_ACCESS_TOKEN is not set" },
        {
          name: "TIKTOK_ADVERTISER_IDS",
          secret: true,
          what: "the advertiser ids to pull",
          problem: "TIKTOK_ADVERTISER_IDS must be numbers separated by commas (not: abc)",
        },
      ],
    }),
  ],
  postback: {
    configured: false,
    problems: ["POSTBACK_TOKEN is not set"],
    lastReceivedAt: null,
    url: "http://localhost/postback/cake?token=YOUR_POSTBACK_TOKEN",
  },
};

/** The Events API panel below the strip (its own test: tiktok-events.test.tsx). */
const EVENTS = {
  configured: true,
  problems: [],
  fix: [],
  tokenSet: true,
  settings: { pixelCode: "CPIXEL1", testEventCode: "", pendingEvent: "", currency: "USD" },
  testEvents: null,
  day: "2026-11-22",
  today: { sent: 0, failed: 0, waiting: 0, skipped: { no_ttclid: 0, not_tiktok: 0, outside_window: 0, not_configured: 0 } },
  failedTotal: 0,
  failed: { temporary: 0, setup: 0, refused: 0 },
  failures: [],
};

describe("data sources strip", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn(async (url: string) => Response.json(String(url).includes("/api/tiktok-events") ? EVENTS : STATUS));
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows each source's last sync, or why it is not configured", async () => {
    renderWithUser(<DataSources />, admin());
    expect(await screen.findByText("last synced")).toBeTruthy();
    expect(screen.getByText("5 minutes ago")).toBeTruthy();
    expect(screen.getByText("not configured")).toBeTruthy();
    // Each missing setting, what it is, and where it goes: the wrangler command and .dev.vars.
    const steps = screen.getByRole("list", { name: "TikTok settings to set" });
    expect(steps.textContent).toContain("TIKTOK_ACCESS_TOKEN (secret) is not set: a Business API access token.");
    expect(steps.textContent).toContain("TIKTOK_ADVERTISER_IDS (secret) must be numbers separated by commas (not: abc): the advertiser ids to pull.");
    expect(screen.getByText("npx wrangler secret put NAME")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Commands for these settings" }));
    expect(
      screen.getByText(
        (_, el) => el?.tagName === "PRE" && el.textContent === "npx wrangler secret put TIKTOK_ACCESS_TOKEN\nnpx wrangler secret put TIKTOK_ADVERTISER_IDS",
      ),
    ).toBeTruthy();
    expect(screen.getByText((_, el) => el?.tagName === "PRE" && el.textContent === "TIKTOK_ACCESS_TOKEN=…\nTIKTOK_ADVERTISER_IDS=…")).toBeTruthy();
    // The README section opens in the app.
    fireEvent.click(screen.getByRole("button", { name: "README: Performance data sources" }));
    const readme = await screen.findByRole("dialog", { name: "README: Performance data sources" });
    expect(await within(readme).findByText(/Set secrets with/)).toBeTruthy();
    expect(within(readme).getByRole("table")).toBeTruthy();
  });

  it("Sync now runs both sources and says how each went; a failure says why", async () => {
    renderWithUser(
      <>
        <DataSources />
        <Toaster />
      </>,
      admin(),
    );
    await screen.findByText("last synced");
    await screen.findByText("CPIXEL1");
    fetchMock.mockResolvedValueOnce(
      Response.json({
        outcomes: [
          {
            id: 1,
            source: "cake",
            trigger: "manual",
            status: "ok",
            startedAt: "",
            finishedAt: "",
            windowStart: "2026-11-20",
            windowEnd: "2026-11-22",
            rowsFetched: 120,
            rowsUpserted: 80,
            error: null,
          },
          {
            id: 2,
            source: "tiktok",
            trigger: "manual",
            status: "not_configured",
            startedAt: "",
            finishedAt: "",
            windowStart: null,
            windowEnd: null,
            rowsFetched: 0,
            rowsUpserted: 0,
            error: "TIKTOK_ACCESS_TOKEN is not set",
          },
        ],
      }),
    );
    fireEvent.click(screen.getByRole("button", { name: "Sync now" }));
    const title = await screen.findByText("Sync finished");
    // Within the toast: for a second Radix also reads it out in a hidden live region, which the
    // pattern would match as well.
    const toast = title.closest("li");
    expect(toast).not.toBeNull();
    expect(within(toast!).getByText(/CAKE: 120 rows fetched\s+TikTok: not configured/)).toBeTruthy();
    const [url, init] = fetchMock.mock.calls.find(([, i]) => (i as RequestInit | undefined)?.method === "POST") as [string, RequestInit];
    expect(url).toContain("/api/sync/run");
    expect(JSON.parse(String(init.body))).toEqual({ source: "all" });

    fetchMock.mockResolvedValueOnce(Response.json({ error: "The CAKE sync failed: Invalid API Key", details: [] }, { status: 502 }));
    fireEvent.click(screen.getByRole("button", { name: "Sync now" }));
    expect(await screen.findByText("Sync failed")).toBeTruthy();
    await waitFor(() => expect(screen.getByText("The CAKE sync failed: Invalid API Key")).toBeTruthy());
  });

  it("says a sync going on in steps (a long CAKE click report) has started, and shows it going on", async () => {
    const startedAt = new Date(Date.now() - 2 * 60_000).toISOString();
    const going = {
      id: 3,
      source: "cake",
      trigger: "manual",
      status: "running",
      startedAt,
      finishedAt: null,
      windowStart: "2026-11-20",
      windowEnd: "2026-11-22",
      rowsFetched: 0,
      rowsUpserted: 0,
      error: null,
    };
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      if (init?.method === "POST") return Response.json({ outcomes: [going] });
      if (String(url).includes("/api/tiktok-events")) return Response.json(EVENTS);
      return Response.json({ ...STATUS, sources: [source("cake", { lastRun: going, lastSuccessAt: STATUS.sources[0]!.lastSuccessAt }), STATUS.sources[1]] });
    });
    renderWithUser(
      <>
        <DataSources />
        <Toaster />
      </>,
      admin(),
    );
    expect(await screen.findByText("Sync going on since")).toBeTruthy();
    expect(screen.getByText("2 minutes ago")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Sync now" }));
    const title = await screen.findByText("Sync started");
    expect(within(title.closest("li")!).getByText("CAKE: a long click report, going on in steps")).toBeTruthy();
  });
});
