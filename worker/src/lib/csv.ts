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
