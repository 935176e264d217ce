/**
 * Auto-optimisation of a path's weights (docs/traffic-distribution-statistics.md
 * "Auto-optimisation"): Thompson sampling, each unpinned variant's share being its probability of
 * being the best, held above a floor, with pinned and paused variants left as the user set them.
 * Pure: the caller (the cron) reads the figures and stores the result with its reason.
 */
import {
  checkFigures,
  METRIC_NAMES,
  posteriorDraws,
  PRIOR_CONVERSIONS,
  posteriorMean,
  priors,
  probabilityBest,
  type Metric,
  type VariantFigures,
} from "./posterior";
import { largestRemainder } from "../lib/largest-remainder";
import type { Rng } from "./random";

export interface BanditVariant extends VariantFigures {
  id: string;
  /** Shown in the reason's sentences; the id when absent. */
  name?: string;
  /** A weight the user fixed (percent): the optimiser leaves it, the others share what is left. */
  pinnedWeight?: number | null;
  /** Paused variants get 0% and take no part. */
  paused: boolean;
  /**
   * The weight it has now (percent). Kept while there is too little data (made valid: paused at 0,
   * floors and pins applied, summing to 100); absent means an even split.
   */
  weight?: number | null;
}

export interface BanditOptions {
  /** "cr": optimise the conversion rate; "epv": revenue per visit. Default "cr". */
  mode?: Metric;
  /** The least any unpaused, unpinned variant gets, a whole percent. Default 5. */
  floorPercent?: number;
  /** Nothing moves until every unpaused, unpinned variant has this many visits. Default 200. */
  minVisits?: number;
  /** Monte Carlo draws for the probabilities. Default 10,000 (about ±0.5 points on each). */
  samples?: number;
  /** The random source: seed it (random.ts seedFrom of the path id and the run's time) so a change can be recomputed. */
  rng: Rng;
}

export interface VariantReason extends VariantFigures {
  id: string;
  paused: boolean;
  pinned: boolean;
  /** The posterior mean of the metric (a conversion rate as a fraction, or revenue per visit); null when paused. */
  posteriorMean: number | null;
  /** The probability that it is the best of the unpaused variants; null when paused. */
  probabilityBest: number | null;
}

export interface BanditReason {
  /** The method in words, with its settings, for the weight history. */
  method: string;
  mode: Metric;
  floorPercent: number;
  minVisits: number;
  samples: number;
  /** Why the weights were held (too little data, nothing to optimise), or null when they were computed. */
  held: string | null;
  /** Set when pins left less than the floors need and were scaled down. */
  pinsScaled: string | null;
  perVariant: VariantReason[];
}

export interface BanditResult {
  /** Whole percents in the variants' order, summing to exactly 100 (0 each when every variant is paused). */
  weights: { id: string; percent: number }[];
  /**
   * True when the weights were computed from the figures and differ from the current ones
   * (`weight`; without current weights, whenever computed): the cron keeps a history row then.
   * False while held, even when the current weights had to be made valid (a variant just paused).
   */
  moved: boolean;
  reason: BanditReason;
}

const DEFAULTS = { mode: "cr" as Metric, floorPercent: 5, minVisits: 200, samples: 10_000 };

/**
 * Thompson sampling in its "probability matching" form: each unpinned variant's share of the
 * unpinned traffic is the probability that it is the best of them, estimated from `samples`
 * posterior draws (posterior.ts), then raised to the floor where below it. With few conversions
 * the posteriors overlap, the probabilities stay near even and nothing swings: there is no
 * conversion count to divide by.
 */
export function thompsonWeights(variants: readonly BanditVariant[], options: BanditOptions): BanditResult {
  const mode = options.mode ?? DEFAULTS.mode;
  const floorPercent = options.floorPercent ?? DEFAULTS.floorPercent;
  const minVisits = options.minVisits ?? DEFAULTS.minVisits;
  const samples = options.samples ?? DEFAULTS.samples;
  if (!Number.isInteger(floorPercent) || floorPercent < 0 || floorPercent > 100)
    throw new RangeError(`floorPercent must be a whole percent 0-100, got ${floorPercent}`);
  if (!Number.isSafeInteger(minVisits) || minVisits < 0) throw new RangeError(`minVisits must be a whole number ≥ 0, got ${minVisits}`);
  if (!Number.isSafeInteger(samples) || samples < 1) throw new RangeError(`samples must be a whole number ≥ 1, got ${samples}`);
  for (const v of variants) {
    checkFigures(`Variant ${label(v)}`, v);
    if (v.pinnedWeight != null && !(v.pinnedWeight >= 0 && v.pinnedWeight <= 100))
      throw new RangeError(`Variant ${label(v)}: pinnedWeight must be 0-100, got ${v.pinnedWeight}`);
  }

  const active = variants.filter((v) => !v.paused);
  const isFree = (v: BanditVariant) => !v.paused && v.pinnedWeight == null;
  const free = variants.filter(isFree);
  const method = describe(mode, samples, floorPercent);

  // One set of draws: the best of all active variants (the reason) and of the free ones (the shares).
  const draws = posteriorDraws(options.rng, active, samples, [mode])[mode] ?? [];
  const [ofActive = [], ofFree = []] = probabilityBest(draws, [active.map(() => true), active.map((v) => isFree(v))]);
  const prior = priors(active);
  const indexOf = new Map(active.map((v, i) => [v, i]));
  const perVariant: VariantReason[] = variants.map((v) => {
    const i = indexOf.get(v);
    return {
      id: v.id,
      visits: v.visits,
      conversions: v.conversions,
      revenue: v.revenue,
      paused: v.paused,
      pinned: !v.paused && v.pinnedWeight != null,
      posteriorMean: i === undefined ? null : posteriorMean(v, mode, prior),
      probabilityBest: i === undefined ? null : (ofActive[i] ?? 0),
    };
  });

  const short = free.find((v) => v.visits < minVisits);
  const held =
    active.length === 0
      ? "Every variant is paused: nobody is sent anywhere."
      : free.length === 0
        ? "Every unpaused variant is pinned: there is nothing to optimise."
        : short
          ? `${label(short)} has ${short.visits.toLocaleString("en-US")} visits; weights move once every unpaused, unpinned variant has ${minVisits.toLocaleString("en-US")}.`
          : null;

  // The free variants' shares before the floor: their probabilities when computed, else the current weights.
  const hasCurrent = variants.every((v) => v.paused || v.weight != null);
  const freeShares = free.map((v) => {
    if (held) return hasCurrent ? Math.max(0, v.weight ?? 0) : 1;
    return ofFree[indexOf.get(v) ?? -1] ?? 0;
  });
  const { percents, pinsScaled } = allocate(variants, freeShares, floorPercent);
  const weights = variants.map((v, i) => ({ id: v.id, percent: percents[i] ?? 0 }));
  const changed = !hasCurrent || variants.some((v, i) => (v.paused ? 0 : (v.weight ?? 0)) !== weights[i]?.percent);
  return {
    weights,
    moved: held === null && changed,
    reason: { method, mode, floorPercent, minVisits, samples, held, pinsScaled, perVariant },
  };
}

function label(v: BanditVariant): string {
  return JSON.stringify(v.name ?? v.id);
}

function describe(mode: Metric, samples: number, floorPercent: number): string {
  const model =
    mode === "cr"
      ? `Beta posterior of each conversion rate (prior: the path's pooled rate, worth ${PRIOR_CONVERSIONS} conversions)`
      : `Beta posterior of each conversion rate times a Gamma posterior of its mean revenue per conversion (priors: the path's pooled rate and payout, worth ${PRIOR_CONVERSIONS} conversions)`;
  return `Thompson sampling on ${METRIC_NAMES[mode]}: each unpinned variant's share is its probability of being best, from ${samples.toLocaleString("en-US")} draws of the ${model}, with a floor of ${floorPercent}% per variant.`;
}

/**
 * Paused variants 0; pins as set, unless they leave the free variants less than their floors (then
 * scaled down, said in `pinsScaled`); the free variants share the rest in proportion to
 * `freeShares`, none below the floor; then whole percents by largest remainder. The floor is
 * lowered to ⌊100 / free variants⌋ when there are too many variants for it.
 */
function allocate(variants: readonly BanditVariant[], freeShares: readonly number[], floorPercent: number): { percents: number[]; pinsScaled: string | null } {
  const freeCount = freeShares.length;
  const floor = freeCount > 0 ? Math.min(floorPercent, Math.floor(100 / freeCount)) : 0;
  const pinned = variants.filter((v) => !v.paused && v.pinnedWeight != null);
  if (pinned.length === 0 && freeCount === 0) return { percents: variants.map(() => 0), pinsScaled: null };

  const pinnedSum = pinned.reduce((sum, v) => sum + (v.pinnedWeight ?? 0), 0);
  // With no free variant the pins are the whole split; otherwise they keep their weight up to what the floors allow.
  const pinnedRoom = freeCount === 0 ? 100 : 100 - floor * freeCount;
  const pinScale = freeCount === 0 ? (pinnedSum > 0 ? 100 / pinnedSum : 0) : pinnedSum > pinnedRoom ? pinnedRoom / pinnedSum : 1;
  const pinsScaled =
    pinScale !== 1 && freeCount > 0
      ? `The pinned weights (${pinnedSum}% in all) were scaled to ${pinnedRoom}% to leave every other variant its ${floor}% floor.`
      : null;
  const pinnedShares = new Map(pinned.map((v) => [v, pinnedSum > 0 || freeCount > 0 ? (v.pinnedWeight ?? 0) * pinScale : 100 / pinned.length]));
  const freeTotal = 100 - [...pinnedShares.values()].reduce((a, b) => a + b, 0);
  const floored = applyFloor(freeShares, floor, freeTotal);

  let f = 0;
  const real = variants.map((v) => (v.paused ? 0 : v.pinnedWeight != null ? (pinnedShares.get(v) ?? 0) : (floored[f++] ?? 0)));
  return { percents: largestRemainder(real, 100), pinsScaled };
}

/**
 * Shares scaled to `total`, each at least `floor`: variants below it are set to it and the rest
 * rescaled, repeated until none is below (at most one pass per variant). All-zero shares split evenly.
 */
export function applyFloor(shares: readonly number[], floor: number, total: number): number[] {
  const out = new Array<number>(shares.length).fill(floor);
  let open = shares.map((_, i) => i);
  for (;;) {
    const room = total - floor * (shares.length - open.length);
    const sum = open.reduce((s, i) => s + (shares[i] ?? 0), 0);
    for (const i of open) out[i] = sum > 0 ? ((shares[i] ?? 0) / sum) * room : room / open.length;
    const below = open.filter((i) => (out[i] ?? 0) < floor);
    if (below.length === 0) return out;
    for (const i of below) out[i] = floor;
    open = open.filter((i) => !below.includes(i));
    if (open.length === 0) return out;
  }
}
