import { describe, expect, it } from "vitest";
import { nextSort, sortRows, type Sort } from "./sort";

type Row = { key: string; name: string; revenue: string; visits: number; landerCtr: number | null };
const row = (key: string, name: string, revenue: string, visits: number, landerCtr: number | null = null): Row => ({ key, name, revenue, visits, landerCtr });
const byKey = (r: Row, k: keyof Row) => r[k];
const names = (rows: Row[]) => rows.map((r) => r.name);

describe("sort rules (docs/screens.md §4)", () => {
  it("choosing the active column flips it; choosing another column sorts it descending", () => {
    const start: Sort = { key: "revenue", direction: "desc" };
    expect(nextSort(start, "revenue")).toEqual({ key: "revenue", direction: "asc" });
    expect(nextSort({ key: "revenue", direction: "asc" }, "revenue")).toEqual({ key: "revenue", direction: "desc" });
    expect(nextSort(start, "visits")).toEqual({ key: "visits", direction: "desc" });
    // Even when the old column was ascending, a new column starts descending.
    expect(nextSort({ key: "revenue", direction: "asc" }, "name")).toEqual({ key: "name", direction: "desc" });
  });

  it("compares money text as numbers, not as text", () => {
    const rows = [row("1", "A", "9.50", 1), row("2", "B", "100.00", 1), row("3", "C", "-20.00", 1), row("4", "D", "10.00", 1)];
    expect(names(sortRows(rows, { key: "revenue", direction: "desc" }, byKey))).toEqual(["B", "D", "A", "C"]);
    expect(names(sortRows(rows, { key: "revenue", direction: "asc" }, byKey))).toEqual(["C", "A", "D", "B"]);
  });

  it("compares names as text, ignoring case, with numbers inside by value", () => {
    const rows = [row("1", "campaign 10", "1", 1), row("2", "Campaign 9", "1", 1), row("3", "Alpha", "1", 1)];
    expect(names(sortRows(rows, { key: "name", direction: "asc" }, byKey))).toEqual(["Alpha", "Campaign 9", "campaign 10"]);
    expect(names(sortRows(rows, { key: "name", direction: "desc" }, byKey))).toEqual(["campaign 10", "Campaign 9", "Alpha"]);
  });

  it("breaks ties by name so equal rows keep one order, and never changes its input", () => {
    const rows = [row("1", "Zed", "5.00", 3), row("2", "Amy", "5.00", 3), row("3", "Max", "7.00", 3)];
    const copy = [...rows];
    expect(names(sortRows(rows, { key: "revenue", direction: "desc" }, byKey))).toEqual(["Max", "Amy", "Zed"]);
    expect(names(sortRows(rows, { key: "visits", direction: "asc" }, byKey))).toEqual(["Amy", "Max", "Zed"]);
    expect(rows).toEqual(copy);
  });

  it("puts missing figures below every number when descending", () => {
    const rows = [row("1", "A", "1", 1, null), row("2", "B", "1", 1, 12.5), row("3", "C", "1", 1, 0)];
    expect(names(sortRows(rows, { key: "landerCtr", direction: "desc" }, byKey))).toEqual(["B", "C", "A"]);
  });
});
