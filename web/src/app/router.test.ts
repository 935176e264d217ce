import { afterEach, describe, expect, it, vi } from "vitest";
import { transactionsQuery } from "@/features/billing/api";
import { appQueryClient } from "./query-client";

const paths = (fetch: ReturnType<typeof vi.fn>) => fetch.mock.calls.map(([input]) => new URL(String(input), "http://localhost").pathname);

describe("a screen's route loader on a fresh load", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    appQueryClient.clear();
  });

  it("asks for the user and the report time zone at once, and Transactions' first page with them", async () => {
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const path = new URL(String(input), "http://localhost").pathname;
      // Held: whatever the loader asks for meanwhile did not wait for the user.
      if (path === "/api/user") return new Promise<Response>(() => undefined);
      if (path === "/api/settings/report-time-zone") return Response.json({ timeZone: "UTC", today: "2026-11-25" });
      if (path === "/api/transactions") return Response.json({ transactions: [], page: 2, pageSize: 50, totalRows: 0, pageCount: 1, summary: {} });
      return Response.json({ rows: [], total: { transactions: 0, totalSpend: "0.00" } });
    });
    vi.stubGlobal("fetch", fetch);
    // The router starts on the page it is created at: the sign-in screen, whose route loads nothing.
    window.history.replaceState(null, "", "/auth");
    const { router } = await import("./router");
    // The app's own navigation to /billing would run the same loader; called here directly.
    const billing = router.routes
      .flatMap(function all(r): (typeof router.routes)[number][] {
        return [r, ...(r.children ?? []).flatMap(all)];
      })
      .find((r) => r.path === "/billing")!;
    appQueryClient.clear();
    fetch.mockClear();
    const loader = billing.loader as (args: { request: Request }) => unknown;
    loader({ request: new Request("http://localhost/billing?status=pending&page=2") });
    // Both at once: the report time zone and the screen's data do not wait for the user.
    await vi.waitFor(() => expect(paths(fetch)).toEqual(expect.arrayContaining(["/api/user", "/api/settings/report-time-zone"])), { timeout: 15_000 });
    // The screen's first page, under the key the screen reads it with, before the screen renders.
    await vi.waitFor(
      () =>
        expect(appQueryClient.getQueryData(transactionsQuery({ status: "PENDING", vcnLast4: "all", minAmount: "", maxAmount: "" }, 2).queryKey)).toBeTruthy(),
      { timeout: 15_000 },
    );
    const list = fetch.mock.calls.map(([input]) => String(input)).find((u) => u.includes("/api/transactions?"));
    expect(list).toContain("status=PENDING");
    expect(list).toContain("page=2");
  });
});
