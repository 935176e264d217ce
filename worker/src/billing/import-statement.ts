import { storedStatuses, writeStatementRows } from "../db/queries/transactions";
import type { Db } from "../env";
import { parseStatement } from "./parse-statement";
import { planImport } from "./plan-import";

/** Row problems listed in one answer; the rest are counted in errorCount and summarised. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The upload answer (spec §3 "Upload response"). `warnings`: one "Line N: reason" per row that
 * was not stored (what the screen's 'Validation Warnings' toast shows). `details`: how the file
 * was read where that matters (padded digits, stale or repeated rows), nothing that was refused.
 */
export interface StatementImportResult {
  count: number;
  clearedCount: number;
  pendingDeclinedCount: number;
  duplicateCount: number;
  errorCount: number;
  warnings: string[];
  details: string[];
}

/**
 * A statement's text (billing/decode-statement.ts) imported end to end: parse and validate
 * (refusing a file that is not an export), read the stored status of every transaction the file
 * names, apply the import rules, and write every change in one atomic batch.
 */
export async function importStatement(db: Db, text: string, now = Date.now()): Promise<StatementImportResult> {
  const { rows, problems, notes } = parseStatement(text);
  const stored = await storedStatuses(db, [...new Set(rows.map((r) => r.dedupeKey))]);
  const plan = planImport(rows, stored);
  await writeStatementRows(db, plan.writes, now);

  const warnings = problems.slice(0, MAX_LISTED_PROBLEMS);
  if (problems.length > MAX_LISTED_PROBLEMS) {
    warnings.push(`...and ${problems.length - MAX_LISTED_PROBLEMS} more rows with errors were not stored`);
  }
  return {
    count: plan.count,
    clearedCount: plan.clearedCount,
    pendingDeclinedCount: plan.pendingDeclinedCount,
    duplicateCount: plan.duplicateCount,
    errorCount: problems.length,
    warnings,
    details: [...notes, ...plan.notes],
  };
}
