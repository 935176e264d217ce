import { describe, expect, it } from "vitest";
import { decodeStatement, StatementDecoder } from "../src/billing/decode-statement";
import { MAX_STATEMENT_ROWS, parseExportAmount, parseExportDate, parseStatement, StatementReader, type StatementRow } from "../src/billing/parse-statement";
import { ImportPlanner, mayChange, planImport } from "../src/billing/plan-import";
import { locateColumns } from "../src/billing/statement-columns";
import { jsonChunks } from "../src/db/queries/transactions";
import { ApiError } from "../src/lib/errors";
import { formatCents, parseCents } from "../src/lib/money";
import { normalizeLast4, type TransactionStatusValue } from "../src/schemas/transactions";
import bomCrlf from "./fixtures/billing/export-bom-crlf.csv?raw";
import errors from "./fixtures/billing/export-errors.csv?raw";
import jan from "./fixtures/billing/export-jan.csv?raw";
import notAnExport from "./fixtures/billing/not-an-export.csv?raw";
import shortNames from "./fixtures/billing/export-short-names.csv?raw";
import { cut, variedStatement } from "./statement-helpers";

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, error: err.message, details: err.details ?? [] };
    throw err;
  }
  throw new Error("expected the file to be refused");
};

const bytes = (...values: number[]) => new Uint8Array(values);
const R = "2401123456789012345";

describe("money", () => {
  it("converts decimal text to cents exactly, never through floating point", () => {
    expect(parseCents("0.29")).toBe(29);
    expect(parseCents("1234.5")).toBe(123450);
    expect(parseCents("-45.00")).toBe(-4500);
    expect(parseCents("28.270")).toBe(2827);
    expect(parseCents("-0.00")).toBe(0);
    expect(parseCents("99999999999.99")).toBe(9999999999999);
    expect(parseCents("1.005")).toBeNull();
    expect(parseCents("1e3")).toBeNull();
    expect(parseCents("")).toBeNull();
    expect(parseCents("12,00")).toBeNull();
  });

  it("formats cents as the API's two-place decimal strings", () => {
    expect(formatCents(0)).toBe("0.00");
    expect(formatCents(5)).toBe("0.05");
    expect(formatCents(123450)).toBe("1234.50");
    expect(formatCents(-4500)).toBe("-45.00");
    expect(formatCents(-5)).toBe("-0.05");
  });
});

describe("reading the export's values", () => {
  it("reads M/D/YY dates (and the forms spreadsheets re-save them in) as YYYY-MM-DD", () => {
    expect(parseExportDate("1/5/25")).toBe("2025-01-05");
    expect(parseExportDate("12/31/24")).toBe("2024-12-31");
    expect(parseExportDate("02/29/2024")).toBe("2024-02-29");
    expect(parseExportDate("2025-03-01")).toBe("2025-03-01");
    expect(parseExportDate("4/30/26 13:45")).toBe("2026-04-30");
    expect(parseExportDate("2/29/25")).toBeNull();
    expect(parseExportDate("13/45/25")).toBeNull();
    expect(parseExportDate("Jan 5")).toBeNull();
  });

  it("reads amounts with their sign, and what a spreadsheet adds to them", () => {
    expect(parseExportAmount("28.27")).toBe(2827);
    expect(parseExportAmount("-45.00")).toBe(-4500);
    expect(parseExportAmount("(45.00)")).toBe(-4500);
    expect(parseExportAmount("$1,234.56")).toBe(123456);
    expect(parseExportAmount("-$3")).toBe(-300);
    expect(parseExportAmount("12.345")).toBeNull();
    expect(parseExportAmount("1,23")).toBeNull();
    expect(parseExportAmount("abc")).toBeNull();
    expect(parseExportAmount("100000000.00")).toBeNull();
  });

  it("stores card digits without the export's * mask, restoring zeros a spreadsheet dropped", () => {
    expect(normalizeLast4("*2375")).toBe("2375");
    expect(normalizeLast4("*0042")).toBe("0042");
    expect(normalizeLast4("42")).toBe("0042");
    expect(normalizeLast4(" 0007 ")).toBe("0007");
    expect(normalizeLast4("*")).toBe("");
  });

  it("matches headers without case, runs of spaces or underscores, with aliases", () => {
    const { located, missing } = locateColumns(["REGISTERED  CARD last 4", "auth_billing_amount", "Amount", "status"]);
    expect(missing).toEqual([]);
    expect(located).toEqual({ registeredCardLast4: 0, authBillingAmount: 1, status: 3 });
    expect(locateColumns(["Card Last 4", "Transaction Status"]).missing).toEqual([]);
    expect(locateColumns(["Name", "Status"]).missing).toEqual(["registeredCardLast4"]);
  });
});

describe("decoding an upload", () => {
  it("drops a UTF-8 BOM", () => {
    expect(decodeStatement(new TextEncoder().encode("\uFEFFStatus\n"))).toBe("Status\n");
  });

  it("refuses empty, binary, UTF-16 and non-UTF-8 files with a reason", () => {
    expect(refusal(() => decodeStatement(bytes()))).toMatchObject({ status: 400, error: "The file is empty" });
    const xlsx = refusal(() => decodeStatement(bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00)));
    expect(xlsx).toMatchObject({ status: 400, error: "This file is not a CSV file" });
    expect(xlsx.details[0]).toBe("It is an Excel workbook (.xlsx) or a ZIP archive renamed to .csv.");
    expect(refusal(() => decodeStatement(bytes(0x53, 0x74, 0x00, 0x61)))).toMatchObject({
      error: "This file is not a CSV file",
      details: ["It contains binary data.", "Download the transaction export again as CSV and upload that file."],
    });
    expect(refusal(() => decodeStatement(bytes(0xff, 0xfe, 0x53, 0x00)))).toMatchObject({ error: "This file is UTF-16 text, not UTF-8" });
    // "CAFÉ" saved as Windows-1252: 0xC9 is not UTF-8.
    expect(refusal(() => decodeStatement(bytes(0x43, 0x41, 0x46, 0xc9, 0x0a)))).toMatchObject({ error: "This file is not UTF-8 text" });
  });
});

describe("parsing a statement", () => {
  it("reads every kind of row of the real 43-column export", () => {
    const { rows, problems, notes } = parseStatement(jan);
    expect(problems).toEqual([]);
    expect(notes).toEqual([]);
    expect(rows.map((r) => [r.line, r.status, r.authBillingAmountCents])).toEqual([
      [2, "CLEARED", 12550],
      [3, "PENDING", 8999],
      [4, "DECLINED", 30000],
      [5, "CLEARED", -4500],
      [6, "CLEARED", 1234],
      // The row above spans two lines (a newline inside quotes).
      [8, "PENDING", 1999],
    ]);
    expect(rows[0]).toEqual({
      line: 2,
      dedupeKey: `ref:${R}6789`,
      registeredCardLast4: "2375",
      fundingSource: "Operating Account",
      typeOfAccount: "Virtual Card",
      transactionDate: "2025-01-05",
      clearDate: "2025-01-06",
      type: "DEBIT",
      status: "CLEARED",
      nameOnCard: "Dana Lee",
      authBillingAmountCents: 12550,
      merchantName: "FACEBOOK ADS",
      merchantCity: "Menlo Park",
      merchantState: "CA",
      vcnNickname: "Ads 1",
      vcnLast4: "7781",
      referenceId: `${R}6789`,
    } satisfies StatementRow);
    // 23-digit ids stay exact text.
    expect(rows.map((r) => r.referenceId?.length)).toEqual([23, 23, 23, 23, 23, undefined]);
    expect(rows[1]).toMatchObject({ merchantName: "TIKTOK ADS, INC.", vcnLast4: "0042", clearDate: null });
    expect(rows[3]).toMatchObject({ type: "CREDIT", authBillingAmountCents: -4500 });
    // A physical card: leading-zero card digits kept, VCN columns empty.
    expect(rows[4]).toMatchObject({ registeredCardLast4: "0042", typeOfAccount: "Physical Card", vcnNickname: null, vcnLast4: null });
    // No Reference Id: identified by card, VCN last 4, date, amount and merchant.
    expect(rows[5]!.dedupeKey).toBe(`row:${JSON.stringify(["2375", "0042", "2025-01-30", 1999, "CANVA"])}`);
  });

  it("reads a re-saved file: BOM, CRLF, re-cased headers, quoted commas, newlines and doubled quotes", () => {
    expect(bomCrlf.startsWith("\uFEFF")).toBe(true);
    expect(bomCrlf).toContain("\r\n");
    const { rows, problems } = parseStatement(bomCrlf);
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.line, r.referenceId, r.status])).toEqual([
      [2, "BOM-1", "CLEARED"],
      [3, "BOM-2", "PENDING"],
      [5, "BOM-3", "DECLINED"],
    ]);
    expect(rows[0]).toMatchObject({ merchantName: "ACME, LLC", nameOnCard: 'Dana "DJ" Lee', registeredCardLast4: "7001", vcnNickname: "Ads 3" });
    expect(rows[1]).toMatchObject({ merchantName: 'Quote "Co"', authBillingAmountCents: 2050 });
  });

  it("reads the product's shorter column names and any case of status", () => {
    const { rows, problems, notes } = parseStatement(shortNames);
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.status, r.vcnLast4, r.authBillingAmountCents, r.referenceId, r.fundingSource])).toEqual([
      ["CLEARED", "0007", 3330, null, null],
      ["PENDING", "0042", 4440, null, null],
    ]);
    expect(notes).toEqual(["Last-4 values shorter than 4 digits were padded with zeros (42 -> 0042) on line 3"]);
  });

  it("refuses invalid rows one by one, with their line and reason, and keeps the valid ones", () => {
    const { rows, problems } = parseStatement(errors);
    expect(rows.map((r) => [r.line, r.referenceId])).toEqual([
      [2, "ERR-1"],
      [5, "ERR-2"],
      [11, "ERR-3"],
    ]);
    expect(problems).toEqual([
      "Line 3: Registered Card Last 4 is empty",
      'Line 4: Status "REFUNDED" is not PENDING, CLEARED or DECLINED',
      'Line 7: Transaction Date "13/45/25" is not a date (M/D/YY)',
      'Line 8: Authorization Billing Amount "12.345" is not an amount with at most 2 decimals',
      'Line 9: Reference Id "2.40112E+22" was rounded by a spreadsheet; use the export as downloaded, without opening and saving it in Excel',
      "Line 10: Status is empty",
    ]);
  });

  it("refuses a file that is not an export, naming the missing columns", () => {
    expect(refusal(() => parseStatement(notAnExport))).toEqual({
      status: 400,
      error: "This file is not a transaction export: required columns are missing",
      details: ["Missing column: Registered Card Last 4", "Missing column: Status", "Columns found: Name, Email, Phone"],
    });
    expect(refusal(() => parseStatement("Registered Card Last 4,Amount\n*1234,5.00\n")).details[0]).toBe("Missing column: Status");
    expect(refusal(() => parseStatement("\n\n"))).toMatchObject({ error: "The file is empty" });
  });

  it("refuses a file whose quotes are broken rather than swallowing the rows after them", () => {
    const text = 'Registered Card Last 4,Status,Merchant Name\n*1234,CLEARED,ok\n*1234,CLEARED,"unterminated\n*1234,PENDING,later\n';
    expect(refusal(() => parseStatement(text))).toEqual({
      status: 400,
      error: "The file is not valid CSV",
      details: ["Line 3: Quoted field unterminated"],
    });
  });

  it("refuses a row with more values than the header has columns, and skips blank lines", () => {
    const text = "Registered Card Last 4,Status,Merchant Name\n\n*1234,CLEARED,ACME, LLC\n,,\n*1234,PENDING,ACME\n";
    const { rows, problems } = parseStatement(text);
    expect(problems).toEqual(["Line 3: it has 4 values but the header has 3 columns (a comma outside quotes?)"]);
    expect(rows.map((r) => r.line)).toEqual([5]);
  });

  it("refuses a file with more transactions than one upload may carry", () => {
    const rows = (n: number) => `Registered Card Last 4,Status\n${"*1234,PENDING\n".repeat(n)}`;
    expect(parseStatement(rows(MAX_STATEMENT_ROWS)).rows).toHaveLength(MAX_STATEMENT_ROWS);
    expect(refusal(() => parseStatement(rows(MAX_STATEMENT_ROWS + 1)))).toEqual({
      status: 400,
      error: "The file has more than 100,000 transactions",
      details: ["Upload the statement in parts (for example one month at a time)."],
    });
  }, 60_000);

  it("notes refunds exported with a positive amount, stored as exported", () => {
    const text = "Registered Card Last 4,Status,Type,Authorization Billing Amount,Reference Id\n*1234,CLEARED,CREDIT,45.00,c-1\n";
    const { rows, notes } = parseStatement(text);
    expect(rows[0]!.authBillingAmountCents).toBe(4500);
    expect(notes).toEqual(["CREDIT rows with a positive amount were stored as exported, adding to spend, on line 2"]);
  });
});

describe("the import rules", () => {
  const row = (key: string, status: TransactionStatusValue, line = 2): StatementRow => ({
    line,
    dedupeKey: key,
    registeredCardLast4: "1234",
    fundingSource: null,
    typeOfAccount: null,
    transactionDate: null,
    clearDate: null,
    type: null,
    status,
    nameOnCard: null,
    authBillingAmountCents: 100,
    merchantName: null,
    merchantCity: null,
    merchantState: null,
    vcnNickname: null,
    vcnLast4: null,
    referenceId: key,
  });

  it.each([
    // stored, incoming, cleared, pending/declined, duplicate, written
    [undefined, "CLEARED", 1, 0, 0, true],
    [undefined, "PENDING", 0, 1, 0, true],
    [undefined, "DECLINED", 0, 1, 0, true],
    ["PENDING", "PENDING", 0, 0, 1, false],
    ["CLEARED", "CLEARED", 0, 0, 1, false],
    ["DECLINED", "DECLINED", 0, 0, 1, false],
    ["PENDING", "CLEARED", 1, 0, 0, true],
    ["PENDING", "DECLINED", 0, 1, 0, true],
    ["DECLINED", "PENDING", 0, 1, 0, true],
    ["DECLINED", "CLEARED", 1, 0, 0, true],
    ["CLEARED", "PENDING", 0, 0, 1, false],
    ["CLEARED", "DECLINED", 0, 0, 1, false],
  ] as const)("stored %s, arriving %s", (stored, incoming, cleared, pendingDeclined, duplicate, written) => {
    const storedMap = new Map<string, TransactionStatusValue>(stored ? [["k", stored]] : []);
    const plan = planImport([row("k", incoming)], storedMap);
    expect(plan).toMatchObject({ clearedCount: cleared, pendingDeclinedCount: pendingDeclined, duplicateCount: duplicate, count: cleared + pendingDeclined });
    expect(plan.writes.length).toBe(written ? 1 : 0);
    expect(stored === undefined || mayChange(stored, incoming)).toBe(written);
  });

  it("applies a file's rows in order when it lists a transaction twice", () => {
    const plan = planImport([row("a", "PENDING", 2), row("a", "CLEARED", 3), row("a", "PENDING", 4), row("b", "DECLINED", 5)], new Map());
    expect(plan).toMatchObject({ count: 3, clearedCount: 1, pendingDeclinedCount: 2, duplicateCount: 1 });
    expect(plan.writes.map((w) => [w.dedupeKey, w.status, w.line])).toEqual([
      ["a", "CLEARED", 3],
      ["b", "DECLINED", 5],
    ]);
    expect(plan.notes).toEqual([
      "1 row already stored as CLEARED arrived with an older status and was skipped as duplicate (line 4)",
      "2 rows repeat a transaction listed earlier in this file (lines 3, 4)",
    ]);
  });

  it("writes nothing for a transaction that ends the file where it began", () => {
    const plan = planImport([row("a", "DECLINED", 2), row("a", "PENDING", 3)], new Map([["a", "PENDING"]]));
    expect(plan.pendingDeclinedCount).toBe(2);
    expect(plan.writes).toEqual([]);
  });
});

describe("chunking the rows for D1", () => {
  it("keeps every chunk within the byte budget, counting multi-byte characters", () => {
    const values = Array.from({ length: 50 }, (_, i) => JSON.stringify(`café ${i} ${"é".repeat(i)}`));
    const chunks = jsonChunks(values, 200);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(new TextEncoder().encode(chunk).length).toBeLessThanOrEqual(200);
    expect(chunks.flatMap((c) => JSON.parse(c) as string[])).toEqual(values.map((v) => JSON.parse(v) as string));
    expect(jsonChunks([], 200)).toEqual([]);
  });
});

describe("reading a statement as it arrives", () => {
  const readInPieces = (pieces: string[]) => {
    const rows: StatementRow[] = [];
    const reader = new StatementReader((row) => rows.push(row));
    for (const piece of pieces) reader.push(piece);
    const { notes } = reader.end();
    return { rows, problems: reader.problems, notes };
  };

  it.each([
    ["CRLF", "\r\n"],
    ["LF", "\n"],
  ])(
    "reads a %s file cut anywhere (inside quotes, line breaks and characters) as it reads it whole",
    (_name, linebreak) => {
      // Over a megabyte, so that rows are read before the end as well as after it.
      const text = variedStatement({ rows: 14_000, prefix: "31", linebreak });
      expect(text.length).toBeGreaterThan(1024 * 1024);
      const whole = parseStatement(text);
      expect(whole.rows.length).toBeGreaterThan(10_000);
      expect(whole.problems.length).toBeGreaterThan(2_000);
      expect(whole.notes).toHaveLength(2);
      // Rows spanning two lines keep the line they start on.
      expect(whole.rows.find((r) => r.merchantName?.startsWith("TWO"))).toMatchObject({ line: 4, merchantName: `TWO${linebreak}LINES 2` });
      expect(whole.rows.some((r) => r.merchantName?.includes("\u{1F680}"))).toBe(true);
      for (const seed of [1, 2]) expect(readInPieces(cut(text, seed))).toEqual(whole);
      expect(readInPieces(cut(text, 3, 5))).toEqual(whole);
    },
    60_000,
  );

  it("keeps the first problems and counts them all", () => {
    const text = variedStatement({ rows: 2_000, prefix: "32" });
    const all = parseStatement(text).problems;
    const reader = new StatementReader(() => {}, { maxProblems: 100 });
    reader.push(text);
    reader.end();
    expect(reader.problemCount).toBe(all.length);
    expect(reader.problems).toEqual(all.slice(0, 100));
  });

  it("refuses a file broken after its first megabyte, however it is cut", () => {
    const text = `${variedStatement({ rows: 12_000, prefix: "33", linebreak: "\n", bom: false })}*1234,CLEARED,DEBIT,3/1/25,1.00,"unterminated\n*1234,PENDING\n`;
    const line = text.split("\n").length - 2;
    const expected = { status: 400, error: "The file is not valid CSV", details: [`Line ${line}: Quoted field unterminated`] };
    expect(refusal(() => parseStatement(text))).toEqual(expected);
    expect(refusal(() => readInPieces(cut(text, 4)))).toEqual(expected);
  }, 30_000);

  it("decodes bytes cut anywhere, even inside a character, as it decodes them whole", () => {
    const bytes = new TextEncoder().encode(variedStatement({ rows: 3_000, prefix: "34" }));
    const whole = decodeStatement(bytes);
    expect(whole.startsWith("\uFEFF")).toBe(false);
    for (const seed of [5, 6]) {
      const decoder = new StatementDecoder();
      const text =
        cut(bytes, seed, 9_000)
          .map((piece) => decoder.write(piece))
          .join("") + decoder.end();
      expect(text).toBe(whole);
    }
  });

  it("refuses bytes cut into pieces for the reason it refuses them whole", () => {
    const inPieces = (...pieces: number[][]) =>
      refusal(() => {
        const decoder = new StatementDecoder();
        for (const piece of pieces) decoder.write(bytes(...piece));
        decoder.end();
      });
    // A workbook's signature split over the first two pieces.
    expect(inPieces([0x50, 0x4b], [0x03, 0x04, 0x14])).toMatchObject({
      error: "This file is not a CSV file",
      details: [expect.stringContaining("Excel workbook"), expect.any(String)],
    });
    // Bytes that are not UTF-8 first, then a NUL: binary, as for the file whole.
    const notUtf8ThenNul = [
      [0x43, 0x41, 0x46, 0xc9, 0x0a],
      [0x41, 0x00, 0x42],
    ];
    expect(refusal(() => decodeStatement(bytes(...notUtf8ThenNul.flat())))).toMatchObject({
      error: "This file is not a CSV file",
      details: ["It contains binary data.", expect.any(String)],
    });
    expect(inPieces(...notUtf8ThenNul)).toMatchObject({ error: "This file is not a CSV file", details: ["It contains binary data.", expect.any(String)] });
    // A character cut off by the end of the file.
    expect(inPieces([0x53, 0x74, 0x61], [0x74, 0xe2, 0x82])).toMatchObject({ error: "This file is not UTF-8 text" });
    // Over the limit: refused as soon as it passes it, first of all reasons.
    const decoder = new StatementDecoder(8);
    decoder.write(bytes(0x50, 0x4b, 0x03, 0x04));
    expect(refusal(() => decoder.write(bytes(0, 0, 0, 0, 0)))).toEqual({
      status: 413,
      error: "The file is larger than 10 MB",
      details: ["Upload the statement in parts (for example one month at a time)."],
    });
  });

  it("plans rows given in batches as it plans them whole", () => {
    const { rows } = parseStatement(variedStatement({ rows: 3_000, prefix: "35" }));
    const stored = new Map<string, TransactionStatusValue>(
      rows.filter((_, i) => i % 4 === 0).map((r, i) => [r.dedupeKey, (["PENDING", "CLEARED", "DECLINED"] as const)[i % 3]!]),
    );
    const whole = planImport(rows, stored);
    expect(whole.duplicateCount).toBeGreaterThan(100);
    expect(whole.notes).toHaveLength(2);

    const planner = new ImportPlanner();
    const latest = new Map<string, StatementRow>();
    for (let at = 0; at < rows.length; at += 7) {
      const batch = rows.slice(at, at + 7);
      // Only keys no earlier batch named are read, as the import reads them.
      const keys = planner.newKeys(batch);
      const found = new Map(keys.flatMap((k) => (stored.has(k) ? [[k, stored.get(k)!] as const] : [])));
      for (const row of planner.add(batch, found)) latest.set(row.dedupeKey, row);
    }
    const { count, clearedCount, pendingDeclinedCount, duplicateCount } = whole;
    expect(planner.counts).toEqual({ count, clearedCount, pendingDeclinedCount, duplicateCount });
    expect(planner.notes()).toEqual(whole.notes);
    // The last change of each transaction, in the order each was first changed; the write's
    // guard leaves out the ones that end where they began.
    expect([...latest.values()].filter((r) => stored.get(r.dedupeKey) !== r.status)).toEqual(whole.writes);
  });
});
