import { afterAll, beforeAll } from "vitest";

/**
 * Runs a test file's browser in `zone`: the process's own clock, which `Date` and date-fns read
 * (Node applies a change of TZ at once). For tests that must tell the report time zone from the
 * browser's.
 */
export function browserInZone(zone: string) {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.TZ;
    process.env.TZ = zone;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });
}
