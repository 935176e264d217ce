import type { TransactionStatusValue } from "../schemas/transactions";
import { LineList, type StatementRow } from "./parse-statement";

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
 * Applies the import rules of docs/product-rules.md "Billing import" to an export's rows against what is
 * stored, as if the rows were applied one by one in file order (so a file listing a transaction
 * twice counts both). Rows come in batches (`add`), each with the stored status of the keys it
 * names for the first time (`newKeys`), so a streamed file is planned as it is read: what it keeps
 * is one status per transaction, never the rows.
 */
export class ImportPlanner {
  readonly counts: ImportCounts = { count: 0, clearedCount: 0, pendingDeclinedCount: 0, duplicateCount: 0 };
  /** Each transaction's status as the rows so far leave it (the stored one until a row changes it). */
  private readonly current = new Map<string, TransactionStatusValue>();
  private readonly seenInFile = new Set<string>();
  private readonly stale = new LineList();
  private readonly repeated = new LineList();

  /** The keys among `rows` that no earlier row named: their stored status must be read before `add`. */
  newKeys(rows: readonly StatementRow[]): string[] {
    return [...new Set(rows.map((r) => r.dedupeKey).filter((k) => !this.seenInFile.has(k)))];
  }

  /**
   * Applies `rows` (the file's next rows, in order), given the stored status of their new keys.
   * Returns the rows that changed a transaction, in order: the last of them for a key is what it
   * ends as (the write's DO UPDATE guard keeps one that ends where it began as it was).
   */
  add(rows: readonly StatementRow[], stored: ReadonlyMap<string, TransactionStatusValue>): StatementRow[] {
    const changed: StatementRow[] = [];
    for (const row of rows) {
      const key = row.dedupeKey;
      if (this.seenInFile.has(key)) this.repeated.add(row.line);
      else {
        this.seenInFile.add(key);
        const status = stored.get(key);
        if (status !== undefined) this.current.set(key, status);
      }
      const before = this.current.get(key);
      if (before !== undefined && !mayChange(before, row.status)) {
        this.counts.duplicateCount++;
        if (before !== row.status) this.stale.add(row.line);
        continue;
      }
      if (row.status === "CLEARED") this.counts.clearedCount++;
      else this.counts.pendingDeclinedCount++;
      this.counts.count++;
      this.current.set(key, row.status);
      changed.push(row);
    }
    return changed;
  }

  notes(): string[] {
    const notes: string[] = [];
    const { stale, repeated } = this;
    if (stale.count) {
      notes.push(
        `${stale.count} row${stale.count > 1 ? "s" : ""} already stored as CLEARED arrived with an older status and ${stale.count > 1 ? "were" : "was"} skipped as duplicate${stale.count > 1 ? "s" : ""} (${stale.describe()})`,
      );
    }
    if (repeated.count) {
      notes.push(`${repeated.count} row${repeated.count > 1 ? "s" : ""} repeat a transaction listed earlier in this file (${repeated.describe()})`);
    }
    return notes;
  }
}

/**
 * The plan for rows held whole (ImportPlanner over one batch): the counts, and the rows the
 * write must send, one per transaction, in the order each was first changed. A transaction that
 * ends the file where it began (PENDING -> DECLINED -> PENDING) needs no write.
 */
export function planImport(rows: readonly StatementRow[], stored: ReadonlyMap<string, TransactionStatusValue>): ImportPlan {
  const planner = new ImportPlanner();
  const latest = new Map<string, StatementRow>();
  for (const row of planner.add(rows, stored)) latest.set(row.dedupeKey, row);
  const writes = [...latest.values()].filter((row) => stored.get(row.dedupeKey) !== row.status);
  return { ...planner.counts, writes, notes: planner.notes() };
}
