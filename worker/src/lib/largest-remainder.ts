/**
 * Whole numbers summing to `total` from real shares that sum to it (Hamilton's largest remainder):
 * each rounded down, the units left over going to the largest fractions, ties to the earlier variant.
 * A share that is already whole keeps its value, so pins and floors survive the rounding.
 */
export function largestRemainder(shares: readonly number[], total: number): number[] {
  const down = shares.map((s) => Math.floor(s + 1e-9));
  let left = total - down.reduce((a, b) => a + b, 0);
  const order = shares.map((s, i) => ({ i, frac: s - Math.floor(s + 1e-9) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  // Indices from `order` are in range of `down` (same length).
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) down[order[k]!.i]!++;
  // Shares a hair under a whole number were rounded up above; take any excess from the smallest fractions.
  for (let k = order.length - 1; left < 0 && k >= 0; k--, left++) down[order[k]!.i]!--;
  return down;
}
