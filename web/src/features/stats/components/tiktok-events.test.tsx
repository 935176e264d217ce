import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { formatInstantNamed } from "@/lib/report-time";
import { admin, renderWithUser } from "@/test/render";
import { TestEventsBanner, TikTokEvents } from "./tiktok-events";

const SET_AT = "2026-11-20T09:30:00.000Z";

const STATUS = {
  configured: true,
  problems: [],
  fix: [],
  tokenSet: true,
  settings: { pixelCode: "CPIXEL0123", testEventCode: "TEST9", pendingEvent: "", currency: "USD" },
  testEvents: { code: "TEST9", setBy: "alice", setAt: SET_AT },
  day: "2026-11-22",
  today: { sent: 1234, failed: 2, waiting: 5, skipped: { no_ttclid: 7, not_tiktok: 3, outside_window: 0, not_configured: 0 } },
  failedTotal: 6,
  failed: { temporary: 1, setup: 3, refused: 2 },
  failures: [
    {
      conversionId: "lead-88",
      event: "CompletePayment",
      kind: "setup",
      code: 40105,
      message: "The Events API access token is not valid: check TIKTOK_EVENTS_ACCESS_TOKEN",
      at: new Date(Date.now() - 120_000).toISOString(),
    },
    {
      conversionId: "lead-90",
      event: "CompletePayment",
      kind: "refused",
      code: 40002,
      message: "TikTok refused the events (code 40002) (TikTok: data[0].event_time: in the future)",
      at: new Date(Date.now() - 300_000).toISOString(),
    },
  ],
};

describe("conversions sent to TikTok (data sources panel)", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === "POST") return Response.json({ requeued: 4, enqueued: true });
      if (init?.method === "PUT") return Response.json(JSON.parse(String(init.body)));
      return Response.json(String(url).includes("/api/tiktok-events") ? STATUS : {});
    });
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  const render = () =>
    renderWithUser(
      <>
        <TikTokEvents />
        <Toaster />
      </>,
      admin(),
    );

  /** The panel, loaded, with its Settings dialog open. */
  const openSettings = async () => {
    render();
    await screen.findByText("CPIXEL0123");
    fireEvent.click(screen.getByRole("button", { name: "Settings" }));
    return screen.findByRole("dialog");
  };

  it("shows the pixel, today's counts by state with the skip reasons, and the latest failures with their kind and TikTok's message", async () => {
    render();
    expect(await screen.findByText("CPIXEL0123")).toBeTruthy();
    const counts = screen.getByText("Sent").closest("dl")!;
    expect(within(counts).getByText("1,234")).toBeTruthy();
    expect(within(counts).getByText("10")).toBeTruthy(); // skipped
    expect(screen.getByText("Skipped: 7 no ttclid, 3 not TikTok")).toBeTruthy();
    const failures = screen.getByRole("list", { name: "Latest failures" });
    expect(within(failures).getByText("lead-88")).toBeTruthy();
    expect(within(failures).getByText(/access token is not valid/)).toBeTruthy();
    expect(within(failures).getByText("token or access")).toBeTruthy();
    expect(within(failures).getByText("refused as malformed")).toBeTruthy();
  });

  it("warns while a test event code is set: Test Events only, which code, who set it and when", async () => {
    render();
    const panel = await screen.findByRole("region", { name: "Conversions sent to TikTok" });
    await within(panel).findByText(", Test Events only");
    expect(panel.textContent).toContain(`Test event code TEST9, set by alice on ${formatInstantNamed(SET_AT, "UTC")}: nothing sent counts in your campaigns`);
  });

  it("resends only what can succeed, and says on the panel how many go again and how many TikTok refused stay failed", async () => {
    render();
    const button = await screen.findByRole("button", { name: "Resend failed (4)" });
    const sentence =
      "Resend failed sends 4 conversions again (1 after TikTok's trouble or the network, 3 after a token or access problem). 2 conversions TikTok refused as malformed stay failed: resending would fail again.";
    expect(screen.getByText(sentence)).toBeTruthy();
    expect(button.getAttribute("title")).toBe(sentence);
    fireEvent.click(button);
    expect(await screen.findByText("Resending")).toBeTruthy();
    expect(screen.getByText("4 failed conversions are on their way to TikTok again.")).toBeTruthy();
    const post = fetchMock.mock.calls.find(([, i]) => (i as RequestInit | undefined)?.method === "POST")!;
    expect(String(post[0])).toContain("/api/tiktok-events/resend");
  });

  it("saves the pixel code, test code, pending mapping and currency together", async () => {
    const dialog = await openSettings();
    fireEvent.change(within(dialog).getByLabelText("Pixel code"), { target: { value: "CNEWPIXEL" } });
    fireEvent.change(within(dialog).getByLabelText("Test event code"), { target: { value: "" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(fetchMock.mock.calls.some(([, i]) => (i as RequestInit | undefined)?.method === "PUT")).toBe(true));
    const put = fetchMock.mock.calls.find(([, i]) => (i as RequestInit | undefined)?.method === "PUT")!;
    expect(String(put[0])).toContain("/api/tiktok-events/settings");
    expect(JSON.parse(String((put[1] as RequestInit).body))).toEqual({ pixelCode: "CNEWPIXEL", testEventCode: "", pendingEvent: "", currency: "USD" });
    expect(await screen.findByText("Settings updated")).toBeTruthy();
  });

  it("refuses a bad currency or pixel code under its field with the API's sentence and sends nothing", async () => {
    const dialog = await openSettings();
    fireEvent.change(within(dialog).getByLabelText("Pixel code"), { target: { value: "C PIXEL" } });
    fireEvent.change(within(dialog).getByLabelText("Currency"), { target: { value: "US" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("The currency must be a three-letter code such as USD")).toBeTruthy();
    expect(within(dialog).getByText("The pixel code may hold only letters, digits, - and _")).toBeTruthy();
    expect(within(dialog).getByLabelText("Currency").getAttribute("aria-invalid")).toBe("true");
    expect(fetchMock.mock.calls.some(([, i]) => (i as RequestInit | undefined)?.method === "PUT")).toBe(false);
  });

  it("says what is missing when sending is not configured, and where each piece goes, and offers no resend", async () => {
    fetchMock.mockImplementation(async () =>
      Response.json({
        ...STATUS,
        configured: false,
        problems: ["no pixel code is set", "TIKTOK_EVENTS_ACCESS_TOKEN is not set"],
        fix: [
          {
            name: "TIKTOK_EVENTS_ACCESS_TOKEN",
            secret: true,
            what: "the Events API access token generated for the pixel",
            problem: "TIKTOK_EVENTS_ACCESS_TOKEN is not set",
          },
        ],
        testEvents: null,
        failedTotal: 0,
        failed: { temporary: 0, setup: 0, refused: 0 },
        failures: [],
      }),
    );
    render();
    expect(await screen.findByText("not configured")).toBeTruthy();
    expect(screen.getByText("No pixel code is set: put your pixel's code in Settings on this card.")).toBeTruthy();
    const steps = screen.getByRole("list", { name: "Conversions to TikTok settings to set" });
    expect(steps.textContent).toBe("TIKTOK_EVENTS_ACCESS_TOKEN (secret) is not set: the Events API access token generated for the pixel.");
    expect(screen.getByText(".dev.vars")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Commands for these settings" }));
    expect(screen.getByText((_, el) => el?.tagName === "PRE" && el.textContent === "npx wrangler secret put TIKTOK_EVENTS_ACCESS_TOKEN")).toBeTruthy();
    expect(screen.getByText((_, el) => el?.tagName === "PRE" && el.textContent === "TIKTOK_EVENTS_ACCESS_TOKEN=…")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Resend failed" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("the Test Events banner (Stats screen)", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn(async (_url: string, init?: RequestInit) =>
      init?.method === "PUT" ? Response.json(JSON.parse(String(init.body))) : Response.json(STATUS),
    );
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("says conversions go to Test Events, who set the code and when, and clears it in one click keeping the other settings", async () => {
    renderWithUser(
      <>
        <TestEventsBanner />
        <Toaster />
      </>,
      admin(),
    );
    const banner = await screen.findByRole("region", { name: "Conversions are going to Test Events" });
    expect(banner.textContent).toContain("Conversions are going to TikTok's Test Events, not to your campaigns");
    expect(banner.textContent).toContain(`The test event code TEST9 (set by alice on ${formatInstantNamed(SET_AT, "UTC")}) sends every conversion`);
    fireEvent.click(within(banner).getByRole("button", { name: "Clear the test code" }));
    expect(await screen.findByText("Test event code cleared")).toBeTruthy();
    const put = fetchMock.mock.calls.find(([, i]) => (i as RequestInit | undefined)?.method === "PUT")!;
    expect(JSON.parse(String((put[1] as RequestInit).body))).toEqual({ pixelCode: "CPIXEL0123", testEventCode: "", pendingEvent: "", currency: "USD" });
  });

  it("is not shown without a test event code", async () => {
    fetchMock.mockImplementation(async () => Response.json({ ...STATUS, settings: { ...STATUS.settings, testEventCode: "" }, testEvents: null }));
    renderWithUser(
      <>
        <TestEventsBanner />
        <TikTokEvents />
      </>,
      admin(),
    );
    // The panel beside it has the same answer loaded.
    await screen.findByText("CPIXEL0123");
    expect(screen.queryByRole("region", { name: "Conversions are going to Test Events" })).toBeNull();
    expect(screen.queryByText(", Test Events only")).toBeNull();
  });
});
