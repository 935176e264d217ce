/**
 * A D1 binding that counts the statements sent through it, for the tests and the bench that show
 * what the public routes cost in D1 (README "What the public routes do"). Drizzle prepares every
 * statement it runs, a batch's too, so `prepare` calls are the statements; `exec` (raw SQL, never
 * used by the app) counts as one. Nothing in the Worker itself uses this.
 */
export interface CountedD1 {
  db: D1Database;
  /** Statements prepared (or exec'd) so far. */
  queries: () => number;
  /** Batches sent so far (each one round trip holding several of the statements above). */
  batches: () => number;
}

export function countD1(inner: D1Database): CountedD1 {
  let queries = 0;
  let batches = 0;
  const db = new Proxy(inner, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (name === "prepare" || name === "exec") {
        return (...args: unknown[]) => {
          queries++;
          return Reflect.apply(value, target, args);
        };
      }
      if (name === "batch") {
        return (...args: unknown[]) => {
          batches++;
          return Reflect.apply(value, target, args);
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return { db, queries: () => queries, batches: () => batches };
}
