import { TZDate } from "@date-fns/tz";
import { format } from "date-fns";
import { describe, expect, it } from "vitest";
import { formatInstant, formatInstantDay, formatInstantNamed } from "./report-time";

describe("instants on the report time zone's clock", () => {
  it("read as date-fns reads a zoned date, in every month, either side of midnight and of a clock change", () => {
    const zones = ["UTC", "Asia/Manila", "America/New_York", "Europe/London", "Pacific/Kiritimati", "Asia/Kolkata"];
    const instants = [
      "2026-11-26T00:23:05.000Z",
      "2026-11-25T16:00:00.000Z",
      "2026-03-08T06:59:59.000Z",
      "2026-03-08T07:00:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-12-31T23:59:59.999Z",
      ...Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(2026, m, 9, 12, 4, 7)).toISOString()),
    ];
    for (const zone of zones) {
      for (const iso of instants) {
        const zoned = new TZDate(Date.parse(iso), zone);
        expect(formatInstant(iso, zone), `${iso} in ${zone}`).toBe(format(zoned, "MMM dd, yyyy HH:mm:ss"));
        expect(formatInstantDay(iso, zone), `${iso} in ${zone}`).toBe(format(zoned, "MMM dd, yyyy"));
      }
    }
    expect(formatInstant("2026-11-25T16:23:05.000Z", "Asia/Manila")).toBe("Nov 26, 2026 00:23:05");
    expect(formatInstantNamed("2026-11-26T00:00:00.000Z", "UTC")).toBe("Nov 26, 2026 00:00:00 (UTC)");
  });
});
