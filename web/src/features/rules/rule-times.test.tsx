import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { browserInZone } from "@/test/browser-zone";
import { admin, renderWithUser } from "@/test/render";
import type { DryRun, Firing } from "./api";
import { DryRunResult } from "./dry-run-result";
import { FiringHistory } from "./firing-history";

// New York's browser, Manila's report time zone: 16:23 UTC on Nov 25 is 00:23 on Nov 26 in Manila.
const REPORT_ZONE = "Asia/Manila";
browserInZone("America/New_York");
const AT = "2026-11-25T16:23:05.000Z";
const MANILA = "Nov 26, 2026 00:23:05";

const figures = { spend: 0, revenue: 0, profit: 0, roi: null, cpa: null, conversions: 0, visits: 0, linkClicks: 3, ctr: 0, cr: null, epv: null, botShare: 0 };

describe("Rule times", () => {
  it("shows the dry run's matches at the report time zone's time, the zone named", () => {
    const result: DryRun = {
      evaluatedAt: [AT],
      ranges: [{ startDate: "2026-11-26", endDate: "2026-11-26" }],
      checkedItems: 1,
      matchedItems: 1,
      items: [{ key: "campaign:1", label: "Night shift", matches: [{ at: AT, figures }], firings: [AT], adGroups: ["1790001"] }],
      missing: [],
      rowsRead: 4,
    };
    renderWithUser(<DryRunResult result={result} error={null} />, admin(), { timeZone: REPORT_ZONE });
    const item = screen.getByRole("region", { name: "Dry run for Night shift" });
    expect(item.textContent).toContain(`Would have fired 1 time: ${MANILA}`);
    expect(within(item).getByText(MANILA)).toBeTruthy();
    expect(screen.getByText(/Times in Asia\/Manila \(the report time zone\)/)).toBeTruthy();
  });

  it("shows a firing at the report time zone's time, the zone named", () => {
    const firing: Firing = {
      id: 1,
      itemKey: "campaign:1",
      itemLabel: "Night shift",
      firedAt: AT,
      status: "done",
      figures,
      action: "alert",
      tiktok: [],
      deliveries: [],
      note: "",
    };
    renderWithUser(<FiringHistory firings={[firing]} />, admin(), { timeZone: REPORT_ZONE });
    expect(screen.getByRole("cell", { name: MANILA })).toBeTruthy();
    expect(screen.getByText(`Times in ${REPORT_ZONE} (the report time zone).`)).toBeTruthy();
  });
});
