import { QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createQueryClient } from "@/app/query-client";
import { SAVE_DELAY_MS, useTablePreferences } from "./use-table-preferences";

describe("column preferences saving", () => {
  let stored: unknown;
  let inFlight: number;
  let most: number;
  let release: (() => void)[];
  beforeEach(() => {
    stored = { visibleColumns: [], columnWidths: {} };
    inFlight = 0;
    most = 0;
    release = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
        if (init?.method !== "PUT") return Response.json(stored);
        inFlight++;
        most = Math.max(most, inFlight);
        // The server answers only when the test lets it: a slow network.
        await new Promise<void>((resolve) => release.push(resolve));
        stored = JSON.parse(String(init.body));
        inFlight--;
        return Response.json(stored);
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sends one save at a time and stores the newest width last, however slow the answers", async () => {
    const client = createQueryClient();
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    const { result } = renderHook(() => useTablePreferences(), { wrapper });
    await waitFor(() => expect(result.current.loaded).toBe(true));

    act(() => result.current.setWidth("name", 270));
    await waitFor(() => expect(inFlight).toBe(1));
    // While the first save waits, two more changes settle: neither may race it to the server.
    act(() => result.current.setWidth("name", 320));
    await new Promise((r) => setTimeout(r, SAVE_DELAY_MS + 100));
    act(() => result.current.setWidth("name", 420));
    await new Promise((r) => setTimeout(r, SAVE_DELAY_MS + 100));
    expect(inFlight).toBe(1);

    release.shift()!();
    await waitFor(() => expect(release.length).toBe(1));
    release.shift()!();
    await waitFor(() => expect(stored).toEqual({ visibleColumns: [], columnWidths: { name: 420 } }));
    expect(most).toBe(1);
    expect(result.current.prefs.columnWidths.name).toBe(420);
  });
});
