import Papa from "papaparse";
import { badRequest } from "../lib/errors";
import { parseCents } from "../lib/money";
import { realDay } from "../schemas/calendar-date";
import { normalizeLast4, TRANSACTION_STATUS_VALUES, type TransactionStatusValue } from "../schemas/transactions";
import { columnLabel, locateColumns, type StatementColumn } from "./statement-columns";

/** One valid transaction of an export, as it will be stored. */
export interface StatementRow {
  /** Where the row starts in the file (the header is line 1). */
  line: number;
  /** Reference Id, or card/VCN/date/amount/merchant when there is none (docs/product-rules.md). */
  dedupeKey: string;
  registeredCardLast4: string;
  fundingSource: string | null;
  typeOfAccount: string | null;
  transactionDate: string | null;
  clearDate: string | null;
  type: string | null;
  status: TransactionStatusValue;
  nameOnCard: string | null;
  authBillingAmountCents: number | null;
  merchantName: string | null;
  merchantCity: string | null;
  merchantState: string | null;
  vcnNickname: string | null;
  vcnLast4: string | null;
  referenceId: string | null;
}

export interface ParsedStatement {
  rows: StatementRow[];
  /** One "Line N: reason" per row that was not stored. */
  problems: string[];
  /** How the file was read where that is worth knowing (padded digits, positive refunds). */
  notes: string[];
}

/**
 * Longest value kept from one cell. Real exports stay far below it; the bound keeps every row
 * well inside D1's per-value limit and the import's JSON chunks (db/queries/transactions.ts).
 */
export const MAX_CELL_CHARS = 1000;
/**
 * Most transactions one file may carry. The 10 MB limit alone would admit ~400,000 rows of a
 * three-column file; this keeps the rows held in memory well inside a Worker's 128 MB.
 */
export const MAX_STATEMENT_ROWS = 100_000;
/** Distinct cell values shared between rows (see `intern`); beyond it new values are kept as read. */
const MAX_SHARED_VALUES = 20_000;
/** Amounts up to the product's decimal(10,2). */
const MAX_AMOUNT_CENTS = 99_999_999_99;

const STATUSES = new Set<string>(TRANSACTION_STATUS_VALUES);

/** `M/D/YY` (the export), `M/D/YYYY` or `YYYY-MM-DD`, optionally followed by a time, to `YYYY-MM-DD`. */
export function parseExportDate(raw: string): string | null {
  let y: number, m: number, d: number;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})(?:[ T].*)?$/.exec(raw);
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[ T].*)?$/.exec(raw);
  if (us) {
    [m, d, y] = [Number(us[1]), Number(us[2]), Number(us[3])];
    // Two-digit years are this century: card exports do not reach back to the 1900s.
    if (us[3]!.length === 2) y += 2000;
  } else if (iso) {
    [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else {
    return null;
  }
  return realDay(y, m, d);
}

/**
 * Cents from the export's amount text ("28.27", "-45.00"), also accepting what a spreadsheet
 * adds when it re-saves one: a $ sign, thousands separators, accounting parentheses.
 */
export function parseExportAmount(raw: string): number | null {
  let text = raw.replace(/\s+/g, "");
  let negative = false;
  const paren = /^\((.*)\)$/.exec(text);
  if (paren) [negative, text] = [true, paren[1]!];
  if (text.startsWith("-")) [negative, text] = [!negative, text.slice(1)];
  text = text.replace(/^\$/, "");
  if (/^\d{1,3}(,\d{3})+(\.\d*)?$/.test(text)) text = text.replace(/,/g, "");
  if (!/^\d/.test(text)) return null;
  const cents = parseCents(text);
  if (cents === null || cents > MAX_AMOUNT_CENTS) return null;
  return negative && cents !== 0 ? -cents : cents;
}

/** What a spreadsheet does to a 23-digit id it takes for a number: 1.23457E+22. */
const ROUNDED_ID = /^\d(\.\d+)?E\+?\d+$/i;

/** Counts line breaks up to a position, moving forward only (rows arrive in file order). */
function lineCounter(text: string, linebreak: string) {
  const nl = linebreak === "\r" ? "\r" : "\n";
  let pos = 0;
  let line = 1;
  return (upTo: number) => {
    for (let i = text.indexOf(nl, pos); i !== -1 && i < upTo; i = text.indexOf(nl, i + 1)) line++;
    pos = Math.max(pos, upTo);
    return line;
  };
}

/** "line 4" / "lines 4, 9, ...": where a note applies, without listing thousands of lines. */
export const describeLines = (lines: number[]) => `line${lines.length > 1 ? "s" : ""} ${lines.slice(0, 5).join(", ")}${lines.length > 5 ? ", ..." : ""}`;

/**
 * Reads a statement export (docs/product-rules.md "Billing import"). The file is refused whole when it is
 * not CSV or lacks a required column; otherwise every row is either a valid `StatementRow` or a
 * problem naming its line and reason. Rows are converted as they are parsed, so the 43-column
 * arrays never pile up in memory.
 */
export function parseStatement(input: string): ParsedStatement {
  const text = input.replace(/^\uFEFF/, "");
  const rows: StatementRow[] = [];
  // Card digits, statuses, merchants, nicknames and dates repeat from row to row: sharing one
  // string per distinct value keeps 50,000 rows to a few megabytes.
  const shared = new Map<string, string>();
  const intern = (value: string) => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    if (shared.size < MAX_SHARED_VALUES) shared.set(value, value);
    return value;
  };
  let dataRows = 0;
  const problems: string[] = [];
  const padded: number[] = [];
  const positiveCredits: number[] = [];
  let columns: ReturnType<typeof locateColumns>["located"] | undefined;
  let headerWidth = 0;
  let refusal: { error: string; details: string[] } | undefined;
  let lineAt: ((pos: number) => number) | undefined;
  let rowStart = 0;

  Papa.parse<string[]>(text, {
    delimiter: ",",
    skipEmptyLines: false,
    step: (result, parser) => {
      const start = rowStart;
      rowStart = result.meta.cursor;
      lineAt ??= lineCounter(text, result.meta.linebreak);
      const line = lineAt(start);
      const quoteError = result.errors.find((e) => e.type === "Quotes");
      if (quoteError) {
        refusal = { error: "The file is not valid CSV", details: [`Line ${line}: ${quoteError.message}`] };
        parser.abort();
        return;
      }
      const fields = result.data;
      if (fields.every((f) => f.trim() === "")) return;

      if (!columns) {
        const { located, missing } = locateColumns(fields);
        if (missing.length) {
          const found = fields.join(", ");
          refusal = {
            error: "This file is not a transaction export: required columns are missing",
            details: [...missing.map((c) => `Missing column: ${columnLabel(c)}`), `Columns found: ${found.length > 200 ? `${found.slice(0, 200)}...` : found}`],
          };
          parser.abort();
          return;
        }
        columns = located;
        headerWidth = fields.length;
        return;
      }

      if (++dataRows > MAX_STATEMENT_ROWS) {
        refusal = {
          error: `The file has more than ${MAX_STATEMENT_ROWS.toLocaleString("en-US")} transactions`,
          details: ["Upload the statement in parts (for example one month at a time)."],
        };
        parser.abort();
        return;
      }
      const reasons: string[] = [];
      const located = columns;
      const cell = (column: StatementColumn): string | null => {
        const at = located[column];
        const value = at === undefined ? "" : (fields[at] ?? "").trim();
        if (value.length > MAX_CELL_CHARS) {
          reasons.push(`${columnLabel(column)} is longer than ${MAX_CELL_CHARS} characters`);
          return null;
        }
        return value === "" ? null : intern(value);
      };
      const date = (column: StatementColumn) => {
        const raw = cell(column);
        if (raw === null) return null;
        const parsed = parseExportDate(raw);
        if (parsed === null) reasons.push(`${columnLabel(column)} "${raw}" is not a date (M/D/YY)`);
        return parsed === null ? null : intern(parsed);
      };

      if (fields.length > headerWidth) {
        reasons.push(`it has ${fields.length} values but the header has ${headerWidth} columns (a comma outside quotes?)`);
      }

      const rawCard = cell("registeredCardLast4");
      const card = rawCard === null ? "" : normalizeLast4(rawCard);
      if (card === "") reasons.push(`${columnLabel("registeredCardLast4")} is empty`);

      const rawStatus = cell("status");
      const status = rawStatus?.toUpperCase() ?? "";
      if (rawStatus === null) reasons.push("Status is empty");
      else if (!STATUSES.has(status)) reasons.push(`Status "${rawStatus}" is not PENDING, CLEARED or DECLINED`);

      const rawAmount = cell("authBillingAmount");
      const amount = rawAmount === null ? null : parseExportAmount(rawAmount);
      if (rawAmount !== null && amount === null) {
        reasons.push(`${columnLabel("authBillingAmount")} "${rawAmount}" is not an amount with at most 2 decimals`);
      }

      const referenceId = cell("referenceId");
      if (referenceId !== null && ROUNDED_ID.test(referenceId)) {
        reasons.push(`Reference Id "${referenceId}" was rounded by a spreadsheet; use the export as downloaded, without opening and saving it in Excel`);
      }

      const rawVcnLast4 = cell("vcnLast4");
      const vcnLast4 = rawVcnLast4 === null ? null : normalizeLast4(rawVcnLast4) || null;
      const transactionDate = date("transactionDate");
      const clearDate = date("clearDate");
      const merchantName = cell("merchantName");
      const type = cell("type");
      const fundingSource = cell("fundingSource");
      const typeOfAccount = cell("typeOfAccount");
      const nameOnCard = cell("nameOnCard");
      const merchantCity = cell("merchantCity");
      const merchantState = cell("merchantState");
      const vcnNickname = cell("vcnNickname");
      if (reasons.length) {
        problems.push(`Line ${line}: ${reasons.join("; ")}`);
        return;
      }
      if ([rawCard, rawVcnLast4].some((v) => v !== null && /^\*?\s*\d{1,3}$/.test(v))) padded.push(line);
      if (type?.toUpperCase() === "CREDIT" && amount !== null && amount > 0) positiveCredits.push(line);
      rows.push({
        line,
        dedupeKey: referenceId !== null ? `ref:${referenceId}` : `row:${JSON.stringify([card, vcnLast4, transactionDate, amount, merchantName])}`,
        registeredCardLast4: card,
        fundingSource,
        typeOfAccount,
        transactionDate,
        clearDate,
        type,
        status: status as TransactionStatusValue,
        nameOnCard,
        authBillingAmountCents: amount,
        merchantName,
        merchantCity,
        merchantState,
        vcnNickname,
        vcnLast4,
        referenceId,
      });
    },
  });

  if (refusal) throw badRequest(refusal.error, refusal.details);
  if (!columns) throw badRequest("The file is empty", ["It has no header row and no transactions."]);

  const notes: string[] = [];
  if (padded.length) {
    notes.push(`Last-4 values shorter than 4 digits were padded with zeros (42 -> 0042) on ${describeLines(padded)}`);
  }
  if (positiveCredits.length) {
    notes.push(`CREDIT rows with a positive amount were stored as exported, adding to spend, on ${describeLines(positiveCredits)}`);
  }
  return { rows, problems, notes };
}
