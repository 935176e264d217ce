/**
 * CSV for spreadsheets (RFC 4180, CRLF). Cells come from ad platforms and visitors, so a value a
 * spreadsheet would evaluate (=, +, -, @, tab, CR first) is prefixed with a single quote and shown
 * as text: OWASP's defence against formula injection.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number, negative ones included: no spreadsheet runs it as a formula. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * One cell. `plainNumbers` leaves plain numbers as numbers (a negative profit must stay a figure
 * a spreadsheet can add up); without it every value starting with a formula character is text.
 */
export function csvCell(value: string | number | boolean | null | undefined, { plainNumbers = false } = {}): string {
  let text = value == null ? "" : String(value);
  if (FORMULA_START.test(text) && !(plainNumbers && PLAIN_NUMBER.test(text))) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvRow = (cells: readonly (string | number | boolean | null | undefined)[]) => `${cells.map((cell) => csvCell(cell)).join(",")}\r\n`;

/** A byte-order mark first, so Excel reads the file as UTF-8 (names and user agents carry any script). */
export const CSV_BOM = "\uFEFF";

/**
 * A CSV body streamed a page at a time: the header, then `first` (read by the caller before
 * answering, so a failing database is still a JSON error rather than a cut-off file), then
 * `next(last row)` for as long as pages come back full. Nothing but one page sits in memory.
 */
export function pagedCsv<R>(header: readonly string[], first: R[], pageSize: number, next: (last: R) => Promise<R[]>, toCsv: (row: R) => string) {
  const encoder = new TextEncoder();
  let rows = first;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(CSV_BOM + csvRow(header)));
    },
    async pull(controller) {
      if (rows.length) controller.enqueue(encoder.encode(rows.map(toCsv).join("")));
      const last = rows.at(-1);
      if (rows.length < pageSize || last === undefined) {
        controller.close();
        return;
      }
      rows = await next(last);
    },
  });
}
