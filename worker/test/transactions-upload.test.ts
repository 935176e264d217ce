import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { importStatement } from "../src/billing/import-statement";
import { parseStatement, type StatementRow } from "../src/billing/parse-statement";
import { planImport } from "../src/billing/plan-import";
import { readFormFile, type FormFile } from "../src/billing/upload-form";
import { storedStatuses, writeStatementRows } from "../src/db/queries/transactions";
import { statementImportRows, transactions } from "../src/db/schema";
import { purgeAbandonedStatementImports, STAGED_ROWS_MAX_AGE_MS } from "../src/jobs/purge-statement-imports";
import bomCrlf from "./fixtures/billing/export-bom-crlf.csv?raw";
import errors from "./fixtures/billing/export-errors.csv?raw";
import feb from "./fixtures/billing/export-feb.csv?raw";
import jan from "./fixtures/billing/export-jan.csv?raw";
import notAnExport from "./fixtures/billing/not-an-export.csv?raw";
import shortNames from "./fixtures/billing/export-short-names.csv?raw";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, ORIGIN, type TestUser } from "./helpers";
import { cut, referenceId, variedStatement } from "./statement-helpers";

const R = "2401123456789012345";

/** The statement as a multipart form's `file`, sent through the typed client. */
function upload(user: TestUser, content: string | Uint8Array, name = "statement.csv") {
  return client(user).transactions.upload.$post({ form: { file: new File([content], name, { type: "text/csv" }) } });
}

/** A refusal's body: the typed client types only the route's answers; refusals are app.onError's ApiErrorBody. */
const refusal = async (res: { json(): Promise<unknown> }) => (await res.json()) as ApiErrorBody;

const all = () => db().select().from(transactions).orderBy(asc(transactions.id));
const byReference = async (referenceId: string) => db().select().from(transactions).where(eq(transactions.referenceId, referenceId)).all();

const clean = { errorCount: 0, warnings: [], details: [] };

/** A minimal export: the required columns plus the ones a test needs. */
const csv = (rows: string[][], header = ["Registered Card Last 4", "Status", "Reference Id", "Authorization Billing Amount", "VCN Nickname"]) =>
  [header, ...rows].map((r) => r.join(",")).join("\n");

// Storage is shared by the tests of this file: each starts from an empty table.
beforeEach(async () => {
  await db().delete(transactions);
});

describe("uploading a statement", () => {
  it("stores every valid row of a month's export and says what was new", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, jan);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ count: 6, clearedCount: 3, pendingDeclinedCount: 3, duplicateCount: 0, ...clean });

    const stored = await all();
    expect(stored.map((t) => [t.referenceId, t.status, t.authBillingAmountCents])).toEqual([
      [`${R}6789`, "CLEARED", 12550],
      [`${R}6790`, "PENDING", 8999],
      [`${R}6791`, "DECLINED", 30000],
      [`${R}6792`, "CLEARED", -4500],
      [`${R}6793`, "CLEARED", 1234],
      [null, "PENDING", 1999],
    ]);
    expect(stored[3]).toMatchObject({ type: "CREDIT", transactionDate: "2025-01-10", clearDate: "2025-01-12" });
    expect(stored[4]).toMatchObject({ registeredCardLast4: "0042", typeOfAccount: "Physical Card", vcnNickname: null, vcnLast4: null });
    expect(stored[1]).toMatchObject({ merchantName: "TIKTOK ADS, INC.", vcnLast4: "0042", registeredCardLast4: "2375" });
  });

  it("changes nothing when the same file is uploaded again, and reports every row as a duplicate", async () => {
    const admin = await makeAdmin();
    await upload(admin, jan);
    const before = await all();
    const again = await upload(admin, jan);
    expect(await again.json()).toEqual({ count: 0, clearedCount: 0, pendingDeclinedCount: 0, duplicateCount: 6, ...clean });
    expect(await all()).toEqual(before);
  });

  it("never double-counts overlapping months: a pending row that cleared is updated in place", async () => {
    const admin = await makeAdmin();
    await upload(admin, jan);
    const [pendingInJanuary] = await byReference(`${R}6790`);

    const res = await upload(admin, feb);
    // Cleared: ...6790 (was PENDING) and the new ...6796; pending/declined: CANVA (was PENDING, now
    // DECLINED) and the new ...6795; duplicates: ...6789 and the refund ...6792.
    expect(await res.json()).toEqual({ count: 4, clearedCount: 2, pendingDeclinedCount: 2, duplicateCount: 2, ...clean });
    expect(await all()).toHaveLength(8);

    const [cleared] = await byReference(`${R}6790`);
    expect(cleared).toMatchObject({ id: pendingInJanuary!.id, status: "CLEARED", clearDate: "2025-02-02" });
    const [canva] = await db().select().from(transactions).where(eq(transactions.merchantName, "CANVA"));
    expect(canva).toMatchObject({ status: "DECLINED", referenceId: null });

    const februaryAgain = await upload(admin, feb);
    expect(await februaryAgain.json()).toMatchObject({ count: 0, duplicateCount: 6, errorCount: 0 });
  });

  it("skips an older file's rows for transactions that have since cleared", async () => {
    const admin = await makeAdmin();
    await upload(admin, jan);
    await upload(admin, feb);
    const res = await upload(admin, jan);
    // ...6790 is CLEARED now: January's PENDING copy is stale. CANVA went PENDING -> DECLINED in
    // February; January's PENDING row moves it back (docs/product-rules.md: PENDING <-> DECLINED updates).
    expect(await res.json()).toEqual({
      count: 1,
      clearedCount: 0,
      pendingDeclinedCount: 1,
      duplicateCount: 5,
      errorCount: 0,
      warnings: [],
      details: ["1 row already stored as CLEARED arrived with an older status and was skipped as duplicate (line 3)"],
    });
    expect((await byReference(`${R}6790`))[0]!.status).toBe("CLEARED");
    expect(await all()).toHaveLength(8);
  });

  it("updates a row that moves between PENDING and DECLINED", async () => {
    const admin = await makeAdmin();
    const first = await upload(admin, csv([["*1111", "PENDING", "pd-1", "10.00", "Ads 9"]]));
    expect(await first.json()).toMatchObject({ count: 1, pendingDeclinedCount: 1 });
    const declined = await upload(admin, csv([["*1111", "DECLINED", "pd-1", "10.00", "Ads 9"]]));
    expect(await declined.json()).toMatchObject({ count: 1, pendingDeclinedCount: 1, duplicateCount: 0 });
    expect((await byReference("pd-1")).map((t) => t.status)).toEqual(["DECLINED"]);
    const pendingAgain = await upload(admin, csv([["*1111", "PENDING", "pd-1", "10.00", "Ads 9"]]));
    expect(await pendingAgain.json()).toMatchObject({ count: 1, pendingDeclinedCount: 1 });
    expect((await byReference("pd-1")).map((t) => t.status)).toEqual(["PENDING"]);
    const cleared = await upload(admin, csv([["*1111", "CLEARED", "pd-1", "10.00", "Ads 9"]]));
    expect(await cleared.json()).toMatchObject({ count: 1, clearedCount: 1 });
    expect(await all()).toHaveLength(1);
  });

  it("reads a re-saved file: BOM, CRLF, re-cased headers, quoted commas and newlines", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, bomCrlf);
    expect(await res.json()).toEqual({ count: 3, clearedCount: 1, pendingDeclinedCount: 2, duplicateCount: 0, ...clean });
    expect((await byReference("BOM-1"))[0]).toMatchObject({ merchantName: "ACME, LLC", nameOnCard: 'Dana "DJ" Lee', vcnLast4: "5150" });
  });

  it("reads the product's shorter column names, and says which digits it padded", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, shortNames);
    expect(await res.json()).toEqual({
      count: 2,
      clearedCount: 1,
      pendingDeclinedCount: 1,
      duplicateCount: 0,
      errorCount: 0,
      warnings: [],
      details: ["Last-4 values shorter than 4 digits were padded with zeros (42 -> 0042) on line 3"],
    });
    expect((await all()).map((t) => [t.vcnLast4, t.authBillingAmountCents, t.transactionDate])).toEqual([
      ["0007", 3330, "2025-05-01"],
      ["0042", 4440, "2025-05-02"],
    ]);
  });

  it("stores the valid rows of a file with bad ones, listing each bad row's line and reason", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, errors);
    const body = await bodyOf(res, 200);
    expect(body).toMatchObject({ count: 3, clearedCount: 1, pendingDeclinedCount: 2, duplicateCount: 0, errorCount: 6, details: [] });
    // Each reason is spelled out in statement-parser.test.ts; here: they all reach the answer.
    expect(body.warnings.map((w) => w.slice(0, w.indexOf(":")))).toEqual(["Line 3", "Line 4", "Line 7", "Line 8", "Line 9", "Line 10"]);
    expect(body.warnings).toEqual(parseStatement(errors).problems);
    expect((await all()).map((t) => t.referenceId)).toEqual(["ERR-1", "ERR-2", "ERR-3"]);
  });

  it("lists at most 100 bad rows and counts the rest", async () => {
    const admin = await makeAdmin();
    const rows = Array.from({ length: 150 }, (_, i) => ["*1234", "LOST", `bad-${i}`, "1.00", "Ads"]);
    const body = await bodyOf(await upload(admin, csv(rows)), 200);
    expect(body.errorCount).toBe(150);
    expect(body.warnings).toHaveLength(101);
    expect(body.warnings[0]).toBe('Line 2: Status "LOST" is not PENDING, CLEARED or DECLINED');
    expect(body.warnings[100]).toBe("...and 50 more rows with errors were not stored");
  });

  it("imports a file large enough to take several write statements, and re-imports it as duplicates", async () => {
    const admin = await makeAdmin();
    const header = jan.slice(0, jan.indexOf("\n"));
    const template = jan.split("\n")[1]!;
    const lines = Array.from({ length: 6000 }, (_, i) => template.replace(`${R}6789`, `bulk-${i}`).replaceAll("125.50", `${i}.25`));
    const text = `${header}\n${lines.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(1_500_000);
    const first = await upload(admin, text);
    expect(await first.json()).toMatchObject({ count: 6000, clearedCount: 6000, errorCount: 0 });
    expect((await all()).at(-1)).toMatchObject({ referenceId: "bulk-5999", authBillingAmountCents: 599925 });
    const second = await upload(admin, text);
    expect(await second.json()).toMatchObject({ count: 0, duplicateCount: 6000 });
  }, 60_000);
});

describe("files the upload refuses whole", () => {
  it("refuses a file that is not an export, naming the missing columns, and stores nothing", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, notAnExport);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "This file is not a transaction export: required columns are missing",
      details: ["Missing column: Registered Card Last 4", "Missing column: Status", "Columns found: Name, Email, Phone"],
    });
    expect(await all()).toEqual([]);
  });

  it("refuses a binary file renamed .csv", async () => {
    const admin = await makeAdmin();
    // The first bytes of an .xlsx workbook (a ZIP archive), then binary noise.
    const workbook = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xff, 0xfe]);
    const res = await upload(admin, workbook, "statement.csv");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "This file is not a CSV file",
      details: ["It is an Excel workbook (.xlsx) or a ZIP archive renamed to .csv.", "Download the transaction export again as CSV and upload that file."],
    });
    const noise = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    const other = await upload(admin, noise, "export.CSV");
    expect(other.status).toBe(400);
    expect((await refusal(other)).error).toBe("This file is not a CSV file");
    expect(await all()).toEqual([]);
  });

  it("refuses a file over 10 MB with 413", async () => {
    const admin = await makeAdmin();
    const res = await upload(admin, "x".repeat(10 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "The file is larger than 10 MB", details: ["Upload the statement in parts (for example one month at a time)."] });
    // A request far over the limit is cut off before the body is read.
    const huge = await upload(admin, "x".repeat(11 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ error: "The request body is larger than 10 MB" });
  }, 60_000);

  it("refuses other file types, a missing file and a JSON body", async () => {
    const admin = await makeAdmin();
    const xlsx = await upload(admin, "Registered Card Last 4,Status\n", "statement.xlsx");
    expect(xlsx.status).toBe(400);
    expect(await xlsx.json()).toEqual({ error: "Only .csv files can be uploaded", details: ["file: Only .csv files can be uploaded"] });

    const empty = new FormData();
    empty.append("note", "no file here");
    const missing = await call("/api/transactions/upload", { body: empty, cookie: admin.cookie });
    expect(missing.status).toBe(400);
    expect((await missing.json<ApiErrorBody>()).error).toBe('Choose a CSV file to upload (form field "file")');

    const json = await call("/api/transactions/upload", { json: { file: "x" }, cookie: admin.cookie });
    expect(json.status).toBe(415);

    const blank = await upload(admin, "");
    expect(blank.status).toBe(400);
    expect((await refusal(blank)).error).toBe("The file is empty");
  });
});

describe("the import's write", () => {
  const rowsOf = (text: string) => parseStatement(text).rows;

  it("is all or nothing: a chunk that fails leaves every earlier chunk unwritten", async () => {
    const admin = await makeAdmin();
    await upload(admin, jan);
    const before = await all();

    // February's changes (an update of a stored PENDING row, new rows), split into one-row
    // statements, then a row the table refuses (card digits are NOT NULL) in the last chunk.
    const good = rowsOf(feb);
    const broken: StatementRow = { ...good[4]!, dedupeKey: "ref:broken", registeredCardLast4: null as unknown as string };
    await expect(writeStatementRows(db(), [...good, broken], Date.now(), { chunkBytes: 300 })).rejects.toThrow();
    expect(await all()).toEqual(before);

    // The same rows without the broken one go through, proving the chunks themselves were fine.
    await writeStatementRows(db(), good, Date.now(), { chunkBytes: 300 });
    expect(await all()).toHaveLength(8);
  });

  it("never moves a CLEARED row back, even when the caller's plan was stale", async () => {
    const [cleared] = rowsOf(csv([["*2222", "CLEARED", "race-1", "5.00", "Ads 8"]]));
    const [pending] = rowsOf(csv([["*2222", "PENDING", "race-1", "7.00", "Ads 8"]]));
    await writeStatementRows(db(), [cleared!], 1);
    await writeStatementRows(db(), [pending!], 2);
    expect(await byReference("race-1")).toMatchObject([{ status: "CLEARED", authBillingAmountCents: 500, uploadedAt: 1 }]);
  });

  it("reads stored statuses for any number of keys, in chunks", async () => {
    const rows = rowsOf(csv(Array.from({ length: 40 }, (_, i) => ["*3333", i % 2 ? "PENDING" : "CLEARED", `key-${i}`, "1.00", "Ads"])));
    await writeStatementRows(db(), rows, 1, { chunkBytes: 200 });
    const found = await storedStatuses(db(), [...rows.map((r) => r.dedupeKey), "ref:unknown"], 100);
    expect(found.size).toBe(40);
    expect(found.get("ref:key-1")).toBe("PENDING");
    expect(found.get("ref:key-2")).toBe("CLEARED");
    expect(found.has("ref:unknown")).toBe(false);
  });
});

describe("a statement larger than one staging round", () => {
  const staged = () => db().select().from(statementImportRows);
  const bytesOf = (text: string) => cut(new TextEncoder().encode(text), 7, 16_384);
  async function* streamOf(pieces: Uint8Array[]) {
    yield* pieces;
  }

  /**
   * The test database whose `failAt`-th batch fails. `cutOff`: nothing after it reaches D1 either,
   * as when the isolate is stopped part way.
   */
  function failingDb(failAt: number, { cutOff = false } = {}) {
    const real = db();
    let batches = 0;
    let failed = false;
    const gone = () => {
      throw new Error("the isolate is gone");
    };
    return new Proxy(real, {
      get(target, property, receiver) {
        if (property === "batch") {
          return (...args: Parameters<typeof real.batch>) => {
            if (failed && cutOff) gone();
            if (++batches === failAt) {
              failed = true;
              return Promise.reject(new Error("D1 went away"));
            }
            return target.batch(...args);
          };
        }
        if (property === "delete" && cutOff) return (...args: Parameters<typeof real.delete>) => (failed ? gone() : target.delete(...args));
        return Reflect.get(target, property, receiver);
      },
    });
  }

  /** Stored beforehand: every fourth transaction of `text`, in every status. */
  async function storeSome(text: string) {
    const rows = parseStatement(text).rows.filter((_, i) => i % 4 === 0);
    const statuses = ["PENDING", "CLEARED", "DECLINED"] as const;
    await writeStatementRows(
      db(),
      rows.map((r, i) => ({ ...r, status: statuses[i % 3]!, merchantName: "STORED BEFORE" })),
      1,
    );
  }

  it("is imported in rounds with the answer and the rows of the whole-file import", async () => {
    const admin = await makeAdmin();
    // About 2 MB, 24,000 rows: three staging rounds.
    const text = variedStatement({ rows: 24_000, prefix: "41" });
    await storeSome(text);

    // The import as it was: the file held whole, parsed, planned against what is stored, written at once.
    const { rows, problems, notes } = parseStatement(text);
    const plan = planImport(rows, await storedStatuses(db(), [...new Set(rows.map((r) => r.dedupeKey))]));
    expect(problems.length).toBeGreaterThan(100);
    expect(plan).toMatchObject({ clearedCount: expect.any(Number), pendingDeclinedCount: expect.any(Number) });
    expect(plan.duplicateCount).toBeGreaterThan(1000);

    const res = await upload(admin, text);
    expect(await res.json()).toEqual({
      count: plan.count,
      clearedCount: plan.clearedCount,
      pendingDeclinedCount: plan.pendingDeclinedCount,
      duplicateCount: plan.duplicateCount,
      errorCount: problems.length,
      warnings: [...problems.slice(0, 100), `...and ${problems.length - 100} more rows with errors were not stored`],
      details: [...notes, ...plan.notes],
    });
    const streamed = await all();
    expect(await staged()).toEqual([]);

    await db().delete(transactions);
    await storeSome(text);
    await writeStatementRows(db(), plan.writes, Date.now());
    const comparable = (stored: (typeof transactions.$inferSelect)[]) => stored.map(({ id: _id, uploadedAt: _at, ...t }) => t);
    expect(comparable(streamed)).toEqual(comparable(await all()));
    // 23-digit ids stay exact text.
    expect(streamed.filter((t) => t.referenceId === referenceId("41", 23_989))).toHaveLength(1);
  }, 240_000);

  it("leaves nothing stored and nothing staged when D1 fails part way", async () => {
    const text = variedStatement({ rows: 3_000, prefix: "42" });
    await storeSome(text);
    const before = await all();
    // Rounds of 500 rows, each a batch that stages and reads, then the batch that writes.
    const options = { stageRows: 500 };
    const batches = Math.ceil(parseStatement(text).rows.length / options.stageRows) + 1;
    for (const failAt of [3, batches]) {
      const uploadId = `failing-${failAt}`;
      await expect(importStatement(failingDb(failAt), streamOf(bytesOf(text)), { ...options, uploadId })).rejects.toThrow("D1 went away");
      expect(await all()).toEqual(before);
      expect(await staged()).toEqual([]);
    }
    // The same upload, D1 well, goes through in those rounds.
    const result = await importStatement(failingDb(batches + 1), streamOf(bytesOf(text)), options);
    expect(result.count).toBeGreaterThan(1000);
    expect(await all()).not.toEqual(before);
    expect(await staged()).toEqual([]);
  }, 120_000);

  it("leaves nothing stored when the upload is cut off part way, and the cron deletes what it staged", async () => {
    const text = variedStatement({ rows: 3_000, prefix: "43" });
    await storeSome(text);
    const before = await all();
    await expect(importStatement(failingDb(4, { cutOff: true }), streamOf(bytesOf(text)), { stageRows: 500, uploadId: "cut-off" })).rejects.toThrow(
      "D1 went away",
    );
    expect(await all()).toEqual(before);
    expect(await staged()).not.toEqual([]);

    const now = Date.now();
    await purgeAbandonedStatementImports.run({ db: db(), env, now });
    expect(await staged()).not.toEqual([]);
    await purgeAbandonedStatementImports.run({ db: db(), env, now: now + STAGED_ROWS_MAX_AGE_MS + 1 });
    expect(await staged()).toEqual([]);
    expect(await all()).toEqual(before);
  }, 120_000);

  it("refuses a file broken after its first rounds, storing nothing", async () => {
    const admin = await makeAdmin();
    const text = `${variedStatement({ rows: 14_000, prefix: "44", linebreak: "\n" })}*1234,CLEARED,DEBIT,3/1/25,1.00,"unterminated\n`;
    const res = await upload(admin, text);
    expect(res.status).toBe(400);
    expect(await refusal(res)).toEqual({ error: "The file is not valid CSV", details: [`Line ${text.split("\n").length - 1}: Quoted field unterminated`] });
    expect(await all()).toEqual([]);
    expect(await staged()).toEqual([]);
  }, 120_000);
});

describe("reading the upload's form as it arrives", () => {
  const CSV = "Registered Card Last 4,Status\r\n*1234,CLEARED\r\n";
  const form = (boundary: string) =>
    [
      "a preamble a reader ignores",
      `--${boundary}`,
      'Content-Disposition: form-data; name="note"',
      "",
      `not the file (--${boundary.slice(0, 5)})`,
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="march \\"final\\".csv"',
      "Content-Type: text/csv",
      "",
      `${CSV}--${boundary.slice(0, 9)}`,
      `--${boundary}`,
      'Content-Disposition: form-data; name="after"',
      "",
      "x",
      `--${boundary}--`,
      "",
    ].join("\r\n");
  /** A request whose body arrives in pieces of `size` bytes. */
  const request = (body: string, size: number, type = "multipart/form-data; boundary=XyZ123boundary") => {
    const bytes = new TextEncoder().encode(body);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      },
    });
    return new Request(`${ORIGIN}/api/transactions/upload`, { method: "POST", body: stream, headers: { "content-type": type } });
  };
  const read = async (file: FormFile | undefined) => {
    const pieces: Uint8Array[] = [];
    for await (const piece of file!.content) pieces.push(piece.slice());
    return new TextDecoder().decode(new Uint8Array(pieces.flatMap((p) => [...p])));
  };

  it.each([1, 2, 7, 64, 100_000])("finds the file among other fields, arriving %i bytes at a time", async (size) => {
    const file = await readFormFile(request(form("XyZ123boundary"), size), "file");
    expect(file?.name).toBe('march "final".csv');
    expect(await read(file)).toBe(`${CSV}--XyZ123bou`);
  });

  it("tells a form without the file from a body that is not the form it says", async () => {
    expect(await readFormFile(request(form("XyZ123boundary"), 5), "missing")).toBeUndefined();
    await expect(readFormFile(request(form("XyZ123boundary"), 5, "multipart/form-data"), "file")).rejects.toThrow("The upload is not a valid multipart form");
    const whole = form("XyZ123boundary");
    const cutShort = whole.slice(0, whole.indexOf("*1234"));
    const file = await readFormFile(request(cutShort, 3), "file");
    await expect(read(file)).rejects.toThrow("The upload is not a valid multipart form");
  });
});
