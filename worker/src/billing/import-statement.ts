import { storedStatuses, writeStatementRows } from "../db/queries/transactions";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../env";
import { parseStatement } from "./parse-statement";
import { planImport } from "./plan-import";

/** Row problems listed in one answer; the rest are counted in errorCount and summarised. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The upload answer (docs/screens.md §3). `warnings`: one "Line N: reason" per row that
 * was not stored (what the screen's 'Validation Warnings' toast shows). `details`: how the file
 * was read where that matters (padded digits, stale or repeated rows), nothing that was refused.
 */
export interface StatementCounts {
  count: number;
  clearedCount: number;
  pendingDeclinedCount: number;
  duplicateCount: number;
  errorCount: number;
}

export interface StatementImportResult extends StatementCounts {
  warnings: string[];
  details: string[];
}

/**
 * A statement's text (billing/decode-statement.ts) imported end to end: parse and validate
 * (refusing a file that is not an export), read the stored status of every transaction the file
 * names, apply the import rules, and write every change in one atomic batch.
 */
export async function importStatement(
  db: Db,
  text: string,
  { now = Date.now(), alongside }: { now?: number; alongside?: (counts: StatementCounts) => BatchItem<"sqlite">[] } = {},
): Promise<StatementImportResult> {
  const { rows, problems, notes } = parseStatement(text);
  const stored = await storedStatuses(db, [...new Set(rows.map((r) => r.dedupeKey))]);
  const plan = planImport(rows, stored);
  const counts = {
    count: plan.count,
    clearedCount: plan.clearedCount,
    pendingDeclinedCount: plan.pendingDeclinedCount,
    duplicateCount: plan.duplicateCount,
    errorCount: problems.length,
  };
  // `alongside` (the upload's audit entry) goes into the same atomic batch as the rows.
  await writeStatementRows(db, plan.writes, now, { alongside: alongside?.(counts) });

  const warnings = problems.slice(0, MAX_LISTED_PROBLEMS);
  if (problems.length > MAX_LISTED_PROBLEMS) {
    warnings.push(`...and ${problems.length - MAX_LISTED_PROBLEMS} more rows with errors were not stored`);
  }
  return {
    ...counts,
    warnings,
    details: [...notes, ...plan.notes],
  };
}
