import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import type { ReportRow } from "./api";
import { visibleColumns } from "./columns";
import { csvCell, statsCsv, statsCsvName } from "./csv";

const row = (key: string, name: string, extra: Partial<ReportRow> = {}): ReportRow => ({
  key,
  name,
  campaignId: null,
  spendMethod: "attributed",
  visits: 1200,
  conversions: 2,
  revenue: "1040.00",
  spend: "10.00",
  profit: "1030.00",
  roi: 10300,
  roas: 104,
  cr: 0.16667,
  epv: "0.867",
  cpv: "0.008",
  linkClicks: 1500,
  exitClicks: 1300,
  landerCtr: 86.66667,
  botShare: 3.3333,
  ...extra,
});

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
  it("has the table's columns under the table's headers, its figures as plain numbers with the table's decimals", () => {
    const text = statsCsv(
      visibleColumns([]),
      [
        row("1", "=cmd|' /C calc'!A0"),
        row("direct", "Direct", { profit: "-5.50", roi: -12.345, roas: 0.8765, linkClicks: null, exitClicks: null, landerCtr: null, botShare: null }),
      ],
      "Campaign",
    );
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(text.split("\r\n")[0]).toBe("\uFEFFCampaign,Visits,Conv,Revenue,Cost,Profit,ROI,ROAS,vCR,EPV,CPV,Link Clicks,Exit Clicks,Lander CTR,Bot Share");
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data[1]).toEqual([
      "'=cmd|' /C calc'!A0",
      "1200",
      "2",
      "1040.00",
      "10.00",
      "1030.00",
      "10300.0",
      "104.00",
      "0.17",
      "0.867",
      "0.008",
      "1500",
      "1300",
      "86.67",
      "3.33",
    ]);
    // What the table shows as "—" (no click of ours behind Direct) is an empty cell.
    expect(parsed.data[2]).toEqual(["Direct", "1200", "2", "1040.00", "10.00", "-5.50", "-12.3", "0.88", "0.17", "0.867", "0.008", "", "", "", ""]);
    expect(parsed.data).toHaveLength(3);
  });

  it("leaves out the columns the user hid, as the table does, and keeps the table's order", () => {
    const text = statsCsv(visibleColumns(["botShare", "revenue", "visits"]), [row("US", "United States (US)")], "Country");
    expect(text.slice(1).split("\r\n").slice(0, 2)).toEqual(["Country,Visits,Revenue,Bot Share", "United States (US),1200,1040.00,3.33"]);
  });

  it("is named after the day", () => {
    expect(statsCsvName("2026-11-22")).toBe("stats-2026-11-22.csv");
  });
});
