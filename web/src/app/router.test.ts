import type { QueryClient } from "@tanstack/react-query";
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

describe("the page's first screen waits for its data", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  /** Transactions' pages answered only once `release` is called; everything else at once. */
  const heldTransactions = () => {
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const path = new URL(String(input), "http://localhost").pathname;
      if (path === "/api/user") return Response.json({ id: "u1", username: "admin", role: "admin", features: [] });
      if (path === "/api/settings/report-time-zone") return Response.json({ timeZone: "UTC", today: "2026-11-25" });
      if (path === "/api/transactions") {
        await held;
        return Response.json({ transactions: [], page: 1, pageSize: 50, totalRows: 0, pageCount: 1, summary: {} });
      }
      return Response.json({ rows: [], total: { transactions: 0, totalSpend: "0.00" } });
    });
    vi.stubGlobal("fetch", fetch);
    return { release: () => release(), fetch };
  };
  /** The app's router, new, on a fresh load of `path`, with the frame's and the screens' code already in. */
  const freshLoad = async (path: string) => {
    window.history.replaceState(null, "", path);
    vi.resetModules();
    await Promise.all([import("./layout/app-layout"), import("@/features/billing/billing-screen"), import("@/features/codes/codes-screen")]);
    const { router } = await import("./router");
    const { appQueryClient } = await import("./query-client");
    return { router, client: appQueryClient };
  };
  /** Whether `p` settles within `ms`. */
  const settlesWithin = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  const listed = (client: QueryClient) => client.getQueriesData({ queryKey: ["transactions", "list"] }).some(([, data]) => data !== undefined);

  it("draws the first screen with its first page, and holds a move inside the app for nothing", async () => {
    const { release } = heldTransactions();
    const { router, client } = await freshLoad("/billing");
    await new Promise((r) => setTimeout(r, 300));
    // Still the full-page spinner: the screen's first page is not in.
    expect(router.state.initialized).toBe(false);
    release();
    await vi.waitFor(() => expect(router.state.initialized).toBe(true));
    expect(listed(client)).toBe(true);

    // Back to Transactions from another screen: there at once, its rows to follow.
    const { fetch } = heldTransactions();
    await router.navigate("/codes");
    expect(await settlesWithin(router.navigate("/billing?page=3"), 300)).toBe(true);
    expect(router.state.location.search).toBe("?page=3");
    await vi.waitFor(() => expect(fetch.mock.calls.some(([input]) => String(input).includes("page=3"))).toBe(true));
    client.clear();
    router.dispose();
  });

  it("draws the first screen without its data once the wait is over", async () => {
    heldTransactions();
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      const { router, client } = await freshLoad("/billing");
      await vi.advanceTimersByTimeAsync(700);
      expect(router.state.initialized).toBe(false);
      await vi.advanceTimersByTimeAsync(200);
      await vi.waitFor(() => expect(router.state.initialized).toBe(true));
      expect(listed(client)).toBe(false);
      client.clear();
      router.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  for (const [first, what] of [
    ["/auth", "the sign-in screen"],
    ["/rules/channels", "a screen without a loader"],
  ] as const) {
    it(`does not hold the screen after ${what}: that was the page's first`, async () => {
      const { fetch } = heldTransactions();
      const { router, client } = await freshLoad(first);
      await vi.waitFor(() => expect(router.state.initialized).toBe(true), { timeout: 10_000 });
      expect(await settlesWithin(router.navigate("/billing"), 300)).toBe(true);
      expect(router.state.location.pathname).toBe("/billing");
      await vi.waitFor(() => expect(fetch.mock.calls.some(([input]) => String(input).includes("/api/transactions"))).toBe(true));
      client.clear();
      router.dispose();
    });
  }
});
