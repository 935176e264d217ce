/**
 * The stats export (docs/screens.md §9): the table as the user sees it, column for column. Its
 * visible columns in its order under its headers (the Name column under the grouping's name,
 * "Campaign", "Country", ...), one line per row in the table's sort; hidden columns are left out,
 * as on screen. Figures go out as plain numbers with the table's decimals (no $, %, x or
 * thousands separators), so a spreadsheet can add them up; a figure the table shows as "—" is an
 * empty cell. The totals row is left out for the same reason: a sum over the file would count it.
 */
import { CSV_BOM, csvCell as sharedCsvCell } from "../../../../worker/src/lib/csv";
import type { ReportRow } from "./api";
import { headerOf, type Column } from "./columns";

/**
 * One cell, safe to open in Excel, Sheets or LibreOffice (the worker's CSV rules, lib/csv.ts):
 * text a spreadsheet would run as a formula gets a leading apostrophe, then RFC 4180 quoting.
 * Plain numbers, negative ones included, are left as numbers.
 */
export const csvCell = (value: string | number) => sharedCsvCell(value, { plainNumbers: true });

const csvLine = (cells: (string | number)[]) => cells.map(csvCell).join(",");

/** The file: a BOM (so Excel reads names as UTF-8), the header, one line per row, CRLF endings. */
export function statsCsv(columns: readonly Column[], rows: readonly ReportRow[], nameLabel: string): string {
  const lines = [csvLine(columns.map((c) => headerOf(c, nameLabel))), ...rows.map((r) => csvLine(columns.map((c) => c.csv(r))))];
  return `${CSV_BOM}${lines.join("\r\n")}\r\n`;
}

/** stats-2026-11-22.csv: the day it was exported (docs/screens.md §9). */
export const statsCsvName = (today: string) => `stats-${today}.csv`;

/** Hands the text to the browser as a file download. */
export function downloadText(fileName: string, text: string, type = "text/csv;charset=utf-8") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked on the next turn: some browsers start the download only after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
