import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { csvCell, statsCsv, STATS_CSV_HEADER, statsCsvName, type CsvRow } from "./csv";

const metrics = { visits: 10, conversions: 2, revenue: "40.00", spend: "10.00", profit: "30.00", roi: 300, roas: 4, cr: 20, epv: "4.000", cpv: "1.000" };
const r = (name: string, extra: Partial<CsvRow> = {}): CsvRow => ({ name, ...metrics, ...extra });

describe("CSV cells", () => {
  it.each([
    ['=HYPERLINK("http://evil")', `"'=HYPERLINK(""http://evil"")"`],
    ["+1+1", "'+1+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
    ["\rcmd", `"'\rcmd"`],
    ["-", "'-"],
  ])("defuses a formula: %j → %j", (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it("quotes commas, quotes and line breaks, and leaves plain text alone", () => {
    expect(csvCell("Summer, US")).toBe('"Summer, US"');
    expect(csvCell('The "best" one')).toBe('"The ""best"" one"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("Direct")).toBe("Direct");
    expect(csvCell("a=b")).toBe("a=b");
  });

  it("keeps plain numbers, negative ones included, as numbers", () => {
    expect(csvCell("-12.34")).toBe("-12.34");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell("0.125")).toBe("0.125");
    expect(csvCell(42)).toBe("42");
  });
});

describe("the stats file", () => {
  it("has the product's columns and one line per row, and reads back to the same values", () => {
    const text = statsCsv([r("=cmd|' /C calc'!A0"), r("Direct", { profit: "-5.50", roi: -12.345, roas: 0.8765, cr: 3.14159 })]);
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(text.split("\r\n")[0]).toBe("\uFEFFName,Visits,Conversions,Revenue,Spend,Profit,ROI,ROAS,CR,EPC,CPV");
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data[0]).toEqual(STATS_CSV_HEADER);
    expect(parsed.data[1]).toEqual(["'=cmd|' /C calc'!A0", "10", "2", "40.00", "10.00", "30.00", "300.0", "4.00", "20.00", "4.000", "1.000"]);
    expect(parsed.data[2]).toEqual(["Direct", "10", "2", "40.00", "10.00", "-5.50", "-12.3", "0.88", "3.14", "4.000", "1.000"]);
    expect(parsed.data).toHaveLength(3);
  });

  it("is named after the day", () => {
    expect(statsCsvName("2026-11-22")).toBe("stats-2026-11-22.csv");
  });
});
