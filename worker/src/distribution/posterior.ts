/**
 * The two models the optimiser and the split-test verdict share (docs/traffic-distribution-statistics.md
 * "The models"): what a variant's visits, conversions and revenue say about its conversion rate
 * ("cr") or its revenue per visit ("epv"), and the chance that each variant is the best.
 */
import { beta, gamma, type Rng } from "./random";

export type Metric = "cr" | "epv";

/** What the tables keep per variant, over the period looked at. Revenue in any one unit (the callers use cents). */
export interface VariantFigures {
  visits: number;
  conversions: number;
  revenue: number;
}

/** The metric's name in sentences and method descriptions. */
export const METRIC_NAMES: Record<Metric, string> = { cr: "conversion rate", epv: "revenue per visit" };

/**
 * How much the priors weigh, in conversions. The conversion-rate prior is centred on the pooled
 * rate of the variants compared and worth 5 conversions (Beta(5, 5 / pooled - 5)): landers on one
 * path share an audience, so until a variant has data of its own it is assumed to convert like the
 * rest. The flat Beta(1, 1) instead says a lander is as likely to convert at 50% as at 1%, and hands
 * a variant with two conversions against none most of the traffic (the fewer-conversions-than-
 * variants failure); worth 5, two such conversions move it from 20% to about 43% of five variants,
 * as much as a smoothed-rate formula would. After a few dozen conversions the prior hardly matters.
 * The payout prior in "epv" is the same idea: shape 5 (above 1, so the mean payout is finite even
 * at 0 conversions) at the pooled mean payout. A variant with no conversions yet is assumed to pay what
 * the others pay; with no conversions anywhere every variant shares the priors and "epv" ranks as "cr".
 */
export const PRIOR_CONVERSIONS = 5;

export interface Priors {
  /** Beta(a, b) on the conversion rate. */
  rate: { a: number; b: number };
  /** Gamma(shape, rate) on 1 / the mean payout. */
  payout: { shape: number; rate: number };
}

export function priors(variants: readonly VariantFigures[]): Priors {
  let revenue = 0;
  let conversions = 0;
  let visits = 0;
  for (const v of variants) {
    revenue += Math.max(0, v.revenue);
    conversions += v.conversions;
    visits += v.visits;
  }
  const pooledRate = visits > 0 ? conversions / visits : 0;
  const pooledPayout = conversions > 0 ? revenue / conversions : 0;
  return {
    // No conversions at all: nothing to centre on, the flat prior (every variant alike anyway).
    rate: pooledRate > 0 && pooledRate < 1 ? { a: PRIOR_CONVERSIONS, b: PRIOR_CONVERSIONS * (1 / pooledRate - 1) } : { a: 1, b: 1 },
    // A positive scale even when every conversion paid nothing, so draws never tie at 0.
    payout: { shape: PRIOR_CONVERSIONS, rate: (PRIOR_CONVERSIONS - 1) * (pooledPayout > 0 ? pooledPayout : 1) },
  };
}

/** Refuses figures no table could produce, with the variant named, instead of a NaN weight. */
export function checkFigures(label: string, v: VariantFigures): void {
  if (!Number.isSafeInteger(v.visits) || v.visits < 0) throw new RangeError(`${label}: visits must be a whole number ≥ 0, got ${v.visits}`);
  if (!Number.isSafeInteger(v.conversions) || v.conversions < 0) throw new RangeError(`${label}: conversions must be a whole number ≥ 0, got ${v.conversions}`);
  if (v.conversions > v.visits) throw new RangeError(`${label}: ${v.conversions} conversions exceed ${v.visits} visits`);
  if (!Number.isFinite(v.revenue)) throw new RangeError(`${label}: revenue must be a finite number, got ${v.revenue}`);
}

/**
 * The posterior mean: (a + conversions) / (a + b + visits) for "cr", times the posterior mean
 * payout (revenue + rate) / (conversions + shape - 1) for "epv". Negative revenue (chargebacks
 * beyond sales) counts as 0: a payout model cannot go below nothing.
 */
export function posteriorMean(v: VariantFigures, metric: Metric, prior: Priors): number {
  const cr = (prior.rate.a + v.conversions) / (prior.rate.a + prior.rate.b + v.visits);
  if (metric === "cr") return cr;
  return (cr * (Math.max(0, v.revenue) + prior.payout.rate)) / (v.conversions + prior.payout.shape - 1);
}

/**
 * Draws from each variant's posterior, `samples` per variant, for the metrics asked for.
 * "cr": Beta(a + conversions, b + visits - conversions), the
 * prior's a and b from `priors`. "epv": that same draw times a draw of the
 * mean payout, 1 / lambda with lambda ~ Gamma(shape + conversions, rate + revenue): the conjugate
 * model for payouts spread like an exponential, which needs only the revenue total the tables keep
 * (not each conversion's amount) and is wider than fixed CPA payouts really are, so it errs on the
 * side of caution. One pass serves both metrics: the verdict shows both.
 */
export function posteriorDraws(
  rng: Rng,
  variants: readonly VariantFigures[],
  samples: number,
  metrics: readonly Metric[],
): Record<Metric, Float64Array[] | null> {
  const prior = priors(variants);
  const wantEpv = metrics.includes("epv");
  const cr = variants.map(() => new Float64Array(samples));
  const epv = wantEpv ? variants.map(() => new Float64Array(samples)) : null;
  for (const [i, v] of variants.entries()) {
    const a = prior.rate.a + v.conversions;
    const b = prior.rate.b + v.visits - v.conversions;
    const payoutScale = Math.max(0, v.revenue) + prior.payout.rate;
    const payoutShape = v.conversions + prior.payout.shape;
    const crDraws = cr[i]!; // i is an index of `variants`, and cr has one array per variant
    const epvDraws = epv?.[i];
    for (let s = 0; s < samples; s++) {
      const rate = beta(rng, a, b);
      crDraws[s] = rate;
      if (epvDraws) epvDraws[s] = (rate * payoutScale) / gamma(rng, payoutShape);
    }
  }
  return { cr: metrics.includes("cr") ? cr : null, epv };
}

/**
 * Per mask, per variant: the share of joint draws in which it was the highest among the mask's
 * variants (0 outside the mask): the probability that it is best, by Monte Carlo. The optimiser
 * asks for two groups at once (all active variants, and the unpinned ones) from one set of draws.
 */
export function probabilityBest(draws: readonly Float64Array[], masks: readonly (readonly boolean[])[]): number[][] {
  const n = draws.length;
  const samples = draws[0]?.length ?? 0;
  return masks.map((mask) => {
    const wins = new Array<number>(n).fill(0);
    for (let s = 0; s < samples; s++) {
      let best = -1;
      let top = -Infinity;
      for (let i = 0; i < n; i++) {
        const x = draws[i]![s]!; // i < n = draws.length, s < samples = each array's length
        if (mask[i] && x > top) {
          best = i;
          top = x;
        }
      }
      if (best >= 0) wins[best]!++;
    }
    return wins.map((w) => (samples > 0 ? w / samples : 0));
  });
}
