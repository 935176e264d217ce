import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dayStartMs, localDaySql, offsetSpans, zoneDayRange } from "../src/lib/calendar-days";
import { largestRemainder } from "../src/lib/largest-remainder";
import { formatThousandths, metrics } from "../src/stats/report";
import { db } from "./helpers";

describe("largestRemainder, as the report rounds spend to cents", () => {
  it("rounds shares to whole cents that add up to the total, largest remainders first", () => {
    expect(largestRemainder([100 / 3, 100 / 3, 100 / 3], 100)).toEqual([34, 33, 33]);
    expect(largestRemainder([0.4, 0.4, 0.2], 1)).toEqual([1, 0, 0]);
    expect(largestRemainder([12.5, 7.5], 20)).toEqual([13, 7]);
    expect(largestRemainder([], 0)).toEqual([]);
    expect(largestRemainder([5, 5], 10)).toEqual([5, 5]);
  });
});

describe("metrics (docs/screens.md §9)", () => {
  it("computes profit, ROI, ROAS, CR, EPV and CPV, with 0 where spend or visits are 0", () => {
    expect(metrics({ visits: 8, conversions: 2, revenueCents: 1001, spendCents: 400, linkClicks: null, exitClicks: null })).toEqual({
      visits: 8,
      conversions: 2,
      revenue: "10.01",
      spend: "4.00",
      profit: "6.01",
      roi: (601 / 400) * 100,
      roas: 1001 / 400,
      cr: 25,
      epv: "1.251", // 10.01 / 8 = 1.25125
      cpv: "0.500",
      linkClicks: null,
      exitClicks: null,
      landerCtr: null,
      botShare: null,
    });
    expect(metrics({ visits: 0, conversions: 0, revenueCents: 500, spendCents: 0, linkClicks: 0, exitClicks: 0 })).toMatchObject({
      roi: 0,
      roas: 0,
      cr: 0,
      epv: "0.000",
      cpv: "0.000",
      landerCtr: 0,
    });
    // EPV half-way cases round away from zero; a loss stays negative.
    expect(metrics({ visits: 4, conversions: 0, revenueCents: 1, spendCents: 3, linkClicks: 4, exitClicks: 1 })).toMatchObject({
      epv: "0.003", // 0.0025
      cpv: "0.008", // 0.0075
      profit: "-0.02",
      roi: (-2 / 3) * 100,
      landerCtr: 25,
    });
    expect(formatThousandths(-1234)).toBe("-1.234");
  });
});

describe("report-time-zone days", () => {
  it("finds a day's first instant, also when daylight saving skips midnight", () => {
    expect(new Date(dayStartMs("2024-03-10", "America/New_York")).toISOString()).toBe("2024-03-10T05:00:00.000Z");
    expect(new Date(dayStartMs("2024-03-11", "America/New_York")).toISOString()).toBe("2024-03-11T04:00:00.000Z");
    // Santiago springs forward at midnight: 2024-09-08 starts at 01:00 local (04:00Z).
    expect(new Date(dayStartMs("2024-09-08", "America/Santiago")).toISOString()).toBe("2024-09-08T04:00:00.000Z");
    expect(zoneDayRange("2024-01-01", "2024-01-01", "Asia/Kolkata")).toEqual({
      startMs: Date.parse("2023-12-31T18:30:00Z"),
      endMs: Date.parse("2024-01-01T18:30:00Z"),
    });
  });

  it("computes each instant's day in SQL from the zone's offsets", async () => {
    const from = Date.parse("2024-03-01T00:00:00Z");
    const to = Date.parse("2024-11-30T00:00:00Z");
    const spans = offsetSpans(from, to, "America/New_York");
    expect(spans.map((s) => s.offsetMs / 3_600_000)).toEqual([-5, -4, -5]);
    const instants = ["2024-03-10T06:59:59Z", "2024-03-11T03:59:59Z", "2024-11-03T03:59:59Z", "2024-11-03T05:00:00Z", "2024-11-04T04:59:59Z"];
    const days = [];
    for (const at of instants) {
      const [row] = await db().all<{ day: string }>(sql`select ${localDaySql(sql`${Date.parse(at)}`, spans)} as day`);
      days.push(row!.day);
    }
    expect(days).toEqual(["2024-03-10", "2024-03-10", "2024-11-02", "2024-11-03", "2024-11-03"]);
  });
});
