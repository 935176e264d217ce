import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import { ReportTimeZoneCard, timeZoneOptions, utcOffset } from "./report-time-zone-card";

describe("report time zone card", () => {
  let stored = "UTC";
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    stored = "UTC";
    fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === "POST") {
        const body = JSON.parse(String(init.body)) as { key: string; value: string };
        stored = body.value;
        return Response.json(body);
      }
      return Response.json([
        { key: "redirect_domain", value: "" },
        { key: "report_timezone", value: stored },
      ]);
    });
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("lists every IANA zone with its offset, UTC first", () => {
    const options = timeZoneOptions("UTC", new Date("2026-01-15T12:00:00Z"));
    expect(options[0]).toEqual({ value: "UTC", label: "UTC", hint: "UTC+00:00" });
    expect(options.length).toBeGreaterThan(300);
    expect(options.find((o) => o.value === "America/New_York")?.hint).toBe("UTC-05:00");
    expect(utcOffset("America/New_York", new Date("2026-07-15T12:00:00Z"))).toBe("UTC-04:00");
    expect(timeZoneOptions("Etc/GMT+3", new Date()).some((o) => o.value === "Etc/GMT+3")).toBe(true);
  });

  it("shows the current zone, finds one by typing, says what saving changes, and saves it", async () => {
    renderWithUser(<ReportTimeZoneCard />, admin());
    expect(await screen.findByText("UTC", { selector: "span" })).toBeTruthy();
    const box = screen.getByRole("combobox", { name: "Report Time Zone" });
    expect((screen.getByRole("button", { name: "Save Time Zone" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(box, { target: { value: "new york" } });
    const list = screen.getByRole("listbox");
    expect(
      within(list)
        .getAllByRole("option")
        .map((o) => o.textContent?.replace(/UTC.*/, "")),
    ).toContain("America/New_York");
    fireEvent.keyDown(box, { key: "Enter" });
    expect((box as HTMLInputElement).value).toBe("America/New_York");
    expect(screen.getByRole("note").textContent).toContain("rebuilds the daily click rollup");

    fireEvent.click(screen.getByRole("button", { name: "Save Time Zone" }));
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => init?.method === "POST")).toBe(true));
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST")!;
    expect(JSON.parse(String(post[1]!.body))).toEqual({ key: "report_timezone", value: "America/New_York" });
    await waitFor(() => expect(screen.getByText("America/New_York", { selector: "span.font-medium" })).toBeTruthy());
  });

  it("says so when nothing matches, and Escape puts the chosen zone back", async () => {
    renderWithUser(<ReportTimeZoneCard />, admin());
    const box = await screen.findByRole("combobox", { name: "Report Time Zone" });
    await waitFor(() => expect((box as HTMLInputElement).value).toBe("UTC"));
    fireEvent.change(box, { target: { value: "Atlantis/Lost" } });
    expect(screen.getByText("No time zone matches")).toBeTruthy();
    fireEvent.keyDown(box, { key: "Escape" });
    expect((box as HTMLInputElement).value).toBe("UTC");
  });
});
