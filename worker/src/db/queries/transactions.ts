import { and, asc, desc, eq, getTableColumns, gte, inArray, isNotNull, lt, lte, ne, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { StatementRow } from "../../billing/parse-statement";
import type { Db } from "../../env";
import { TRANSACTIONS_PAGE_SIZE, type TransactionStatusValue } from "../../schemas/transactions";
import { statementImportRows, transactions, userVcnAssignments } from "../schema";

/**
 * Largest JSON text bound to one import statement. D1 allows 100 bound parameters and 100 KB of
 * SQL per statement, and 2 MB per value (1 MB in older documentation), so the rows travel as a
 * few JSON arrays that SQLite expands with json_each: a megabyte of a file is a statement or two.
 */
export const IMPORT_CHUNK_BYTES = 1_000_000;

const NON_ASCII = /[^\x00-\x7f]/;
const encoder = new TextEncoder();
const utf8Length = (text: string) => (NON_ASCII.test(text) ? encoder.encode(text).length : text.length);

/** Splits JSON values into JSON arrays of at most `maxBytes` bytes each. */
export function jsonChunks(values: readonly string[], maxBytes: number): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const value of values) {
    const bytes = utf8Length(value) + 1;
    if (parts.length && size + bytes > maxBytes) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      size = 2;
    }
    parts.push(value);
    size += bytes;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}

/**
 * Statements reading the stored status of each of these dedupe keys that exists, one per JSON
 * chunk, for a batch. (Query builders throughout: Drizzle's batch cannot bind the parameters of
 * raw `db.all(sql)`.)
 */
function statusReads(db: Db, keys: readonly string[], chunkBytes: number) {
  return jsonChunks(
    keys.map((k) => JSON.stringify(k)),
    chunkBytes,
  ).map((chunk) =>
    db
      .select({ k: transactions.dedupeKey, s: transactions.status })
      .from(transactions)
      .where(sql`${transactions.dedupeKey} in (select value from json_each(${chunk}))`),
  );
}

type StatusRead = ReturnType<typeof statusReads>[number];

/** The statuses a batch's first `reads` statements found, by key. */
function statusesFound(results: readonly unknown[], reads: number) {
  const found = new Map<string, TransactionStatusValue>();
  for (const result of results.slice(0, reads) as Awaited<StatusRead>[]) {
    for (const { k, s } of result) found.set(k, s);
  }
  return found;
}

/** The stored status of each of these dedupe keys that exists. One round trip, whatever the count. */
export async function storedStatuses(db: Db, keys: readonly string[], chunkBytes = IMPORT_CHUNK_BYTES) {
  const [first, ...rest] = statusReads(db, keys, chunkBytes);
  if (!first) return new Map<string, TransactionStatusValue>();
  return statusesFound(await db.batch([first, ...rest]), rest.length + 1);
}

/**
 * A row as the JSON tuple the import sends: the transactions table's columns in table order
 * after `id` (Drizzle's INSERT ... SELECT names every column of the table, in its order).
 */
const tuple = (r: StatementRow) =>
  JSON.stringify([
    r.registeredCardLast4,
    r.fundingSource,
    r.typeOfAccount,
    r.transactionDate,
    r.clearDate,
    r.type,
    r.status,
    r.nameOnCard,
    r.authBillingAmountCents,
    r.merchantName,
    r.merchantCity,
    r.merchantState,
    r.vcnNickname,
    r.vcnLast4,
    r.referenceId,
    r.dedupeKey,
  ]);

const TUPLE_WIDTH = 16;
/** The tuple's values as the columns of a SELECT, from the JSON array in `source`. */
const tupleColumns = (source: string) => sql.raw(Array.from({ length: TUPLE_WIDTH }, (_, i) => `${source} ->> ${i}`).join(", "));

/** Every column an import may overwrite: all but the id and the key that matched. */
const updateFromExcluded = Object.fromEntries(
  Object.entries(getTableColumns(transactions))
    .filter(([name]) => name !== "id" && name !== "dedupeKey")
    .map(([name, column]) => [name, sql.raw(`excluded.${column.name}`)]),
);

/**
 * Inserts the transactions `select` yields and updates the stored ones they match. The DO UPDATE
 * guard is the status rule of billing/plan-import.ts (`mayChange`), so the table stays right
 * even when another upload changed a row between the import's read and this write, and a
 * transaction that ends a file where it began is left as it was.
 */
const upsertTransactions = (db: Db, select: SQL) =>
  db
    .insert(transactions)
    .select(select)
    .onConflictDoUpdate({
      target: transactions.dedupeKey,
      set: updateFromExcluded,
      setWhere: sql`${transactions.status} <> 'CLEARED' and ${transactions.status} <> excluded.status`,
    });

/**
 * Inserts new transactions and updates changed ones, all in one db.batch: D1 runs a batch as one
 * transaction, so a failure in any chunk leaves the table as it was. For rows held whole (an
 * upload read before it filled one staging chunk, billing/import-statement.ts).
 */
export async function writeStatementRows(
  db: Db,
  rows: readonly StatementRow[],
  now: number,
  { chunkBytes = IMPORT_CHUNK_BYTES, alongside = [] }: { chunkBytes?: number; alongside?: BatchItem<"sqlite">[] } = {},
) {
  const writes = jsonChunks(rows.map(tuple), chunkBytes).map((chunk) =>
    upsertTransactions(db, sql`select null, ${tupleColumns("value")}, ${now} from json_each(${chunk}) where true`),
  );
  // `alongside` (the upload's audit entry) is written in the same atomic batch.
  const [first, ...rest] = [...writes, ...alongside];
  if (first) await db.batch([first, ...rest]);
}

/** A staged element's dedupe key: the tuple's last value (an integer literal: a bound number is a REAL, which `->>` reads as an object key). */
const STAGED_KEY = sql.raw(`value -> 1 ->> ${TUPLE_WIDTH - 1}`);

/**
 * Statements staging rows of upload `uploadId` (in file order): one staged row per transaction,
 * holding the last of its rows and the line of the first.
 */
function stagingWrites(db: Db, uploadId: string, rows: readonly StatementRow[], now: number, chunkBytes: number) {
  const t = statementImportRows;
  return jsonChunks(
    rows.map((r) => `[${r.line},${tuple(r)}]`),
    chunkBytes,
  ).map((chunk) =>
    db
      .insert(t)
      .select(sql`select null, ${uploadId}, ${STAGED_KEY}, value ->> 0, value -> 1, ${now} from json_each(${chunk}) where true`)
      .onConflictDoUpdate({ target: [t.uploadId, t.dedupeKey], set: { row: sql.raw(`excluded.${t.row.name}`) } }),
  );
}

/**
 * One round trip of a staged upload: stages `rows` (changes already planned) and reads the stored
 * status of `keys` (the next rows' new transactions). Staged rows are invisible until
 * `applyStagedRows`.
 */
export async function stageRowsAndReadStatuses(
  db: Db,
  uploadId: string,
  { rows, keys, now, chunkBytes = IMPORT_CHUNK_BYTES }: { rows: readonly StatementRow[]; keys: readonly string[]; now: number; chunkBytes?: number },
) {
  const reads = statusReads(db, keys, chunkBytes);
  const [first, ...rest] = [...reads, ...stagingWrites(db, uploadId, rows, now, chunkBytes)];
  if (!first) return new Map<string, TransactionStatusValue>();
  return statusesFound(await db.batch([first, ...rest]), reads.length);
}

/**
 * The end of a staged upload, in one atomic batch: stages its last `rows`, writes every staged
 * transaction to the table (in the order the file first changed them, so new rows get ids in file
 * order), deletes the staged rows, and writes `alongside` (the audit entry). A failure leaves
 * the table as it was.
 */
export async function applyStagedRows(
  db: Db,
  uploadId: string,
  {
    rows,
    now,
    alongside = [],
    chunkBytes = IMPORT_CHUNK_BYTES,
  }: { rows: readonly StatementRow[]; now: number; alongside?: BatchItem<"sqlite">[]; chunkBytes?: number },
) {
  const t = statementImportRows;
  const apply = upsertTransactions(
    db,
    sql`select null, ${tupleColumns(t.row.name)}, ${now} from ${t} where ${t.uploadId} = ${uploadId} order by ${t.firstLine}`,
  );
  const after = [dropStagedRows(db, uploadId), ...alongside];
  const [first, ...rest] = stagingWrites(db, uploadId, rows, now, chunkBytes);
  await (first ? db.batch([first, ...rest, apply, ...after]) : db.batch([apply, ...after]));
}

/** Deletes what upload `uploadId` staged (an upload that failed or was refused part way). */
export const dropStagedRows = (db: Db, uploadId: string) => db.delete(statementImportRows).where(eq(statementImportRows.uploadId, uploadId));

/** Deletes rows staged before `before` (uploads cut off before they could clean up). */
export const dropAbandonedStagedRows = (db: Db, before: number) => db.delete(statementImportRows).where(lt(statementImportRows.createdAt, before));

/**
 * Who is looking: admins see every transaction; a member only those whose VCN nickname is
 * assigned to them (docs/product-rules.md), in every list, total and choice.
 */
export type Viewer = { role: "admin" } | { role: "user"; id: string };

function visibleTo(db: Db, viewer: Viewer): SQL | undefined {
  if (viewer.role === "admin") return undefined;
  return inArray(
    transactions.vcnNickname,
    db.select({ n: userVcnAssignments.vcnNickname }).from(userVcnAssignments).where(eq(userVcnAssignments.userId, viewer.id)),
  );
}

export interface TransactionFilters {
  status?: TransactionStatusValue;
  vcnLast4?: string;
  minCents?: number;
  maxCents?: number;
}

// Aliased: D1 names unaliased result columns by their SQL text, and these differ only in a bound
// parameter, so without names they would overwrite each other in the row object.
const centsWhere = (status: SQL, name: string) =>
  sql<number>`coalesce(sum(case when ${status} then ${transactions.authBillingAmountCents} end), 0)`.mapWith(Number).as(name);
const countWhere = (status: SQL, name: string) => sql<number>`coalesce(sum(case when ${status} then 1 else 0 end), 0)`.mapWith(Number).as(name);
const isStatus = (s: TransactionStatusValue) => sql`${transactions.status} = ${s}`;

/**
 * One page of transactions (newest transaction date first) with the figures of the summary
 * cards over every matching row, read in one batch so the page and the totals agree.
 */
export async function listTransactions(db: Db, viewer: Viewer, filters: TransactionFilters, page: number) {
  const where = and(
    visibleTo(db, viewer),
    filters.status ? eq(transactions.status, filters.status) : undefined,
    filters.vcnLast4 ? eq(transactions.vcnLast4, filters.vcnLast4) : undefined,
    filters.minCents !== undefined ? gte(transactions.authBillingAmountCents, filters.minCents) : undefined,
    filters.maxCents !== undefined ? lte(transactions.authBillingAmountCents, filters.maxCents) : undefined,
  );
  const notDeclined = sql`${transactions.status} <> 'DECLINED'`;
  const [rows, [totals]] = await db.batch([
    db
      .select()
      .from(transactions)
      .where(where)
      .orderBy(sql`${transactions.transactionDate} desc nulls last`, desc(transactions.id))
      .limit(TRANSACTIONS_PAGE_SIZE)
      .offset((page - 1) * TRANSACTIONS_PAGE_SIZE),
    db
      .select({
        rows: sql<number>`count(*)`.mapWith(Number).as("row_count"),
        totalCount: countWhere(notDeclined, "total_count"),
        totalCents: centsWhere(notDeclined, "total_cents"),
        pendingCount: countWhere(isStatus("PENDING"), "pending_count"),
        pendingCents: centsWhere(isStatus("PENDING"), "pending_cents"),
        clearedCount: countWhere(isStatus("CLEARED"), "cleared_count"),
        clearedCents: centsWhere(isStatus("CLEARED"), "cleared_cents"),
        declinedCount: countWhere(isStatus("DECLINED"), "declined_count"),
        declinedCents: centsWhere(isStatus("DECLINED"), "declined_cents"),
      })
      .from(transactions)
      .where(where),
  ]);
  return { rows, totals: totals! };
}

export const UNKNOWN_VCN = "Unknown VCN";

/**
 * Spend per VCN nickname (docs/screens.md §9): PENDING and CLEARED only, a missing nickname grouped as
 * 'Unknown VCN', largest total first, optionally within transaction dates (both inclusive).
 */
export function vcnSpendSummary(db: Db, viewer: Viewer, range: { startDate?: string; endDate?: string }) {
  const nickname = sql<string>`coalesce(nullif(${transactions.vcnNickname}, ''), ${UNKNOWN_VCN})`;
  const spend = sql<number>`coalesce(sum(${transactions.authBillingAmountCents}), 0)`.mapWith(Number);
  return db
    .select({ vcnNickname: nickname, transactions: sql<number>`count(*)`.mapWith(Number), spendCents: spend })
    .from(transactions)
    .where(
      and(
        visibleTo(db, viewer),
        ne(transactions.status, "DECLINED"),
        range.startDate ? gte(transactions.transactionDate, range.startDate) : undefined,
        range.endDate ? lte(transactions.transactionDate, range.endDate) : undefined,
      ),
    )
    .groupBy(nickname)
    .orderBy(desc(spend), asc(nickname));
}

/** The VCN Last 4 values the viewer's transactions carry: the choices of the filter select. */
export async function vcnLast4Choices(db: Db, viewer: Viewer) {
  const rows = await db
    .selectDistinct({ v: transactions.vcnLast4 })
    .from(transactions)
    .where(and(visibleTo(db, viewer), isNotNull(transactions.vcnLast4), ne(transactions.vcnLast4, "")))
    .orderBy(asc(transactions.vcnLast4));
  return rows.map((r) => r.v).filter((v): v is string => v !== null);
}
