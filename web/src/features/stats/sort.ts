/** The table's sort (docs/screens.md §4): revenue, largest first, until someone picks another column. */
export type SortDirection = "asc" | "desc";
export interface Sort<K extends string = string> {
  key: K;
  direction: SortDirection;
}

/**
 * Choosing the column already sorted on flips its direction; choosing another column sorts it
 * descending (docs/screens.md §4).
 */
export function nextSort<K extends string>(current: Sort<K>, key: K): Sort<K> {
  if (current.key === key) return { key, direction: current.direction === "desc" ? "asc" : "desc" };
  return { key, direction: "desc" };
}

/** Money arrives as decimal text ("12.34"), counts and ratios as numbers; null sorts as nothing. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const na = Number(a);
  const nb = Number(b);
  if (typeof a === "string" && typeof b === "string" && (!Number.isFinite(na) || !Number.isFinite(nb) || a.trim() === "" || b.trim() === "")) {
    return a.localeCompare(b, undefined, { sensitivity: "base", numeric: true });
  }
  return na - nb;
}

/**
 * A sorted copy. Names compare as text (ignoring case, digits by value), figures as numbers.
 * Ties keep a fixed order (by name, then key), so a refresh every 30 seconds never shuffles
 * equal rows.
 */
export function sortRows<R extends { key: string; name: string }, K extends string>(
  rows: readonly R[],
  sort: Sort<K>,
  valueOf: (row: R, key: K) => unknown,
): R[] {
  const sign = sort.direction === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const primary = compareValues(valueOf(a, sort.key), valueOf(b, sort.key)) * sign;
    if (primary !== 0) return primary;
    return a.name.localeCompare(b.name, undefined, { sensitivity: "base", numeric: true }) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  });
}
