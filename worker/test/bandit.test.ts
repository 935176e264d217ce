import { describe, expect, it } from "vitest";
import { thompsonWeights, type BanditVariant } from "../src/distribution/bandit";
import { beta, gamma, mulberry32, seedFrom } from "../src/distribution/random";
import { shownProbability, splitTestVerdict, wilson, type SplitTestVariant } from "../src/distribution/split-test";

/** Variants with the given [visits, conversions], unpaused, unpinned, revenue 20 per conversion. */
function variants(figures: [number, number][], extra: Partial<BanditVariant>[] = []): BanditVariant[] {
  return figures.map(([visits, conversions], i) => ({
    id: `v${i}`,
    name: `Lander ${"ABCDEFGH"[i]}`,
    visits,
    conversions,
    revenue: conversions * 20,
    paused: false,
    ...extra[i],
  }));
}
const percents = (result: { weights: { percent: number }[] }) => result.weights.map((w) => w.percent);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("seeded random numbers", () => {
  it("repeat for a seed and differ between seeds", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(seedFrom("path 7 at 2026-11-26T01:00"));
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("draw Gamma and Beta with the right mean and variance", () => {
    const rng = mulberry32(1);
    for (const shape of [0.5, 1, 3.5, 200]) {
      const xs = Array.from({ length: 40_000 }, () => gamma(rng, shape));
      const mean = sum(xs) / xs.length;
      const variance = sum(xs.map((x) => (x - mean) ** 2)) / xs.length;
      expect(mean).toBeCloseTo(shape, shape > 10 ? 0 : 1); // Gamma(k, 1): mean k, variance k
      expect(variance / shape).toBeGreaterThan(0.95);
      expect(variance / shape).toBeLessThan(1.05);
    }
    const ps = Array.from({ length: 40_000 }, () => beta(rng, 3, 297));
    expect(sum(ps) / ps.length).toBeCloseTo(0.01, 3);
    expect(() => gamma(rng, 0)).toThrow(RangeError);
  });
});

describe("thompsonWeights", () => {
  const rng = () => mulberry32(7);

  it("gives whole percents summing to exactly 100, floors kept, paused at 0 and pins as set, whatever the figures", () => {
    const random = mulberry32(99);
    for (let round = 0; round < 200; round++) {
      const count = 1 + Math.floor(random() * 8);
      const list = Array.from({ length: count }, (_, i): BanditVariant => {
        const visits = Math.floor(random() * 5_000);
        const kind = random();
        return {
          id: `v${i}`,
          visits,
          conversions: Math.floor(random() * Math.min(visits, 60)),
          revenue: random() * 1_000,
          paused: kind < 0.15,
          pinnedWeight: kind > 0.85 ? Math.floor(random() * 20) : null,
          weight: null,
        };
      });
      const mode = random() < 0.5 ? "cr" : "epv";
      const result = thompsonWeights(list, { mode, samples: 500, minVisits: 100, rng: mulberry32(round) });
      const got = percents(result);
      const active = list.filter((v) => !v.paused);
      expect(got.every((p) => Number.isInteger(p) && p >= 0)).toBe(true);
      expect(sum(got)).toBe(active.length ? 100 : 0);
      list.forEach((v, i) => {
        if (v.paused) expect(got[i]).toBe(0);
        else if (v.pinnedWeight == null)
          expect(got[i]).toBeGreaterThanOrEqual(Math.min(5, Math.floor(100 / list.filter((x) => !x.paused && x.pinnedWeight == null).length)));
      });
      const free = list.filter((v) => !v.paused && v.pinnedWeight == null);
      const pinned = list.filter((v) => !v.paused && v.pinnedWeight != null);
      if (free.length && sum(pinned.map((v) => v.pinnedWeight ?? 0)) <= 100 - 5 * free.length) {
        list.forEach((v, i) => v.pinnedWeight != null && !v.paused && expect(got[i]).toBe(v.pinnedWeight));
      }
    }
  });

  it("sends the clear winner most traffic and keeps the others at the 5% floor", () => {
    const result = thompsonWeights(
      variants([
        [20_000, 160],
        [20_000, 200],
        [20_000, 240],
        [20_000, 300],
        [20_000, 400],
      ]),
      { rng: rng() },
    );
    expect(percents(result)).toEqual([5, 5, 5, 5, 80]);
    expect(result.moved).toBe(true);
    expect(result.reason.held).toBeNull();
    expect(result.reason.method).toMatch(/^Thompson sampling on conversion rate/);
    const best = result.reason.perVariant[4];
    expect(best).toMatchObject({ id: "v4", visits: 20_000, conversions: 400, revenue: 8_000, pinned: false, paused: false });
    expect(best?.probabilityBest).toBeGreaterThan(0.99);
    // The prior: the pooled rate (1,300 in 100,000) worth 5 conversions.
    expect(best?.posteriorMean).toBeCloseTo((5 + 400) / (5 + 5 * (1 / 0.013 - 1) + 20_000), 9);
  });

  it("keeps a pinned weight and shares what is left, the floor still holding", () => {
    const list = variants(
      [
        [20_000, 160],
        [20_000, 400],
        [20_000, 200],
      ],
      [{ pinnedWeight: 30 }],
    );
    const result = thompsonWeights(list, { rng: rng() });
    expect(percents(result)).toEqual([30, 65, 5]);
    expect(result.reason.perVariant[0]?.pinned).toBe(true);
    expect(result.reason.pinsScaled).toBeNull();
  });

  it("scales pins down, and says so, when they would leave another variant below its floor", () => {
    const list = variants(
      [
        [5_000, 50],
        [5_000, 50],
        [5_000, 50],
      ],
      [{ pinnedWeight: 60 }, { pinnedWeight: 40 }],
    );
    const result = thompsonWeights(list, { rng: rng() });
    expect(percents(result)).toEqual([57, 38, 5]);
    expect(result.reason.pinsScaled).toMatch(/scaled to 95%/);
  });

  it("gives a paused variant nothing, however good its figures, and leaves it out of the reckoning", () => {
    const list = variants(
      [
        [20_000, 900],
        [20_000, 200],
        [20_000, 300],
      ],
      [{ paused: true }],
    );
    const result = thompsonWeights(list, { rng: rng() });
    expect(percents(result)).toEqual([0, 5, 95]);
    expect(result.reason.perVariant[0]).toMatchObject({ paused: true, probabilityBest: null, posteriorMean: null });
  });

  it("moves nothing until every unpaused, unpinned variant has the minimum of visits, and says why", () => {
    const current = variants(
      [
        [5_000, 10],
        [150, 9],
        [5_000, 60],
      ],
      [{ weight: 50 }, { weight: 20 }, { weight: 30 }],
    );
    const held = thompsonWeights(current, { rng: rng() });
    expect(percents(held)).toEqual([50, 20, 30]);
    expect(held.moved).toBe(false);
    expect(held.reason.held).toBe('"Lander B" has 150 visits; weights move once every unpaused, unpinned variant has 200.');

    const fresh = thompsonWeights(
      variants([
        [10, 0],
        [12, 1],
        [9, 0],
      ]),
      { rng: rng() },
    );
    expect(percents(fresh)).toEqual([34, 33, 33]);
    expect(fresh.moved).toBe(false);

    // A paused variant's lack of data holds nothing back.
    const moved = thompsonWeights(
      variants(
        [
          [5_000, 10],
          [3, 0],
          [5_000, 60],
        ],
        [{}, { paused: true }],
      ),
      { rng: rng() },
    );
    expect(moved.reason.held).toBeNull();
  });

  it("stays near even, without division by zero, with fewer conversions than variants", () => {
    for (const conversions of [
      [0, 0, 0, 0, 0],
      [0, 1, 0, 0, 0],
      [1, 0, 0, 1, 0],
    ]) {
      const list = variants(conversions.map((c): [number, number] => [300, c]));
      for (const mode of ["cr", "epv"] as const) {
        const got = percents(thompsonWeights(list, { mode, rng: rng() }));
        expect(sum(got)).toBe(100);
        // One conversion is no evidence: no variant above 40% (a fixed formula on smoothed rates
        // can hand it everything; Thompson's posteriors still overlap).
        expect(Math.max(...got)).toBeLessThanOrEqual(40);
        expect(Math.min(...got)).toBeGreaterThanOrEqual(8);
      }
    }
  });

  it("on revenue per visit, favours the variant that earns more per visit rather than converts more", () => {
    const list: BanditVariant[] = [
      { id: "cheap", visits: 20_000, conversions: 400, revenue: 400 * 1_000, paused: false },
      { id: "rich", visits: 20_000, conversions: 250, revenue: 250 * 3_000, paused: false },
    ];
    expect(percents(thompsonWeights(list, { mode: "cr", rng: rng() }))).toEqual([95, 5]);
    const epv = thompsonWeights(list, { mode: "epv", rng: rng() });
    expect(percents(epv)).toEqual([5, 95]);
    expect(epv.reason.method).toMatch(/^Thompson sampling on revenue per visit/);
  });

  it("repeats exactly for the same seed, and reports not moved when the weights come out as they were", () => {
    const list = variants([
      [2_000, 20],
      [2_000, 26],
      [2_000, 23],
    ]);
    const a = thompsonWeights(list, { rng: mulberry32(5) });
    const b = thompsonWeights(list, { rng: mulberry32(5) });
    expect(b).toEqual(a);
    const again = thompsonWeights(
      list.map((v, i) => ({ ...v, weight: a.weights[i]?.percent })),
      { rng: mulberry32(5) },
    );
    expect(again.moved).toBe(false);
  });

  it("answers every variant paused with all zeros, and refuses impossible figures by name", () => {
    const paused = thompsonWeights(
      variants(
        [
          [100, 1],
          [100, 2],
        ],
        [{ paused: true }, { paused: true }],
      ),
      { rng: rng() },
    );
    expect(percents(paused)).toEqual([0, 0]);
    expect(paused.reason.held).toMatch(/Every variant is paused/);
    expect(() => thompsonWeights(variants([[10, 11]]), { rng: rng() })).toThrow('Variant "Lander A": 11 conversions exceed 10 visits');
    expect(() => thompsonWeights(variants([[10, 1]]), { floorPercent: 2.5, rng: rng() })).toThrow(RangeError);
    expect(() => thompsonWeights(variants([[10, 1]], [{ pinnedWeight: 120 }]), { rng: rng() })).toThrow(/pinnedWeight/);
  });
});

describe("splitTestVerdict", () => {
  const lander = (name: string, visits: number, conversions: number, revenue = conversions * 2_000): SplitTestVariant => ({
    id: name,
    name,
    visits,
    conversions,
    revenue,
  });

  it("names the winner, the probability and the metric when it is decided", () => {
    const result = splitTestVerdict([lander("Lander A", 10_000, 100), lander("Lander B", 10_000, 160)], { rng: mulberry32(1) });
    expect(result.verdict).toBe("Lander B beats Lander A with over 99.9% probability on conversion rate.");
    expect(result.winner).toBe("Lander B");
    expect(result.moreVisitsEach).toBeNull();
    expect(result.method).toMatch(/Wilson score/);
    expect(result.method).toMatch(/mSPRT/);
    const [a, b] = result.variants;
    expect(a?.cr.value).toBe(0.01);
    expect((a?.probabilityBest ?? 0) + (b?.probabilityBest ?? 0)).toBeCloseTo(1, 9);
    expect(b?.epv.value).toBeCloseTo(32, 9);
    expect(b?.epv.low).toBeLessThan(32);
    expect(b?.epv.high).toBeGreaterThan(32);
  });

  it("shows the probability rounded down, never as 100%", () => {
    expect(shownProbability(0.9512)).toBe("95%");
    expect(shownProbability(0.979)).toBe("97%");
    expect(shownProbability(0.9949)).toBe("99.4%");
    expect(shownProbability(0.9999)).toBe("over 99.9%");
    expect(shownProbability(1)).toBe("over 99.9%");
  });

  it("lists every loser when there are more than two", () => {
    const result = splitTestVerdict([lander("Lander A", 10_000, 100), lander("Lander B", 10_000, 180), lander("Lander C", 10_000, 95)], { rng: mulberry32(3) });
    expect(result.verdict).toBe("Lander B beats Lander A and Lander C with over 99.9% probability on conversion rate.");
  });

  it("says about how many more visits each when not decided", () => {
    const result = splitTestVerdict([lander("Lander A", 1_000, 10), lander("Lander B", 1_000, 13)], { rng: mulberry32(4) });
    expect(result.winner).toBeNull();
    expect(result.moreVisitsEach).toBeGreaterThan(5_000);
    expect(result.verdict).toBe(`Not decided: about ${result.moreVisitsEach?.toLocaleString("en-US")} more visits each (conversion rate).`);
    // A bigger gap needs fewer visits.
    const wider = splitTestVerdict([lander("Lander A", 1_000, 10), lander("Lander B", 1_000, 16)], { rng: mulberry32(4) });
    expect(wider.moreVisitsEach).toBeLessThan(result.moreVisitsEach ?? 0);
  });

  it("does not guess with no conversions, no difference or one variant", () => {
    expect(splitTestVerdict([lander("A", 500, 0), lander("B", 500, 0)], { rng: mulberry32(5) }).verdict).toBe(
      "Not decided: no conversions yet, so no estimate of the visits needed.",
    );
    expect(splitTestVerdict([lander("A", 5_000, 50), lander("B", 5_000, 50)], { rng: mulberry32(5) }).verdict).toMatch(
      /^Not decided: no real difference in conversion rate so far/,
    );
    expect(splitTestVerdict([lander("A", 5_000, 50)], { rng: mulberry32(5) }).verdict).toBe("Not decided: there is only one variant, nothing to compare.");
    expect(() => splitTestVerdict([], { rng: mulberry32(5) })).toThrow(RangeError);
  });

  it("judges revenue per visit when asked, naming it", () => {
    const list = [lander("Offer A", 20_000, 400, 400 * 1_000), lander("Offer B", 20_000, 250, 250 * 3_000)];
    expect(splitTestVerdict(list, { rng: mulberry32(6) }).verdict).toBe("Offer A beats Offer B with over 99.9% probability on conversion rate.");
    expect(splitTestVerdict(list, { metric: "epv", rng: mulberry32(6) }).verdict).toBe(
      "Offer B beats Offer A with over 99.9% probability on revenue per visit.",
    );
  });

  it("gives the Wilson interval, sensible at 0 conversions", () => {
    const i = wilson(10, 1_000);
    expect(i.low).toBeCloseTo(0.00544, 5);
    expect(i.high).toBeCloseTo(0.01831, 5);
    expect(wilson(0, 500)).toMatchObject({ value: 0, low: 0 });
    expect(wilson(0, 500).high).toBeGreaterThan(0.005);
  });

  /** `tests` A/A tests of two 1% landers, 1,000 visits each a day for 20 days, read daily: how many named a winner. */
  function aaWinners(tests: number, metric: "cr" | "epv", payout: (rng: () => number) => number): number {
    const rng = mulberry32(2026);
    let winners = 0;
    for (let t = 0; t < tests; t++) {
      const arms = [lander("Lander A", 0, 0), lander("Lander B", 0, 0)];
      for (let day = 0; day < 20; day++) {
        for (const arm of arms) {
          for (let k = 0; k < 1_000; k++) {
            if (rng() >= 0.01) continue;
            arm.conversions++;
            arm.revenue += payout(rng);
          }
          arm.visits += 1_000;
        }
        if (splitTestVerdict(arms, { metric, samples: 400, rng }).winner) {
          winners++;
          break;
        }
      }
    }
    return winners;
  }

  it(
    "names a winner in at most 5% of A/A tests, the verdict read after every day of traffic",
    () => {
      expect(aaWinners(300, "cr", () => 2_000) / 300).toBeLessThanOrEqual(0.05);
    },
    // 6,000 verdicts of 400 draws each: about 2 s on an idle machine.
    120_000,
  );

  it(
    "names a winner in at most 5% of A/A tests on revenue per visit, payouts varying from $5 to $60",
    () => {
      expect(aaWinners(150, "epv", (rng) => 500 + Math.floor(rng() * 5_500)) / 150).toBeLessThanOrEqual(0.05);
    },
    // 3,000 verdicts of 400 draws each: about 1 s on an idle machine.
    120_000,
  );
});
