/**
 * The split-test verdict of a path (docs/traffic-distribution-statistics.md
 * "The split-test verdict"): per variant its conversion rate and revenue per visit with 95%
 * intervals, the probability that each is best, and a plain sentence saying whether a winner is
 * known. A winner needs both a 95% probability of being best and a sequential test (mSPRT) that
 * stays honest however often the page is looked at; without the second, checking daily would name
 * a winner between identical landers far more often than 5% of the time.
 */
import { checkFigures, METRIC_NAMES, posteriorDraws, PRIOR_CONVERSIONS, probabilityBest, type Metric, type VariantFigures } from "./posterior";
import type { Rng } from "./random";

export interface SplitTestVariant extends VariantFigures {
  id: string;
  /** As the verdict names it, e.g. "Lander B". */
  name: string;
}

export interface SplitTestOptions {
  /** The metric the verdict is about: "cr" (conversion rate, the default) or "epv" (revenue per visit). */
  metric?: Metric;
  /** Monte Carlo draws for the probabilities and the revenue-per-visit intervals. Default 20,000. */
  samples?: number;
  rng: Rng;
}

export interface Interval {
  /** The observed value: conversions / visits, or revenue / visits. */
  value: number;
  low: number;
  high: number;
}

export interface SplitTestVariantResult extends SplitTestVariant {
  /** Wilson score 95% interval. */
  cr: Interval;
  /** 95% credible interval from the revenue-per-visit posterior (posterior.ts). */
  epv: Interval;
  /** The probability that it is the best on the chosen metric. */
  probabilityBest: number;
}

export interface SplitTestResult {
  metric: Metric;
  /** The methods in words, to show under the figures. */
  method: string;
  variants: SplitTestVariantResult[];
  /** The winner's id, when decided. */
  winner: string | null;
  /** When not decided and estimable: about how many more visits each variant needs (two significant figures). */
  moreVisitsEach: number | null;
  /** "Lander B beats Lander A with 97% probability on conversion rate" or "Not decided: about 1,200 more visits each …". */
  verdict: string;
}

/** The probability of being best that a winner needs. */
const DECIDE_AT = 0.95;
/** The sequential test's error rate: a winner between identical variants in at most 5% of tests, however often checked. */
const ALPHA = 0.05;
/**
 * The spread of differences the sequential test is tuned for, relative to the pooled mean: about
 * 30%, the size of difference between landers worth testing. Smaller differences are still found,
 * only later; the error rate holds whatever this is.
 */
const TAU_RELATIVE = 0.3;
const Z95 = 1.959963984540054;
/** Beyond this the estimate says "more than", not a number: the variants are as good as equal. */
const MAX_ESTIMATE = 10_000_000;

export function splitTestVerdict(variants: readonly SplitTestVariant[], options: SplitTestOptions): SplitTestResult {
  const metric = options.metric ?? "cr";
  const samples = options.samples ?? 20_000;
  if (variants.length === 0) throw new RangeError("A split test needs at least one variant");
  if (!Number.isSafeInteger(samples) || samples < 1) throw new RangeError(`samples must be a whole number ≥ 1, got ${samples}`);
  for (const v of variants) checkFigures(`Variant ${JSON.stringify(v.name)}`, v);

  const draws = posteriorDraws(options.rng, variants, samples, ["cr", "epv"]);
  const [best = []] = probabilityBest(draws[metric] ?? [], [variants.map(() => true)]);
  const results: SplitTestVariantResult[] = variants.map((v, i) => ({
    ...v,
    cr: wilson(v.conversions, v.visits),
    epv: { value: v.visits > 0 ? v.revenue / v.visits : 0, ...quantiles(draws.epv?.[i]) },
    probabilityBest: best[i] ?? 0,
  }));
  const method = `Conversion rate intervals: Wilson score, 95%. Revenue per visit intervals: 95% credible, from a Beta posterior of the conversion rate times a Gamma posterior of the revenue per conversion (priors: the pooled rate and payout, worth ${PRIOR_CONVERSIONS} conversions). Probability best: ${samples.toLocaleString("en-US")} Monte Carlo draws from those posteriors (${METRIC_NAMES[metric]}). A winner needs a ${DECIDE_AT * 100}% probability of being best and a mixture sequential probability ratio test (mSPRT) at a ${ALPHA * 100}% error rate against every other variant, valid however often the test is looked at; "more visits each" is when that test would decide if the observed rates held.`;

  const decided = decide(variants, metric, best);
  return { metric, method, variants: results, ...decided };
}

function decide(
  variants: readonly SplitTestVariant[],
  metric: Metric,
  best: readonly number[],
): Pick<SplitTestResult, "winner" | "moreVisitsEach" | "verdict"> {
  const notDecided = (why: string) => ({ winner: null, moreVisitsEach: null, verdict: `Not decided: ${why}` });
  if (variants.length === 1) return notDecided("there is only one variant, nothing to compare.");
  if (variants.every((v) => v.conversions === 0)) return notDecided("no conversions yet, so no estimate of the visits needed.");

  const top = best.reduce((b, p, i) => (p > (best[b] ?? 0) ? i : b), 0);
  const leader = variants[top]!; // top indexes `best`, which has one entry per variant
  const pTop = best[top] ?? 0;
  const others = variants.filter((_, i) => i !== top);
  const threshold = Math.log(others.length / ALPHA); // Bonferroni over the comparisons the winner must win
  const tests = others.map((other) => ({ other, ...pairTest(leader, other, metric) }));
  const name = METRIC_NAMES[metric];
  if (pTop >= DECIDE_AT && tests.every((t) => t.diff > 0 && t.logLambda >= threshold)) {
    return {
      winner: leader.id,
      moreVisitsEach: null,
      verdict: `${leader.name} beats ${list(others.map((o) => o.name))} with ${shownProbability(pTop)} probability on ${name}.`,
    };
  }
  // The visits each at which the slowest comparison would cross the boundary, if the observed rates held.
  let needed = 0;
  for (const t of tests) {
    const n = t.diff > 0 ? visitsToDecide(t.diff, t.variance, t.tau, threshold) : Infinity;
    needed = Math.max(needed, n - Math.min(leader.visits, t.other.visits));
  }
  if (!(needed <= MAX_ESTIMATE))
    return notDecided(`no real difference in ${name} so far (more than ${MAX_ESTIMATE.toLocaleString("en-US")} more visits each at these rates).`);
  const more = roundEstimate(needed);
  return { winner: null, moreVisitsEach: more, verdict: `Not decided: about ${more.toLocaleString("en-US")} more visits each (${name}).` };
}

interface PairTest {
  /** Observed mean of a minus mean of b, per visit. */
  diff: number;
  /** One visit's variance under "no difference" (the pair's pooled figures). */
  variance: number;
  tau: number;
  logLambda: number;
}

/**
 * The mixture sequential probability ratio test of Johari, Pekelis and Walsh ("Always valid
 * inference", the test Optimizely's Stats Engine uses), on the normal approximation of the
 * difference in means, with a normal mixture N(0, tau^2) over the difference. Its likelihood ratio
 * exceeds 1/alpha with probability at most alpha when there is no difference, at any number of looks.
 * Per-visit variance under no difference: p(1 - p) for "cr"; for "epv", conversions times payouts
 * spread like an exponential (the model of posterior.ts), 2pm^2 - (pm)^2.
 */
function pairTest(a: VariantFigures, b: VariantFigures, metric: Metric): PairTest {
  const visits = a.visits + b.visits;
  const p = (a.conversions + b.conversions) / visits;
  const conversions = a.conversions + b.conversions;
  const payout = conversions > 0 ? (Math.max(0, a.revenue) + Math.max(0, b.revenue)) / conversions : 0;
  const mean = metric === "cr" ? p : p * payout;
  const variance = metric === "cr" ? p * (1 - p) : 2 * p * payout * payout - mean * mean;
  const perVisit = (v: VariantFigures) => (v.visits === 0 ? 0 : (metric === "cr" ? v.conversions : Math.max(0, v.revenue)) / v.visits);
  const diff = perVisit(a) - perVisit(b);
  const tau = TAU_RELATIVE * mean;
  if (!(variance > 0) || a.visits === 0 || b.visits === 0) return { diff, variance, tau, logLambda: -Infinity };
  return { diff, variance, tau, logLambda: logLambda(diff, variance * (1 / a.visits + 1 / b.visits), tau) };
}

function logLambda(diff: number, v: number, tau: number): number {
  const t2 = tau * tau;
  return 0.5 * Math.log(v / (v + t2)) + (t2 * diff * diff) / (2 * v * (v + t2));
}

/** The fewest visits each (equal split) at which the test would cross `threshold` if the difference stayed `diff`. */
function visitsToDecide(diff: number, variance: number, tau: number, threshold: number): number {
  const crosses = (n: number) => logLambda(diff, (2 * variance) / n, tau) >= threshold;
  let high = 1;
  while (!crosses(high)) {
    high *= 2;
    if (high > 4 * MAX_ESTIMATE) return Infinity;
  }
  let low = high / 2;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (crosses(mid)) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * A probability as the verdict shows it, rounded down so it never claims more than the draws do:
 * whole percents, one decimal above 99% (where a decided test usually is), and never "100%".
 */
export function shownProbability(p: number): string {
  if (p >= 0.999) return "over 99.9%";
  if (p >= 0.99) return `${(Math.floor(p * 1000) / 10).toFixed(1)}%`;
  return `${Math.floor(p * 100)}%`;
}

/** Two significant figures, at least 100: an estimate, not a promise. */
function roundEstimate(n: number): number {
  if (n <= 100) return 100;
  const unit = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.ceil(n / unit) * unit;
}

function list(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The Wilson score interval: stays inside [0, 1] and sensible at 0 conversions, unlike p ± 1.96·SE. */
export function wilson(conversions: number, visits: number, z = Z95): Interval {
  if (visits === 0) return { value: 0, low: 0, high: 1 };
  const p = conversions / visits;
  const z2 = z * z;
  const centre = (p + z2 / (2 * visits)) / (1 + z2 / visits);
  const half = (z / (1 + z2 / visits)) * Math.sqrt((p * (1 - p)) / visits + z2 / (4 * visits * visits));
  // Exactly 0 and 1 at the ends, where rounding would leave a trace.
  return { value: p, low: conversions === 0 ? 0 : Math.max(0, centre - half), high: conversions === visits ? 1 : Math.min(1, centre + half) };
}

function quantiles(draws: Float64Array | undefined): { low: number; high: number } {
  if (!draws || draws.length === 0) return { low: 0, high: 0 };
  const sorted = Float64Array.from(draws).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { low: at(0.025), high: at(0.975) };
}
