import { describe, expect, it } from "vitest";
import { dayIn, shiftDay } from "../src/lib/calendar-days";
import { dayStartMs, zoneDayRange } from "../src/lib/calendar-days";
import { canonicalTimeZone } from "../src/schemas/settings";

const utc = (s: string) => Date.parse(s);

/** The Click Log's days: calendar days in the report time zone, endDate included. */
describe("calendar days as instants", () => {
  it("adds days across months, years and leap days", () => {
    expect(shiftDay("2024-02-28", 1)).toBe("2024-02-29");
    expect(shiftDay("2024-12-31", 1)).toBe("2025-01-01");
    expect(shiftDay("2025-01-07", -6)).toBe("2025-01-01");
  });

  it("treats endDate as inclusive: the range ends where the day after begins", () => {
    expect(zoneDayRange("2025-01-01", "2025-01-07", "UTC")).toEqual({ startMs: utc("2025-01-01T00:00:00Z"), endMs: utc("2025-01-08T00:00:00Z") });
    expect(zoneDayRange("2025-01-07", "2025-01-07", "UTC")).toEqual({ startMs: utc("2025-01-07T00:00:00Z"), endMs: utc("2025-01-08T00:00:00Z") });
  });

  it("starts days at local midnight in other zones", () => {
    expect(dayStartMs("2025-01-15", "America/New_York")).toBe(utc("2025-01-15T05:00:00Z"));
    expect(dayStartMs("2025-07-15", "America/New_York")).toBe(utc("2025-07-15T04:00:00Z"));
    expect(dayStartMs("2025-01-15", "Asia/Kolkata")).toBe(utc("2025-01-14T18:30:00Z"));
    expect(dayStartMs("2025-01-15", "Pacific/Kiritimati")).toBe(utc("2025-01-14T10:00:00Z"));
  });

  it("gets daylight-saving days right: 23 and 25 hours long", () => {
    const spring = zoneDayRange("2024-03-10", "2024-03-10", "America/New_York");
    expect(spring.startMs).toBe(utc("2024-03-10T05:00:00Z"));
    expect((spring.endMs - spring.startMs) / 3_600_000).toBe(23);
    const autumn = zoneDayRange("2024-11-03", "2024-11-03", "America/New_York");
    expect((autumn.endMs - autumn.startMs) / 3_600_000).toBe(25);
    const berlin = zoneDayRange("2024-03-31", "2024-03-31", "Europe/Berlin");
    expect((berlin.endMs - berlin.startMs) / 3_600_000).toBe(23);
  });

  it("starts a day whose midnight does not exist at its first real moment", () => {
    // Santiago, 2022-09-11: clocks jumped from 00:00 to 01:00 (-04 to -03).
    expect(dayStartMs("2022-09-11", "America/Santiago")).toBe(utc("2022-09-11T04:00:00Z"));
    expect(dayIn(utc("2022-09-11T04:00:00Z") - 1, "America/Santiago")).toBe("2022-09-10");
    // Cairo, 2024-04-26: the spring jump happens at midnight too.
    const cairo = dayStartMs("2024-04-26", "Africa/Cairo");
    expect(dayIn(cairo, "Africa/Cairo")).toBe("2024-04-26");
    expect(dayIn(cairo - 1, "Africa/Cairo")).toBe("2024-04-25");
  });

  it("takes the first of two midnights when clocks fall back across one", () => {
    // Asuncion, 2024-03-24: 00:00 -03 fell back to 23:00 -04 on the 23rd, so 00:00 happened twice.
    const start = dayStartMs("2024-03-24", "America/Asuncion");
    expect(dayIn(start, "America/Asuncion")).toBe("2024-03-24");
    expect(dayIn(start - 1, "America/Asuncion")).toBe("2024-03-23");
  });

  it("tells the day of an instant in a zone, and knows valid zone names", () => {
    expect(dayIn(utc("2025-01-01T03:00:00Z"), "America/Los_Angeles")).toBe("2024-12-31");
    expect(dayIn(utc("2025-01-01T03:00:00Z"), "UTC")).toBe("2025-01-01");
    expect(canonicalTimeZone("Europe/Paris")).toBe("Europe/Paris");
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
  });
});
