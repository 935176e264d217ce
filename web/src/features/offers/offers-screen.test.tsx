import { fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { member, renderWithUser } from "@/test/render";
import OffersScreen from "./offers-screen";

const renderScreen = () =>
  renderWithUser(
    <MemoryRouter>
      <OffersScreen />
    </MemoryRouter>,
    member(["offers"]),
  );
const calls = (fetchMock: ReturnType<typeof vi.fn>) => fetchMock.mock.calls.map(([input]) => new URL(String(input), "http://localhost"));
const days = (u: URL) => (Date.parse(u.searchParams.get("endDate")!) - Date.parse(u.searchParams.get("startDate")!)) / 86_400_000 + 1;

describe("Offers screen", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn(async () =>
      Response.json([
        { offerId: 12, offerName: "Sweeps US", clicks: 1200, conversions: 30, revenue: "1234.50", epc: "1.029" },
        { offerId: 7, offerName: "Survey CA", clicks: 300, conversions: 3, revenue: "10.05", epc: "0.034" },
      ]),
    );
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("asks for the last 30 days first, adds up the cards in cents, shows EPC to 3 decimals; 7 and 90 days on request", async () => {
    renderScreen();
    expect(await screen.findByText("Sweeps US")).toBeTruthy();
    expect(days(calls(fetchMock)[0]!)).toBe(30);
    expect(screen.getByText("$1,244.55")).toBeTruthy();
    expect(screen.getByText("1,500")).toBeTruthy();
    expect(screen.getByText("33")).toBeTruthy();
    expect(screen.getByText("$1.029")).toBeTruthy();
    expect(screen.getByText("$0.034")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Last 30 Days" }).getAttribute("aria-pressed")).toBe("true");

    fireEvent.click(screen.getByRole("button", { name: "Last 7 Days" }));
    await waitFor(() => expect(days(calls(fetchMock).at(-1)!)).toBe(7));
    fireEvent.click(screen.getByRole("button", { name: "Last 90 Days" }));
    await waitFor(() => expect(days(calls(fetchMock).at(-1)!)).toBe(90));
  });

  it("says the clicks are CAKE's, not our link clicks, on the card, in the table and in words a phone shows", async () => {
    renderScreen();
    expect(await screen.findByText("Sweeps US")).toBeTruthy();
    expect(screen.queryByText("Total Clicks")).toBeNull();
    expect(screen.getByText("CAKE Clicks", { selector: "p" }).nextElementSibling!.textContent).toBe("1,500");
    expect(screen.getByText("Visits to your offers, as CAKE counts them")).toBeTruthy();
    expect(screen.getByRole("columnheader", { name: "CAKE Clicks" })).toBeTruthy();
    expect(screen.getByRole("columnheader", { name: "EPC" }).getAttribute("title")).toBe("Earnings per CAKE click");
    expect(screen.getByText(/a CAKE click is a visit that reached the offer, and EPC is revenue per CAKE click/)).toBeTruthy();
  });

  it("shows the empty state and the failure message", async () => {
    fetchMock.mockResolvedValueOnce(Response.json([]));
    renderScreen();
    expect(await screen.findByText("No offer data available for the selected date range")).toBeTruthy();
    fetchMock.mockResolvedValueOnce(Response.json({ error: "The date range can cover at most 366 days" }, { status: 400 }));
    fireEvent.click(screen.getByRole("button", { name: "Last 7 Days" }));
    expect(await screen.findByText("Failed to fetch offers")).toBeTruthy();
    expect(screen.getByText("The date range can cover at most 366 days")).toBeTruthy();
  });
});
