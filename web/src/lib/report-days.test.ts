import { describe, expect, it } from "vitest";
import { QUICK_RANGES } from "./date-ranges";
import { dayInZone, reportDaysAt } from "./report-days";

describe("days in the report time zone", () => {
  // 20:00 UTC on Nov 23: already Nov 24 in Manila, still Nov 23 in New York.
  const now = Date.parse("2026-11-23T20:00:00Z");

  it("puts an instant on the zone's calendar day, whatever the browser's zone", () => {
    expect(dayInZone(now, "Asia/Manila")).toBe("2026-11-24");
    expect(dayInZone(now, "America/New_York")).toBe("2026-11-23");
    expect(dayInZone(now, "UTC")).toBe("2026-11-23");
  });

  it("gives Manila and New York each their own Today, Yesterday and months for the same words", () => {
    const range = (zone: string, label: string) => QUICK_RANGES.find((q) => q.label === label)!.range(reportDaysAt(zone, true, now).today);
    expect(range("Asia/Manila", "Today")).toEqual({ startDate: "2026-11-24", endDate: "2026-11-24" });
    expect(range("America/New_York", "Today")).toEqual({ startDate: "2026-11-23", endDate: "2026-11-23" });
    expect(range("Asia/Manila", "Yesterday")).toEqual({ startDate: "2026-11-23", endDate: "2026-11-23" });
    expect(range("Asia/Manila", "Last 7 days")).toEqual({ startDate: "2026-11-18", endDate: "2026-11-24" });
    // The first of a month: it is December in Manila hours before it is in New York.
    const first = Date.parse("2026-11-30T17:00:00Z");
    const month = (zone: string) => QUICK_RANGES.find((q) => q.label === "This month")!.range(reportDaysAt(zone, true, first).today);
    expect(month("Asia/Manila")).toEqual({ startDate: "2026-12-01", endDate: "2026-12-01" });
    expect(month("America/New_York")).toEqual({ startDate: "2026-11-01", endDate: "2026-11-30" });
  });
});
