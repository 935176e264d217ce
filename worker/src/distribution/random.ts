/**
 * Seeded random numbers for the traffic optimiser and the split-test verdict
 * (docs/traffic-distribution-statistics.md). Seeded so that a weight change can be recomputed
 * from the figures kept with it, and so the tests and the simulation repeat exactly.
 */

/** A source of uniform numbers in [0, 1). */
export type Rng = () => number;

/**
 * mulberry32: a 32-bit state generator, fast and good enough for Monte Carlo (it passes
 * gjrand's and TestU01's small batteries); not for secrets. The seed is any number (its low 32 bits).
 */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from text (FNV-1a), e.g. a path id and the cron's hour, so each run has its own stream. */
export function seedFrom(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Box-Muller makes normals in pairs; the second is kept for the next call with the same source
 * (Gamma draws need one normal each, and the logarithm and root are most of their cost). Keyed by
 * the source, so a fresh source with the same seed repeats the same numbers.
 */
let spareSource: Rng | null = null;
let spare = 0;

/** A standard normal draw (Box-Muller). 1 - rng() keeps the logarithm's argument in (0, 1]. */
export function normal(rng: Rng): number {
  if (spareSource === rng) {
    spareSource = null;
    return spare;
  }
  const radius = Math.sqrt(-2 * Math.log(1 - rng()));
  const angle = 2 * Math.PI * rng();
  spare = radius * Math.sin(angle);
  spareSource = rng;
  return radius * Math.cos(angle);
}

/**
 * A Gamma(shape, 1) draw by Marsaglia and Tsang's method (a squeeze on a transformed normal:
 * about 1.03 normal draws per result, any shape, no tables). Below shape 1 it draws at shape + 1
 * and scales by U^(1/shape), the method's own boost.
 */
export function gamma(rng: Rng, shape: number): number {
  if (!(shape > 0)) throw new RangeError(`Gamma shape must be positive, got ${shape}`);
  if (shape < 1) return gamma(rng, shape + 1) * Math.pow(1 - rng(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(rng);
    let v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const u = rng();
    const x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2) return d * v;
    if (Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A Beta(a, b) draw as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b). */
export function beta(rng: Rng, a: number, b: number): number {
  const x = gamma(rng, a);
  return x / (x + gamma(rng, b));
}
