import type { TransactionStatusValue } from "../schemas/transactions";
import { describeLines, type StatementRow } from "./parse-statement";

export interface ImportCounts {
  /** Transactions added or changed: clearedCount + pendingDeclinedCount. */
  count: number;
  clearedCount: number;
  pendingDeclinedCount: number;
  duplicateCount: number;
}

export interface ImportPlan extends ImportCounts {
  /** One row per transaction to insert or update, in file order. */
  writes: StatementRow[];
  notes: string[];
}

/**
 * Whether a stored status may be replaced by an incoming one. docs/product-rules.md: PENDING -> CLEARED and
 * PENDING <-> DECLINED update the row. Not listed there, so ours: CLEARED is final (a CLEARED row
 * never goes back: an older file uploaded after a newer one is skipped), and DECLINED -> CLEARED
 * is taken (the provider settled it; ignoring that would hide real spend). The import's SQL
 * enforces the same rule (db/queries/transactions.ts), so a concurrent upload cannot break it.
 */
export const mayChange = (stored: TransactionStatusValue, incoming: TransactionStatusValue) => stored !== "CLEARED" && stored !== incoming;

/**
 * Applies the import rules of docs/product-rules.md "Billing import" to an export's rows against what is stored, as if the rows
 * were applied one by one in file order (so a file listing a transaction twice counts both).
 * Returns the counts and the rows the write must send; pure, so every rule is tested directly.
 */
export function planImport(rows: readonly StatementRow[], stored: ReadonlyMap<string, TransactionStatusValue>): ImportPlan {
  const counts: ImportCounts = { count: 0, clearedCount: 0, pendingDeclinedCount: 0, duplicateCount: 0 };
  const current = new Map<string, TransactionStatusValue>(stored);
  const latest = new Map<string, StatementRow>();
  const seenInFile = new Set<string>();
  const stale: number[] = [];
  const repeated: number[] = [];

  for (const row of rows) {
    const before = current.get(row.dedupeKey);
    if (seenInFile.has(row.dedupeKey)) repeated.push(row.line);
    seenInFile.add(row.dedupeKey);
    if (before !== undefined && !mayChange(before, row.status)) {
      counts.duplicateCount++;
      if (before !== row.status) stale.push(row.line);
      continue;
    }
    if (row.status === "CLEARED") counts.clearedCount++;
    else counts.pendingDeclinedCount++;
    current.set(row.dedupeKey, row.status);
    latest.set(row.dedupeKey, row);
  }
  counts.count = counts.clearedCount + counts.pendingDeclinedCount;

  // A transaction that went PENDING -> DECLINED -> PENDING within one file ends where it began.
  const writes = [...latest.values()].filter((row) => stored.get(row.dedupeKey) !== row.status);

  const notes: string[] = [];
  if (stale.length) {
    notes.push(
      `${stale.length} row${stale.length > 1 ? "s" : ""} already stored as CLEARED arrived with an older status and ${stale.length > 1 ? "were" : "was"} skipped as duplicate${stale.length > 1 ? "s" : ""} (${describeLines(stale)})`,
    );
  }
  if (repeated.length) {
    notes.push(`${repeated.length} row${repeated.length > 1 ? "s" : ""} repeat a transaction listed earlier in this file (${describeLines(repeated)})`);
  }
  return { ...counts, writes, notes };
}
