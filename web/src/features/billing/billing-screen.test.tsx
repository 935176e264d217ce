import { act, fireEvent, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CurrentUser } from "@/lib/auth";
import { admin, member, renderWithUser } from "@/test/render";
import type { TransactionPage } from "./api";
import BillingScreen from "./billing-screen";

const none = { count: 0, amount: "0.00" };
const emptyPage: TransactionPage = {
  transactions: [],
  page: 1,
  pageSize: 50,
  totalRows: 0,
  pageCount: 1,
  summary: { total: none, pending: none, cleared: none, declined: none },
};

function answer(input: RequestInfo | URL) {
  const path = new URL(String(input), "http://localhost").pathname;
  if (path === "/api/transactions") return Response.json(emptyPage);
  if (path === "/api/transactions/vcn-summary") return Response.json({ rows: [], total: { transactions: 0, totalSpend: "0.00" } });
  return Response.json({ values: [] });
}

const renderAs = (user: CurrentUser, vcnNicknames: string[] = []) =>
  renderWithUser(
    <MemoryRouter initialEntries={["/billing"]}>
      <BillingScreen />
    </MemoryRouter>,
    user,
    { scope: { vcnNicknames } },
  );

describe("Transactions: who sees what, and who can change it", () => {
  beforeEach(() =>
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => answer(input)),
    ),
  );
  afterEach(() => vi.unstubAllGlobals());

  it("is named as in the sidebar, and an admin with nothing uploaded is told to upload", async () => {
    renderAs(admin());
    expect(screen.getByRole("heading", { level: 1, name: "Transactions" })).toBeTruthy();
    expect(await screen.findByText("No transactions found. Upload a CSV file to get started.")).toBeTruthy();
    expect(screen.getByText("Upload Billing Statement")).toBeTruthy();
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("tells a member whose cards these are, and never to upload (uploads are for admins)", async () => {
    renderAs(member(), ["Ads card", "Travel card"]);
    expect(screen.getByRole("note").textContent).toBe("You see the transactions of the cards an admin assigned to you: Ads card, Travel card.");
    expect(await screen.findByText("No transactions found for the cards assigned to you.")).toBeTruthy();
    expect(screen.queryByText(/Upload/)).toBeNull();
  });

  it("tells a member with no cards that an admin assigns them on Users", async () => {
    renderAs(member());
    expect(screen.getByRole("note").textContent).toBe("No cards are assigned to you yet, so there is nothing to show here; an admin assigns them on Users.");
  });
});

describe("Transactions: typed amounts", () => {
  beforeEach(() =>
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => answer(input)),
    ),
  );
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("keeps Max as typed while Min, typed before it, settles into the URL", async () => {
    renderAs(admin());
    await screen.findByText("No transactions found. Upload a CSV file to get started.");
    vi.useFakeTimers();
    const min = screen.getByLabelText("Min Amount ($)");
    const max = screen.getByLabelText<HTMLInputElement>("Max Amount ($)");
    act(() => {
      fireEvent.change(min, { target: { value: "100" } });
    });
    // Min settles (and goes to the URL) in the same turn as Max is typed.
    act(() => {
      vi.advanceTimersByTime(300);
      fireEvent.change(max, { target: { value: "5" } });
    });
    expect(max.value).toBe("5");
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(max.value).toBe("5");
    expect(screen.getByText("Max must be at least Min")).toBeTruthy();
  });
});
