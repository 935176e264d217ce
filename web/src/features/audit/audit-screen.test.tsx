import { screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { browserInZone } from "@/test/browser-zone";
import { admin, renderWithUser } from "@/test/render";
import type { AuditEntry } from "./api";
import AuditScreen from "./audit-screen";

// New York's browser, Manila's report time zone: 16:23 UTC on Nov 25 is 00:23 on Nov 26 in Manila.
const REPORT_ZONE = "Asia/Manila";
browserInZone("America/New_York");

const entry: AuditEntry = {
  id: 1,
  at: "2026-11-25T16:23:05.000Z",
  actorId: "00000000-0000-4000-8000-000000000002",
  actorName: "founder",
  action: "campaign.update",
  entityKind: "campaign",
  entityId: "3",
  summary: "Spring: BH Toggle: off → on",
  ip: "203.0.113.9",
};

describe("Audit log times", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows an entry at the report time zone's time, with the zone named on the table and the phone list", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) =>
        new URL(String(input), "http://localhost").pathname === "/api/audit"
          ? Response.json({ entries: [entry], page: 1, pageSize: 50, total: 1, totalPages: 1 })
          : Response.json([]),
      ),
    );
    renderWithUser(
      <MemoryRouter initialEntries={["/audit?startDate=2026-11-20&endDate=2026-11-26"]}>
        <AuditScreen />
      </MemoryRouter>,
      admin(),
      { timeZone: REPORT_ZONE },
    );
    const list = await screen.findByRole("list", { name: "Audit entries" });
    expect(within(list).getByText("Nov 26, 2026 00:23:05")).toBeTruthy();
    expect(screen.getByText(`Times in ${REPORT_ZONE} (the report time zone)`)).toBeTruthy();
    const table = screen.getByRole("table");
    expect(within(table).getByRole("columnheader", { name: `When (${REPORT_ZONE})` })).toBeTruthy();
    expect(within(table).getByText("Nov 26, 2026 00:23:05")).toBeTruthy();
  });
});
