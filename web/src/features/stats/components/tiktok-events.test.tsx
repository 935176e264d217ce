import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { TikTokEvents } from "./tiktok-events";

const STATUS = {
  configured: true,
  problems: [],
  tokenSet: true,
  settings: { pixelCode: "CPIXEL0123", testEventCode: "TEST9", pendingEvent: "", currency: "USD" },
  day: "2026-11-22",
  today: { sent: 1234, failed: 2, waiting: 5, skipped: { no_ttclid: 7, not_tiktok: 3, outside_window: 0, not_configured: 0 } },
  failedTotal: 4,
  failures: [
    {
      conversionId: "lead-88",
      event: "CompletePayment",
      code: 40105,
      message: "The Events API access token is not valid: check TIKTOK_EVENTS_ACCESS_TOKEN",
      at: new Date(Date.now() - 120_000).toISOString(),
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

  it("shows the pixel, today's counts by state with the skip reasons, and the latest failures with TikTok's message", async () => {
    render();
    expect(await screen.findByText("CPIXEL0123")).toBeTruthy();
    expect(screen.getByText("(test code TEST9)", { exact: false })).toBeTruthy();
    const counts = screen.getByText("Sent").closest("dl")!;
    expect(within(counts).getByText("1,234")).toBeTruthy();
    expect(within(counts).getByText("10")).toBeTruthy(); // skipped
    expect(screen.getByText("Skipped: 7 no ttclid, 3 not TikTok")).toBeTruthy();
    const failures = screen.getByRole("list", { name: "Latest failures" });
    expect(within(failures).getByText("lead-88")).toBeTruthy();
    expect(within(failures).getByText(/access token is not valid/)).toBeTruthy();
  });

  it("resends the failed conversions and says how many", async () => {
    render();
    fireEvent.click(await screen.findByRole("button", { name: "Resend failed (4)" }));
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

  it("says what is missing when sending is not configured, and offers no resend", async () => {
    fetchMock.mockImplementation(async () =>
      Response.json({
        ...STATUS,
        configured: false,
        problems: ["no pixel code is set", "TIKTOK_EVENTS_ACCESS_TOKEN is not set"],
        failedTotal: 0,
        failures: [],
      }),
    );
    render();
    expect(await screen.findByText("not configured")).toBeTruthy();
    expect(screen.getByText("no pixel code is set; TIKTOK_EVENTS_ACCESS_TOKEN is not set")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Resend failed" }) as HTMLButtonElement).disabled).toBe(true);
  });
});
