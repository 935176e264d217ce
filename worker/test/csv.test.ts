import { describe, expect, it } from "vitest";
import { csvCell, csvRow } from "../src/lib/csv";

describe("CSV cells", () => {
  it("quotes commas, quotes and line breaks", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(42)).toBe("42");
  });

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ["+1+1", "'+1+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", `"'\r=1"`],
  ])("makes %j inert text", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it("leaves formula characters alone when they are not first", () => {
    expect(csvCell("a=b")).toBe("a=b");
    expect(csvCell("Mozilla/5.0 (iPhone; +1)")).toBe("Mozilla/5.0 (iPhone; +1)");
  });

  it("ends rows with CRLF", () => {
    expect(csvRow(["a", null, "=x"])).toBe("a,,'=x\r\n");
  });
});
