// The tests `npm test` runs, in two lanes at once: the worker and web projects in one Vitest
// process, the browser project in another. Each lane still runs its files one at a time, as the
// config asks. Vitest runs a project without file parallelism after all the others, so a single
// process would leave the machine half idle: the browser tests mostly wait on Chromium and
// `wrangler dev`, and the worker tests mostly wait on each file's own workerd starting.
// The lanes write Vitest's blob reports, and `vitest --merge-reports` prints one report of
// every file and one summary, then what failed (scripts/lib/failed-tests.mjs). Each lane's whole
// output, its own report included, stays in test-results/lanes/ to be read after a failed run
// (README "The two commands").
//
// With arguments (`npm test -- worker/test/foo.test.ts`) it is plain `vitest run` with them.
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { setPriority } from "node:os";
import path from "node:path";
import { ensureDevVars, ROOT } from "./lib/server.mjs";

const VITEST = path.join(ROOT, "node_modules", ".bin", "vitest");
const REPORTS = path.join(ROOT, "test-results", "blobs");
const LOGS = path.join(ROOT, "test-results", "lanes");
const FAILED_TESTS_REPORTER = path.join(ROOT, "scripts", "lib", "failed-tests.mjs");

/**
 * Runs vitest with `args`; resolves to its exit code. `log` takes its output, else it is shown.
 * `niceness` lowers its CPU priority (and that of the workerds it starts, which inherit it).
 */
function vitest(args, log, niceness = 0) {
  return new Promise((resolve) => {
    const child = spawn(VITEST, args, { cwd: ROOT, stdio: log ? ["ignore", "pipe", "pipe"] : "inherit" });
    if (niceness && child.pid) setPriority(child.pid, niceness);
    if (log) {
      const out = createWriteStream(log);
      child.stdout.pipe(out);
      child.stderr.pipe(out);
    }
    child.on("error", (err) => {
      console.error(`could not start vitest: ${err.message}`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const extra = process.argv.slice(2);
if (extra.length) process.exit(await vitest(["run", ...extra]));

// The worker tests read .dev.vars through wrangler.toml, as they did when the browser project's
// global setup (which makes it) ran first in the same process.
ensureDevVars();
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });

// The worker+web lane runs two files at once (Vitest's default on 2 cores is one): a worker test
// waits on its workerd, time the other file's tests can use. The browser lane runs one file at a
// time: two more at once (each with its own `wrangler dev` and Chromium) slowed every file on 2
// cores, and the whole run with them. The worker+web lane runs at a lower CPU priority: the browser
// tests wait on one step after another, each held up whenever the worker tests had both cores, and
// the worker tests use what is left (README "The two commands" has the times).
const lanes = [
  { name: "worker+web", projects: ["worker", "web"], workers: 2, niceness: 10 },
  { name: "browser", projects: ["browser"] },
];
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
console.log(`Running the tests in two lanes: ${lanes.map((l) => l.name).join(" and ")} (their output: test-results/lanes/)`);
const results = await Promise.all(
  lanes.map(async (lane) => {
    const log = path.join(LOGS, `${lane.name}.log`);
    const blob = path.join(REPORTS, `${lane.name}.json`);
    // The default reporter too, so the lane's log has every file's result and every error in
    // full as it happened, even when the lane dies before its blob is written.
    const args = [
      "run",
      ...lane.projects.flatMap((p) => ["--project", p]),
      ...(lane.workers ? [`--maxWorkers=${lane.workers}`] : []),
      "--reporter=default",
      "--reporter=blob",
      `--outputFile.blob=${blob}`,
    ];
    const code = await vitest(args, log, lane.niceness);
    console.log(`${lane.name} lane finished after ${seconds()} (exit code ${code})`);
    return { lane, log, code, reported: existsSync(blob) };
  }),
);

const merged = results.some((r) => r.reported) ? await vitest(["--merge-reports", REPORTS, "--reporter=default", `--reporter=${FAILED_TESTS_REPORTER}`]) : 1;
// A lane that stopped before writing its report is in no list above: its own last lines say why.
for (const { lane, log, code } of results.filter((r) => !r.reported)) {
  const lines = readFileSync(log, "utf8").trimEnd().split("\n");
  console.log(`\nThe ${lane.name} lane wrote no report (exit code ${code}). The last lines of ${path.relative(ROOT, log)}:\n${lines.slice(-30).join("\n")}`);
}
console.log(`\nBoth lanes: ${seconds()} in all. Each lane's whole output: ${results.map((r) => path.relative(ROOT, r.log)).join(", ")}`);
process.exit(merged !== 0 ? merged : (results.find((r) => r.code !== 0)?.code ?? 0));
