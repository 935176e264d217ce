// Benchmark: importing a 50,000-row virtual-card export (docs/data.md "Billing statements and invoicing", Speed).
//
// One run, same machine, same generated file:
//   baseline   papaparse alone, in Node, on the file's text (the parse the Worker also does)
//   full       POST /api/transactions/upload on `wrangler dev` with local D1: decode, parse,
//              validate, read stored statuses, write every row (50,000 new transactions)
//   re-upload  the same file again: every row a duplicate, nothing written
// Prints rows/s and the ratios against the parse-only baseline, and whether the targets are met
// (full import within 10 s, re-upload within 5 s). Memory: the peak resident size of the workerd
// process (the Worker's isolate plus local D1 and the runtime: an upper bound on the Worker's own
// use) read from /proc before and after the uploads, where /proc exists.
import Papa from "papaparse";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer } from "../lib/server.mjs";
import { EXTEND_EXPORT_HEADER as HEADER } from "../lib/extend-export.mjs";
import { workerdPids } from "../lib/workerd-processes.mjs";

const ROWS = Number(process.env.BENCH_ROWS ?? 50_000);
const PORT = 8951;
const TARGET_FULL_MS = 10_000;
const TARGET_REUPLOAD_MS = 5_000;
const LIMIT_BYTES = 10 * 1024 * 1024;

const MERCHANTS = [
  ["FACEBK *ADS", "Menlo Park", "CA"],
  ['"TIKTOK ADS, INC."', "Culver City", "CA"],
  ["GOOGLE *ADS", "Mountain View", "CA"],
  ["SNAP INC", "Santa Monica", "CA"],
];

/**
 * A deterministic export in the real 43-column layout: four cards, eight VCNs, a month of dates,
 * 80% CLEARED, 15% PENDING, 5% DECLINED, a refund every 97 rows. Optional descriptive columns
 * (MCC description, transaction amount, team, source) are left empty so 50,000 rows fit the 10 MB upload limit, as
 * rows of about 200 bytes do in practice.
 */
function generateExport(rows) {
  const lines = [HEADER.join(",")];
  for (let i = 0; i < rows; i++) {
    const roll = i % 20;
    const status = roll < 16 ? "CLEARED" : roll < 19 ? "PENDING" : "DECLINED";
    const refund = i % 97 === 0;
    const cents = refund ? -(500 + (i % 5000)) : 100 + ((i * 7919) % 250_000);
    const amount = `${cents < 0 ? "-" : ""}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, "0")}`;
    const day = (i % 28) + 1;
    const [merchant, city, state] = MERCHANTS[i % MERCHANTS.length];
    const vcn = i % 8;
    const cleared = status === "CLEARED";
    lines.push(
      [
        `*${["2375", "0042", "7781", "5150"][i % 4]}`,
        "Extend",
        "Virtual Card",
        `3/${day}/25`,
        cleared ? `3/${Math.min(day + 1, 28)}/25` : "",
        refund ? "CREDIT" : "DEBIT",
        status,
        "Dana Lee",
        "",
        "USD",
        amount,
        "USD",
        "1",
        amount,
        cleared ? "USD" : "",
        cleared ? amount : "",
        cleared ? "USD" : "",
        cleared ? amount : "",
        cleared ? "1" : "",
        merchant,
        "",
        city,
        state,
        "US",
        "",
        "7311",
        "",
        "",
        "",
        `Ads ${vcn + 1}`,
        String(4100 + vcn),
        `2403${String(i).padStart(19, "0")}`,
        "",
        "FALSE",
        "0",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
      ].join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (ms) => `${Math.round(ROWS / (ms / 1000)).toLocaleString("en-US")} rows/s`;

function parseOnly(text) {
  const start = performance.now();
  let n = 0;
  // The Worker's own settings: explicit delimiter, blank rows skipped after parsing.
  Papa.parse(text, {
    delimiter: ",",
    step: (row) => {
      if (row.data.length > 1) n++;
    },
  });
  const ms = performance.now() - start;
  if (n !== ROWS + 1) throw new Error(`parse-only read ${n} rows, expected ${ROWS + 1}`);
  return ms;
}

/** Peak and current resident size (MB) of the workerd processes, from /proc/<pid>/status. */
function workerdMemory(pids) {
  let peak = 0;
  let current = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      current += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      // The process ended between listing and reading.
    }
  }
  return { peak, current };
}

async function main() {
  const text = generateExport(ROWS);
  const bytes = Buffer.byteLength(text);
  console.log(`Generated ${ROWS.toLocaleString("en-US")} rows, 43 columns, ${(bytes / 1024 / 1024).toFixed(2)} MB`);
  if (bytes > LIMIT_BYTES) throw new Error("the generated export is over the 10 MB upload limit");

  parseOnly(text); // warm-up
  const parseMs = median([parseOnly(text), parseOnly(text), parseOnly(text)]);

  const stateDir = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-billing-"));
  const server = await startServer({ port: PORT, stateDir, stdio: "pipe" });
  // Drained so wrangler never blocks on a full pipe; its request log is noise here.
  server.child.stdout?.resume();
  server.child.stderr?.resume();
  try {
    const register = await fetch(`${server.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bench-admin", password: "bench-password" }),
    });
    if (register.status !== 201) throw new Error(`registering the first admin: ${register.status} ${await register.text()}`);
    const cookie = register.headers.getSetCookie()[0].split(";")[0];

    const upload = async () => {
      const form = new FormData();
      form.append("file", new Blob([text], { type: "text/csv" }), "march.csv");
      const start = performance.now();
      const res = await fetch(`${server.url}/api/transactions/upload`, { method: "POST", headers: { cookie }, body: form });
      const body = await res.json();
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
      return { ms, body };
    };

    const pids = workerdPids(server.child.pid);
    const before = workerdMemory(pids);
    const full = await upload();
    if (full.body.count !== ROWS || full.body.errorCount !== 0) throw new Error(`full import: ${JSON.stringify(full.body)}`);
    const afterFull = workerdMemory(pids);
    const again = await upload();
    if (again.body.duplicateCount !== ROWS || again.body.count !== 0) throw new Error(`re-upload: ${JSON.stringify(again.body)}`);
    const afterAgain = workerdMemory(pids);

    const verdict = (ms, target) => (ms <= target ? `met (<= ${fmt(target)})` : `MISSED (> ${fmt(target)})`);
    console.log("");
    console.log(`parse only (baseline)  ${fmt(parseMs).padStart(8)}  ${perSecond(parseMs)}`);
    console.log(
      `full import            ${fmt(full.ms).padStart(8)}  ${perSecond(full.ms)}  ${(full.ms / parseMs).toFixed(1)}x parse-only  target ${verdict(full.ms, TARGET_FULL_MS)}`,
    );
    console.log(
      `re-upload (duplicates) ${fmt(again.ms).padStart(8)}  ${perSecond(again.ms)}  ${(again.ms / parseMs).toFixed(1)}x parse-only  target ${verdict(again.ms, TARGET_REUPLOAD_MS)}`,
    );
    console.log(
      `  counts: ${full.body.clearedCount} cleared + ${full.body.pendingDeclinedCount} pending/declined, then ${again.body.duplicateCount} duplicates`,
    );
    if (pids.length) {
      console.log(
        `workerd resident memory (Worker isolate + local D1 + runtime): ${before.current.toFixed(0)} MB before, ` +
          `peak ${afterFull.peak.toFixed(0)} MB through the import, ${afterAgain.peak.toFixed(0)} MB through the re-upload ` +
          `(peak before the uploads: ${before.peak.toFixed(0)} MB)`,
      );
    } else {
      console.log("workerd memory: not observable here (no /proc)");
    }
  } finally {
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
