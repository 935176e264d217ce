import { describe, expect, it } from "vitest";
import { QUICK_RANGES } from "./date-ranges";

const today = new Date(2026, 10, 22); // Nov 22, 2026 (local)
const ranges = Object.fromEntries(QUICK_RANGES.map((q) => [q.label, q.range(today)]));

describe("quick ranges", () => {
  it("lists the product's ranges in order", () => {
    expect(QUICK_RANGES.map((q) => q.label)).toEqual([
      "Today",
      "Yesterday",
      "Last 3 days",
      "Last 7 days",
      "Last 14 days",
      "Last 30 days",
      "This month",
      "Last month",
      "Last 90 days",
      "Last 6 months",
    ]);
  });

  it("computes inclusive calendar days", () => {
    expect(ranges["Today"]).toEqual({ startDate: "2026-11-22", endDate: "2026-11-22" });
    expect(ranges["Yesterday"]).toEqual({ startDate: "2026-11-21", endDate: "2026-11-21" });
    expect(ranges["Last 7 days"]).toEqual({ startDate: "2026-11-16", endDate: "2026-11-22" });
    expect(ranges["This month"]).toEqual({ startDate: "2026-11-01", endDate: "2026-11-22" });
    expect(ranges["Last month"]).toEqual({ startDate: "2026-10-01", endDate: "2026-10-31" });
  });
});
