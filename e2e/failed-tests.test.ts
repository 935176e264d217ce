import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/lib/server.mjs";

const VITEST = path.join(ROOT, "node_modules", ".bin", "vitest");
const REPORTER = path.join(ROOT, "scripts", "lib", "failed-tests.mjs");
const tmp = mkdtempSync(path.join(os.tmpdir(), "trackyard-failed-tests-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Vitest as `npm test` runs it: a lane writes its blob, then the merge prints the report. The two
 * runs took 16 s at a load average of 15, hence the tests' own times.
 */
function runAndMerge(name: string, files: Record<string, string>) {
  const root = path.join(tmp, name);
  const blobs = path.join(root, "blobs");
  mkdirSync(root);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(root, file), text);
  // The outer Vitest's own variables would tell the inner one it runs inside a test.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"));
  // stdout and stderr into one file, in the order they were written, as a CI log has them.
  const log = path.join(root, "output.log");
  const run = (args: string[]) => {
    const fd = openSync(log, "w");
    try {
      return spawnSync(VITEST, ["--root", root, "--globals", ...args], { cwd: root, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", fd, fd] }).status;
    } finally {
      closeSync(fd);
    }
  };
  run(["run", "--reporter=blob", `--outputFile.blob=${path.join(blobs, "lane.json")}`]);
  const status = run(["--merge-reports", blobs, "--reporter=default", `--reporter=${REPORTER}`]);
  return { status, output: readFileSync(log, "utf8").trimEnd() };
}

describe("the end of npm test's output", () => {
  it("lists each failed test as file › suite › test with the first lines of its error, after the summary", () => {
    const { status, output } = runAndMerge("failing", {
      "sums.test.mjs": `describe("sums", () => {
  it("adds", () => expect(1 + 1).toBe(2));
  it("adds > carries", () => expect({ total: 1 }).toEqual({ total: 2 }));
  it("waits", async () => { await new Promise((r) => setTimeout(r, 500)); }, 20);
  it("leaves work behind", () => { setTimeout(() => { throw new Error("FOREIGN KEY constraint failed"); }, 0); });
});`,
      "seeded.test.mjs": `describe("seeded", () => {
  beforeAll(() => { throw new Error("seed failed"); });
  it("never runs", () => {});
});`,
    });
    expect(status).not.toBe(0);
    const tail = output.slice(output.lastIndexOf("Failed tests ("));
    expect(output.indexOf("Test Files")).toBeLessThan(output.lastIndexOf("Failed tests ("));
    const [heading, ...lines] = tail.split("\n");
    expect(heading).toBe("Failed tests (4):");
    // One entry per failure: its place, then its error's lines, indented further. The files may
    // run in either order; an error outside any test comes last.
    const entries = lines.reduce<string[][]>((all, line) => (line.startsWith("      ") ? all.at(-1)!.push(line.trim()) : all.push([line.trim()]), all), []);
    expect(entries.slice(0, 3)).toEqual(
      expect.arrayContaining([
        ["sums.test.mjs › sums › adds > carries", "AssertionError: expected { total: 1 } to deeply equal { total: 2 }", "at sums.test.mjs:3"],
        [
          "sums.test.mjs › sums › waits",
          "Error: Test timed out in 20ms.",
          'If this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".',
          "at sums.test.mjs:4",
        ],
        ["seeded.test.mjs › seeded", "Error: seed failed", "at seeded.test.mjs:2"],
      ]),
    );
    // The timer may fire while its test is still winding up, or just after.
    expect(entries[3]![0]).toMatch(/^Error outside any test \(during sums\.test\.mjs( › leaves work behind)?\)$/);
    expect(entries[3]!.slice(1)).toEqual(["Error: FOREIGN KEY constraint failed", "at sums.test.mjs:5"]);
  }, 120_000);

  it("adds nothing when every test passed", () => {
    const { status, output } = runAndMerge("passing", { "ok.test.mjs": 'it("passes", () => expect(true).toBe(true));' });
    expect(status).toBe(0);
    expect(output).toMatch(/Tests\s+1 passed/);
    expect(output).not.toContain("Failed tests");
  }, 120_000);
});
