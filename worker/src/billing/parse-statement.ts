import Papa from "papaparse";
import { badRequest, type ApiError } from "../lib/errors";
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
 * three-column file; this bounds what the import keeps per transaction while it streams (its
 * status by key, billing/plan-import.ts) well inside a Worker's 128 MB.
 */
export const MAX_STATEMENT_ROWS = 100_000;
/** Amounts up to the product's decimal(10,2). */
const MAX_AMOUNT_CENTS = 99_999_999_99;

const STATUSES = new Set<string>(TRANSACTION_STATUS_VALUES);
/**
 * Text gathered before the first rows are parsed: papaparse guesses the line break (CRLF, LF or
 * CR) from the first megabyte of what it is given, so the first piece it gets is that long
 * however the upload arrives in pieces, and the guess is the one the whole text would give.
 */
const LINEBREAK_SAMPLE_CHARS = 1024 * 1024;
/**
 * Least text handed to papaparse at a time. It parses each piece together with the unfinished
 * row before it, so pieces also grow with that row: a file that is one endless line costs a few
 * passes over it, not one per network packet.
 */
const MIN_PIECE_CHARS = 64 * 1024;

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

/**
 * Counts line breaks up to a position in text that arrives in pieces, moving forward only (rows
 * arrive in file order); it keeps only the text after the last position asked for.
 */
class LineCounter {
  private tail = "";
  private tailStart = 0;
  private line = 1;

  append(text: string) {
    this.tail += text;
  }

  /** How much text is kept: from the start of the last row asked for to the end. */
  get kept() {
    return this.tail.length;
  }

  /** The line (1-based) that `position` of the whole text is on, with `linebreak` the file's. */
  at(position: number, linebreak: string) {
    const nl = linebreak === "\r" ? "\r" : "\n";
    const upTo = position - this.tailStart;
    for (let i = this.tail.indexOf(nl); i !== -1 && i < upTo; i = this.tail.indexOf(nl, i + 1)) this.line++;
    if (upTo > 0) {
      this.tail = this.tail.slice(upTo);
      this.tailStart = position;
    }
    return this.line;
  }
}

/**
 * Lines a note applies to: how many, and the first few ("line 4" / "lines 4, 9, ..."), so a
 * note never lists thousands of lines nor keeps them.
 */
export class LineList {
  count = 0;
  private readonly first: number[] = [];

  add(line: number) {
    this.count++;
    if (this.first.length < 6) this.first.push(line);
  }

  describe() {
    return `line${this.count > 1 ? "s" : ""} ${this.first.slice(0, 5).join(", ")}${this.count > 5 ? ", ..." : ""}`;
  }
}

/**
 * The smallest Node-style readable papaparse streams from (it needs `readable`, `read`, `on` and
 * `removeListener`): `emit` hands it a piece, which it parses at once, keeping an unfinished last
 * row for the next piece, exactly as it does for a file read in chunks.
 */
class TextSource {
  readonly readable = true;
  private readonly listeners = new Map<string, (value?: string) => void>();

  read() {
    return null;
  }
  on(event: string, listener: (value?: string) => void) {
    this.listeners.set(event, listener);
    return this;
  }
  removeListener(event: string) {
    this.listeners.delete(event);
    return this;
  }
  pause() {}
  resume() {}
  emit(event: "data" | "end", value?: string) {
    this.listeners.get(event)?.(value);
  }
}

/**
 * Reads a statement export (docs/product-rules.md "Billing import") from text given in pieces of
 * any size (`push`), calling `onRow` with each valid row as soon as it is read, so the file is
 * never held whole. The file is refused whole (an ApiError from `push` or `end`) when it is not
 * CSV or lacks a required column; otherwise every row is either a valid `StatementRow` or a
 * problem naming its line and reason. Only the first `maxProblems` problems are kept; all are counted.
 */
export class StatementReader {
  /** "Line N: reason" for the first `maxProblems` rows that were not stored. */
  readonly problems: string[] = [];
  problemCount = 0;
  private readonly source = new TextSource();
  private readonly lines = new LineCounter();
  private readonly padded = new LineList();
  private readonly positiveCredits = new LineList();
  private readonly maxProblems: number;
  /** Text pushed but not parsed yet. */
  private buffered = "";
  private started = false;
  private ended = false;
  private columns: ReturnType<typeof locateColumns>["located"] | undefined;
  private headerWidth = 0;
  private dataRows = 0;
  private rowStart = 0;
  /** Why the file is refused whole (papaparse calls back inside its own try, so this is thrown after). */
  private refusal: ApiError | undefined;
  private failure: unknown;

  constructor(
    private readonly onRow: (row: StatementRow) => void,
    { maxProblems = Infinity }: { maxProblems?: number } = {},
  ) {
    this.maxProblems = maxProblems;
  }

  push(text: string) {
    this.check();
    this.buffered += text;
    const piece = this.started ? Math.max(MIN_PIECE_CHARS, this.lines.kept) : LINEBREAK_SAMPLE_CHARS;
    if (this.buffered.length >= piece) this.parseBuffered();
  }

  /** Reads what is left once all of the text was pushed; the notes on how the file was read. */
  end(): { notes: string[] } {
    this.check();
    this.parseBuffered();
    if (!this.ended) {
      this.ended = true;
      this.source.emit("end");
      this.check();
    }
    if (!this.columns) throw badRequest("The file is empty", ["It has no header row and no transactions."]);
    const notes: string[] = [];
    if (this.padded.count) notes.push(`Last-4 values shorter than 4 digits were padded with zeros (42 -> 0042) on ${this.padded.describe()}`);
    if (this.positiveCredits.count) {
      notes.push(`CREDIT rows with a positive amount were stored as exported, adding to spend, on ${this.positiveCredits.describe()}`);
    }
    return { notes };
  }

  private parseBuffered() {
    let text = this.buffered;
    this.buffered = "";
    if (!this.started) {
      this.start();
      // A BOM is dropped where the text starts, as papaparse does for text given whole.
      text = text.replace(/^\uFEFF/, "").replace(/^\uFEFF/, "");
    }
    if (!text) return;
    this.lines.append(text);
    this.source.emit("data", text);
    this.check();
  }

  private start() {
    this.started = true;
    Papa.parse<string[]>(this.source as unknown as NodeJS.ReadableStream, {
      delimiter: ",",
      skipEmptyLines: false,
      step: (result, parser) => {
        try {
          this.step(result, parser);
        } catch (err) {
          this.failure = err;
          parser.abort();
        }
      },
      error: (err) => {
        this.failure = err;
      },
    });
  }

  private check() {
    if (this.failure) throw this.failure;
    if (this.refusal) throw this.refusal;
  }

  private step(result: Papa.ParseStepResult<string[]>, parser: Papa.Parser) {
    const start = this.rowStart;
    this.rowStart = result.meta.cursor;
    const line = this.lines.at(start, result.meta.linebreak);
    const quoteError = result.errors.find((e) => e.type === "Quotes");
    if (quoteError) {
      this.refusal = badRequest("The file is not valid CSV", [`Line ${line}: ${quoteError.message}`]);
      parser.abort();
      return;
    }
    const fields = result.data;
    if (fields.every((f) => f.trim() === "")) return;

    if (!this.columns) {
      const { located, missing } = locateColumns(fields);
      if (missing.length) {
        const found = fields.join(", ");
        this.refusal = badRequest("This file is not a transaction export: required columns are missing", [
          ...missing.map((c) => `Missing column: ${columnLabel(c)}`),
          `Columns found: ${found.length > 200 ? `${found.slice(0, 200)}...` : found}`,
        ]);
        parser.abort();
        return;
      }
      this.columns = located;
      this.headerWidth = fields.length;
      return;
    }

    if (++this.dataRows > MAX_STATEMENT_ROWS) {
      this.refusal = badRequest(`The file has more than ${MAX_STATEMENT_ROWS.toLocaleString("en-US")} transactions`, [
        "Upload the statement in parts (for example one month at a time).",
      ]);
      parser.abort();
      return;
    }
    const reasons: string[] = [];
    const located = this.columns;
    const cell = (column: StatementColumn): string | null => {
      const at = located[column];
      const value = at === undefined ? "" : (fields[at] ?? "").trim();
      if (value.length > MAX_CELL_CHARS) {
        reasons.push(`${columnLabel(column)} is longer than ${MAX_CELL_CHARS} characters`);
        return null;
      }
      return value === "" ? null : value;
    };
    const date = (column: StatementColumn) => {
      const raw = cell(column);
      if (raw === null) return null;
      const parsed = parseExportDate(raw);
      if (parsed === null) reasons.push(`${columnLabel(column)} "${raw}" is not a date (M/D/YY)`);
      return parsed;
    };

    if (fields.length > this.headerWidth) {
      reasons.push(`it has ${fields.length} values but the header has ${this.headerWidth} columns (a comma outside quotes?)`);
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
      if (this.problems.length < this.maxProblems) this.problems.push(`Line ${line}: ${reasons.join("; ")}`);
      this.problemCount++;
      return;
    }
    if ([rawCard, rawVcnLast4].some((v) => v !== null && /^\*?\s*\d{1,3}$/.test(v))) this.padded.add(line);
    if (type?.toUpperCase() === "CREDIT" && amount !== null && amount > 0) this.positiveCredits.add(line);
    this.onRow({
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
  }
}

/** A whole statement's text read at once (StatementReader): its rows, every problem, and the notes. */
export function parseStatement(text: string): ParsedStatement {
  const rows: StatementRow[] = [];
  const reader = new StatementReader((row) => rows.push(row));
  reader.push(text);
  const { notes } = reader.end();
  return { rows, problems: reader.problems, notes };
}
