import { describe, expect, it } from "vitest";
import { effectivePercents } from "../src/schemas/paths";
import { byRendezvous, byWeight, clockIn, compileCondition, visitOf, type Visit } from "../src/tracking/distribution";
import type { ParsedAgent } from "../src/tracking/user-agent";

const visit = (over: Partial<Parameters<typeof visitOf>[0]> = {}, agent: ParsedAgent = { deviceType: null, os: null, browser: null }): Visit =>
  visitOf(
    { country: null, region: null, city: null, asn: null, acceptLanguage: null, query: new URLSearchParams(), userAgent: null, at: 0, ...over },
    "UTC",
    () => agent,
  );

/** A seeded generator (mulberry32), so the sample is the same on every run. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("conditions", () => {
  it("match case-insensitively, OR their values, and treat a missing value as never 'is'", () => {
    const us = compileCondition({ field: "country", op: "is", values: ["us", "CA"] });
    expect(us(visit({ country: "US" }))).toBe(true);
    expect(us(visit({ country: "DE" }))).toBe(false);
    expect(us(visit())).toBe(false);
    const notUs = compileCondition({ field: "country", op: "isNot", values: ["US"] });
    expect(notUs(visit())).toBe(true);
    expect(notUs(visit({ country: "US" }))).toBe(false);
  });

  it("read the first Accept-Language tag, a bare language taking its regions", () => {
    const en = compileCondition({ field: "language", op: "is", values: ["en"] });
    const enGb = compileCondition({ field: "language", op: "is", values: ["en-GB"] });
    expect(en(visit({ acceptLanguage: "en-US,en;q=0.9" }))).toBe(true);
    expect(enGb(visit({ acceptLanguage: "en-US,en;q=0.9" }))).toBe(false);
    expect(en(visit({ acceptLanguage: "de-DE,en;q=0.5" }))).toBe(false);
  });

  it("read query parameters, numbers and the agent", () => {
    expect(compileCondition({ field: "param", param: "plc", op: "is", values: ["Feed"] })(visit({ query: new URLSearchParams("plc=feed") }))).toBe(true);
    expect(compileCondition({ field: "hour", op: "is", values: ["07"] })(visit({ at: Date.parse("2026-11-24T07:10:00Z") }))).toBe(true);
    expect(compileCondition({ field: "asn", op: "is", values: ["7922"] })(visit({ asn: 7922 }))).toBe(true);
    expect(compileCondition({ field: "os", op: "is", values: ["ios"] })(visit({}, { deviceType: "Mobile", os: "iOS", browser: "TikTok" }))).toBe(true);
  });

  it("read weekday and hour in the report time zone", () => {
    // 2026-11-24 03:30 UTC is Monday 22:30 in New York.
    expect(clockIn("America/New_York", Date.parse("2026-11-24T03:30:00Z"))).toEqual({ weekday: 1, hour: 22 });
    expect(clockIn("UTC", Date.parse("2026-11-24T00:05:00Z"))).toEqual({ weekday: 2, hour: 0 });
  });

  it("keep the clock of each quarter hour apart, even in a zone a quarter hour off the hour", () => {
    // Kathmandu is UTC+5:45: its hour turns at a quarter past each UTC hour, its day at 18:15 UTC.
    const at = (utc: string) => clockIn("Asia/Kathmandu", Date.parse(utc));
    expect(at("2026-11-24T03:14:59.999Z")).toEqual({ weekday: 2, hour: 8 });
    expect(at("2026-11-24T03:15:00Z")).toEqual({ weekday: 2, hour: 9 });
    expect(at("2026-11-24T03:14:00Z")).toEqual({ weekday: 2, hour: 8 });
    expect(at("2026-11-24T18:15:00Z")).toEqual({ weekday: 3, hour: 0 });
    expect(at("2026-11-24T18:14:59Z")).toEqual({ weekday: 2, hour: 23 });
    // The day a clock change brings: New York leaves daylight time at 06:00 UTC on 1 November 2026.
    expect(clockIn("America/New_York", Date.parse("2026-11-01T05:59:59Z"))).toEqual({ weekday: 0, hour: 1 });
    expect(clockIn("America/New_York", Date.parse("2026-11-01T06:00:00Z"))).toEqual({ weekday: 0, hour: 1 });
    expect(clockIn("America/New_York", Date.parse("2026-11-01T07:00:00Z"))).toEqual({ weekday: 0, hour: 2 });
  });
});

describe("choosing a variant", () => {
  const variants = [
    { id: 11, weight: 10 },
    { id: 12, weight: 30 },
    { id: 13, weight: 60 },
  ];

  it("by weight, in proportion over a seeded sample", () => {
    const random = seeded(21);
    const counts = new Map<number, number>();
    for (let i = 0; i < 100_000; i++) {
      const v = byWeight(variants, 100, random())!;
      counts.set(v.id, (counts.get(v.id) ?? 0) + 1);
    }
    expect(Math.abs(counts.get(11)! / 100_000 - 0.1)).toBeLessThan(0.005);
    expect(Math.abs(counts.get(13)! / 100_000 - 0.6)).toBeLessThan(0.005);
  });

  it("by rendezvous hashing, in proportion too, and the same for the same seed", () => {
    const random = seeded(7);
    const counts = new Map<number, number>();
    for (let i = 0; i < 100_000; i++) {
      const seed = Math.floor(random() * 4294967296);
      const v = byRendezvous(variants, seed)!;
      expect(byRendezvous(variants, seed)).toBe(v);
      counts.set(v.id, (counts.get(v.id) ?? 0) + 1);
    }
    expect(Math.abs(counts.get(11)! / 100_000 - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(counts.get(12)! / 100_000 - 0.3)).toBeLessThan(0.01);
  });

  it("moves only the removed variant's visitors when one leaves the set", () => {
    const random = seeded(3);
    const rest = variants.filter((v) => v.id !== 11);
    for (let i = 0; i < 10_000; i++) {
      const seed = Math.floor(random() * 4294967296);
      const before = byRendezvous(variants, seed)!;
      if (before.id !== 11) expect(byRendezvous(rest, seed)).toBe(before);
    }
  });

  it("shows paused and 0 weights as 0% and the rest as shares of 100", () => {
    expect(effectivePercents([{ weight: 3 }, { weight: 1 }, { weight: 5, paused: true }, { weight: 0 }])).toEqual([75, 25, 0, 0]);
    expect(effectivePercents([{ weight: 0 }])).toEqual([0]);
    // Shown to one decimal, they still sum to exactly 100, as the editor shows them.
    expect(effectivePercents([{ weight: 1 }, { weight: 1 }, { weight: 1 }])).toEqual([33.4, 33.3, 33.3]);
  });
});
