/**
 * A D1 binding that counts the statements sent through it, for the worker tests and the bench
 * (scripts/bench/public-load.mjs) that show what the public routes cost in D1
 * (docs/tracking.md "What the public routes do"). Drizzle prepares every statement it runs, a batch's too,
 * so `prepare` calls are the statements; `exec` (raw SQL) counts as one. Nothing in the Worker
 * itself uses this.
 */
export interface D1Tally {
  /** Statements prepared (or exec'd). */
  queries: number;
  /** Batches sent (each one round trip holding several of the statements above). */
  batches: number;
}

/** `inner` counting into `tally` (a fresh one unless given: the bench keeps one for every request). */
export function countD1(inner: D1Database, tally: D1Tally = { queries: 0, batches: 0 }): { db: D1Database; tally: D1Tally } {
  const db = new Proxy(inner, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      const counted = name === "prepare" || name === "exec" ? "queries" : name === "batch" ? "batches" : null;
      return (...args: unknown[]) => {
        if (counted) tally[counted]++;
        return Reflect.apply(value, target, args) as unknown;
      };
    },
  });
  return { db, tally };
}
