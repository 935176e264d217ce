// A Vitest reporter that ends the output with a short list of what failed: each failed test as
// file › suite › test with the first lines of its error, then any error outside a test. `npm test`
// adds it to the merged report (scripts/test.mjs), so a failed run's cause is the last thing
// printed, not somewhere in the lanes' thousands of lines (README "The two commands").
import path from "node:path";

/** Lines of an error's message shown in the list; the lane logs keep the whole error. */
const MESSAGE_LINES = 6;

/**
 * Where an error was raised: the first frame of its stack in the repository's own files (a test
 * file, or the product code it called), relative to `root`.
 * @param {string | undefined} stack
 * @param {string} root
 */
function repositoryFrame(stack, root) {
  for (const line of (stack ?? "").split("\n")) {
    const match = /(?:\(|at |@)((?:file:\/\/)?\/[^\s()]+?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!match) continue;
    const file = match[1].replace(/^file:\/\//, "");
    if (file.includes("/node_modules/") || !file.startsWith(root + path.sep)) continue;
    return `${path.relative(root, file)}:${match[2]}`;
  }
  return null;
}

/**
 * The first lines of an error: its name and message (a timeout's hint and an assertion's diff
 * are cut after MESSAGE_LINES), and where in the repository it was raised.
 * @param {{ name?: string, message?: string, stack?: string }} error
 * @param {string} root
 */
function errorLines(error, root) {
  const name = error.name && !error.message?.startsWith(`${error.name}:`) ? `${error.name}: ` : "";
  const message = `${name}${error.message ?? "(no message)"}`.split("\n").filter((l) => l.trim() !== "");
  const lines = message.slice(0, MESSAGE_LINES);
  if (message.length > MESSAGE_LINES) lines.push("…");
  const frame = repositoryFrame(error.stack, root);
  if (frame) lines.push(`at ${frame}`);
  return lines;
}

/**
 * @typedef {{ name?: string, message?: string, stack?: string, [key: string]: unknown }} ReportedError
 * @typedef {{ where: string, errors: ReportedError[] }} Failure
 */

/**
 * A test's or suite's place: its file, then each suite down to its own name.
 * @param {import("vitest/node").TestCase | import("vitest/node").TestSuite} entity
 */
function titlePath(entity) {
  const names = [];
  for (let at = entity; at.type !== "module"; at = at.parent) names.unshift(at.name);
  return [entity.module.relativeModuleId, ...names].join(" › ");
}

/**
 * Everything that failed in a run, from the reporter API's test modules: files that could not be
 * collected, suites whose hooks failed, failed tests, and errors no test caught (a promise
 * rejected after its test ended).
 * @param {ReadonlyArray<import("vitest/node").TestModule>} testModules
 * @param {ReadonlyArray<ReportedError>} unhandledErrors
 * @param {string} root
 * @returns {Failure[]}
 */
function collectFailures(testModules, unhandledErrors, root) {
  /** @type {Failure[]} */
  const failures = [];
  for (const module of testModules) {
    if (module.errors().length) failures.push({ where: module.relativeModuleId, errors: module.errors() });
    for (const suite of module.children.allSuites()) {
      if (suite.errors().length) failures.push({ where: titlePath(suite), errors: suite.errors() });
    }
    for (const test of module.children.allTests("failed")) {
      failures.push({ where: titlePath(test), errors: [...(test.result().errors ?? [])] });
    }
  }
  for (const error of unhandledErrors) {
    const file = typeof error.VITEST_TEST_PATH === "string" ? path.relative(root, error.VITEST_TEST_PATH) : null;
    const test = typeof error.VITEST_TEST_NAME === "string" ? error.VITEST_TEST_NAME : null;
    const during = [file, test].filter(Boolean).join(" › ");
    failures.push({ where: `Error outside any test${during ? ` (during ${during})` : ""}`, errors: [error] });
  }
  return failures;
}

/**
 * The list as printed: nothing when nothing failed.
 * @param {Failure[]} failures
 * @param {string} root
 */
function formatFailures(failures, root) {
  if (!failures.length) return "";
  const out = [`Failed tests (${failures.length}):`];
  for (const { where, errors } of failures) {
    out.push(`  ${where}`);
    for (const error of errors.length ? errors : [{ message: "(no error recorded)" }]) {
      for (const line of errorLines(error, root)) out.push(`      ${line}`);
    }
  }
  return out.join("\n");
}

/** @implements {import("vitest/reporters").Reporter} */
export default class FailedTestsReporter {
  /** @type {string} */
  root = process.cwd();

  /** @param {import("vitest/node").Vitest} vitest */
  onInit(vitest) {
    this.root = vitest.config.root;
  }

  /**
   * @param {ReadonlyArray<import("vitest/node").TestModule>} testModules
   * @param {ReadonlyArray<ReportedError>} unhandledErrors
   */
  onTestRunEnd(testModules, unhandledErrors) {
    const text = formatFailures(collectFailures(testModules, unhandledErrors, this.root), this.root);
    if (text) process.stdout.write(`\n${text}\n`);
  }
}
