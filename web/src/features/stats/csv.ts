/**
 * The stats export (docs/screens.md §9): one line per report row, the product's columns, in the table's order.
 * Figures go out as plain numbers (no $ or %), so a spreadsheet can add them up.
 */
import { CSV_BOM, csvCell as sharedCsvCell } from "../../../../worker/src/lib/csv";
import type { StatsMetrics } from "../../../../worker/src/schemas/stats";

/**
 * One cell, safe to open in Excel, Sheets or LibreOffice (the worker's CSV rules, lib/csv.ts):
 * text a spreadsheet would run as a formula gets a leading apostrophe, then RFC 4180 quoting.
 * Plain numbers, negative ones included, are left as numbers.
 */
export const csvCell = (value: string | number) => sharedCsvCell(value, { plainNumbers: true });

const csvLine = (cells: (string | number)[]) => cells.map(csvCell).join(",");

export const STATS_CSV_HEADER = ["Name", "Visits", "Conversions", "Revenue", "Spend", "Profit", "ROI", "ROAS", "CR", "EPC", "CPV"];

/** The figures of one report row, as the API sends them (money as decimal text). */
export type CsvRow = { name: string } & Pick<StatsMetrics, "visits" | "conversions" | "revenue" | "spend" | "profit" | "roi" | "roas" | "cr" | "epv" | "cpv">;

/**
 * The file: a BOM (so Excel reads names as UTF-8), the header, one line per row, CRLF endings.
 * ROI to 1 decimal and CR to 2 (percent), ROAS to 2; EPC is revenue per visit (the product's EPC
 * and EPV are one figure), 3 decimals like CPV.
 */
export function statsCsv(rows: CsvRow[]): string {
  const lines = [
    csvLine(STATS_CSV_HEADER),
    ...rows.map((r) =>
      csvLine([r.name, r.visits, r.conversions, r.revenue, r.spend, r.profit, r.roi.toFixed(1), r.roas.toFixed(2), r.cr.toFixed(2), r.epv, r.cpv]),
    ),
  ];
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
