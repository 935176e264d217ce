import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter, useLocation } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import InvoicingScreen from "./invoicing-screen";

const invoice = (id: number, mediaBuyer: string, amountPaid: string, profit: string) => ({
  id,
  mediaBuyer,
  invoiceDate: `2026-11-${String(10 + id).padStart(2, "0")}`,
  amountPaid,
  revenueSharePercent: "20.00",
  profit,
  notes: null,
  createdAt: "2026-11-20T10:00:00.000Z",
});

const INVOICES = [invoice(1, "anna", "1000.10", "250.05"), invoice(2, "ben", "20.00", "-5.00"), invoice(3, "anna", "0.20", "0.10")];

function Where() {
  const { search } = useLocation();
  return <output data-testid="search">{search}</output>;
}

const render = (path: string) =>
  renderWithUser(
    <MemoryRouter initialEntries={[path]}>
      <InvoicingScreen />
      <Where />
    </MemoryRouter>,
    admin(),
  );

describe("Invoicing: state in the URL", () => {
  beforeEach(() => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => Response.json(String(input).includes("/api/invoices") ? INVOICES : { mediaBuyers: [], vcnNicknames: [] })),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows one media buyer's history with its totals from ?buyer=, the filter showing that buyer", async () => {
    render("/invoicing?buyer=anna");
    const history = await screen.findByRole("table", { name: "Invoice history" });
    await waitFor(() => expect(within(history).getAllByText("anna")).toHaveLength(2));
    expect(within(history).queryByText("ben")).toBeNull();
    expect(screen.getByText("2 invoices · paid $1,000.30 · profit $250.15")).toBeTruthy();
    const select = screen.getByRole("combobox", { name: "Media buyer" });
    expect(select.textContent).toContain("anna");
  });

  it("reopens the invoice named by ?edit= in the form, and Cancel takes it out of the URL", async () => {
    render("/invoicing?edit=2");
    expect(await screen.findByRole("button", { name: "Update Invoice" })).toBeTruthy();
    expect((screen.getByLabelText("Media Buyer") as HTMLInputElement).value).toBe("ben");
    expect((screen.getByLabelText("Amount Paid ($)") as HTMLInputElement).value).toBe("20.00");
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.getByTestId("search").textContent).toBe(""));
    expect(screen.getByRole("button", { name: "Create Invoice" })).toBeTruthy();
    expect((screen.getByLabelText("Media Buyer") as HTMLInputElement).value).toBe("");
  });

  it("falls back to a new invoice and the whole history for a stale or bad link, with no error (an empty buyer is ignored)", async () => {
    render("/invoicing?edit=999&buyer=");
    await screen.findByText("3 invoices · paid $1,020.30 · profit $245.15");
    await waitFor(() => expect(screen.getByTestId("search").textContent).toBe("?buyer="));
    expect(screen.getByRole("button", { name: "Create Invoice" })).toBeTruthy();
  });
});
