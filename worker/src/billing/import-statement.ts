import type { BatchItem } from "drizzle-orm/batch";
import { applyStagedRows, dropStagedRows, IMPORT_CHUNK_BYTES, stageRowsAndReadStatuses, storedStatuses, writeStatementRows } from "../db/queries/transactions";
import type { Db } from "../env";
import { ApiError } from "../lib/errors";
import { StatementDecoder } from "./decode-statement";
import { StatementReader, type StatementRow } from "./parse-statement";
import { ImportPlanner, planImport } from "./plan-import";

/** Row problems listed in one answer; the rest are counted in errorCount and summarised. */
export const MAX_LISTED_PROBLEMS = 100;
/**
 * Rows read before they are planned and staged, or text, whichever comes first: a round's rows,
 * their text and their JSON stay a few megabytes. A file within one round is written directly.
 */
const STAGE_ROWS = 10_000;
const STAGE_CHARS = 4 * 1024 * 1024;
/** Text handed to the parser at a time, so that the rows read between two stagings stay few. */
const PIECE_CHARS = 64 * 1024;

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

export interface ImportOptions {
  now?: number;
  /** Written in the same atomic batch as the rows (the upload's audit entry), given the counts. */
  alongside?: (counts: StatementCounts) => BatchItem<"sqlite">[];
  /** Names the rows this upload stages. */
  uploadId?: string;
  stageRows?: number;
  stageChars?: number;
  chunkBytes?: number;
}

/**
 * A statement upload imported end to end as its bytes arrive, so that a 10 MB file never sits in
 * memory whole (docs/data.md "Billing statements and invoicing"): decode (refusing what is not UTF-8 text),
 * parse and validate (refusing a file that is not an export), read the stored status of the
 * transactions the rows name, apply the import rules, and write.
 *
 * All or nothing (docs/product-rules.md): a file that ends within one staging round is written
 * in one batch, as it always was. A larger one is planned a few thousand rows at a time; each round
 * trip stages the changes planned so far in `statement_import_rows` under this upload's id, where
 * nothing reads them, and the last batch moves every staged row to `transactions` with
 * set-based statements and deletes them, in one transaction. A refusal or failure before that
 * deletes what was staged (the cron deletes what an upload cut off leaves).
 */
export async function importStatement(
  db: Db,
  content: AsyncIterable<Uint8Array>,
  {
    now = Date.now(),
    alongside,
    uploadId = crypto.randomUUID(),
    stageRows = STAGE_ROWS,
    stageChars = STAGE_CHARS,
    chunkBytes = IMPORT_CHUNK_BYTES,
  }: ImportOptions = {},
): Promise<StatementImportResult> {
  const decoder = new StatementDecoder();
  let pending: StatementRow[] = [];
  const reader = new StatementReader((row) => pending.push(row), { maxProblems: MAX_LISTED_PROBLEMS });
  const planner = new ImportPlanner();
  let staged = false;
  /** Changes planned but not staged yet: they go with the next round trip. */
  let planned: StatementRow[] = [];
  let pendingChars = 0;

  /** One round trip: stages the changes planned so far, and reads what the next rows need to be planned. */
  const stageRound = async () => {
    const rows = pending.slice(0, stageRows);
    pending = pending.slice(stageRows);
    pendingChars = 0;
    staged = true;
    const stored = await stageRowsAndReadStatuses(db, uploadId, { rows: planned, keys: planner.newKeys(rows), now, chunkBytes });
    planned = planner.add(rows, stored);
  };
  const read = async (text: string) => {
    for (let at = 0; at < text.length; at += PIECE_CHARS) {
      const piece = text.slice(at, at + PIECE_CHARS);
      reader.push(piece);
      pendingChars += piece.length;
      while (pending.length >= stageRows || (pending.length > 0 && pendingChars >= stageChars)) await stageRound();
    }
  };

  try {
    // A refused file is still read to its end: a refusal of its bytes (too large, not text) wins
    // over one of its rows, as it did when the file was decoded whole before parsing.
    let refused: ApiError | undefined;
    for await (const bytes of content) {
      const text = decoder.write(bytes);
      if (!text || refused) continue;
      try {
        await read(text);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        refused = err;
      }
    }
    const rest = decoder.end();
    if (refused) throw refused;
    await read(rest);
    const { notes } = reader.end();
    const errorCount = reader.problemCount;

    let counts: StatementCounts;
    let planNotes: string[];
    if (!staged && pending.length <= stageRows) {
      const plan = planImport(pending, await storedStatuses(db, [...new Set(pending.map((r) => r.dedupeKey))], chunkBytes));
      counts = {
        count: plan.count,
        clearedCount: plan.clearedCount,
        pendingDeclinedCount: plan.pendingDeclinedCount,
        duplicateCount: plan.duplicateCount,
        errorCount,
      };
      planNotes = plan.notes;
      await writeStatementRows(db, plan.writes, now, { chunkBytes, alongside: alongside?.(counts) });
    } else {
      while (pending.length) await stageRound();
      counts = { ...planner.counts, errorCount };
      planNotes = planner.notes();
      await applyStagedRows(db, uploadId, { rows: planned, now, chunkBytes, alongside: alongside?.(counts) });
    }

    const warnings = [...reader.problems];
    if (errorCount > MAX_LISTED_PROBLEMS) warnings.push(`...and ${errorCount - MAX_LISTED_PROBLEMS} more rows with errors were not stored`);
    return { ...counts, warnings, details: [...notes, ...planNotes] };
  } catch (err) {
    if (staged) {
      try {
        await dropStagedRows(db, uploadId);
      } catch (cleanup) {
        // The upload's own error is the answer; what stays staged is the cron's (jobs/purge-statement-imports.ts).
        console.error(`deleting the rows staged by upload ${uploadId} failed`, cleanup);
      }
    }
    throw err;
  }
}
