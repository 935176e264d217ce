// Benchmark: the memory a statement upload takes in workerd (a Worker isolate's limit is 128 MB;
// docs/data.md "Billing statements and invoicing"). Two files at the upload's limits, 100,000 rows just
// under 10 MB each: one all ASCII, one with a character outside Latin-1 in every row (V8 keeps
// such text two bytes a character). Each is uploaded twice on `wrangler dev` with local D1: the
// import (every row new, all written: staged, then applied) and a re-upload (every row a
// duplicate, nothing written).
//
// The Worker's isolate is measured by V8 itself: workerd runs with V8's --trace-gc, which prints
// the heap's used size before and after every collection, and --gc-global, which makes every
// collection a full one, so that each "after" is the isolate's live data, sampled every few MB
// allocated (scripts/lib/workerd-v8-flags.mjs). Idle is the heap just after a full collection
// asked for through the inspector before each upload (its trace line also tells the Worker's
// isolate from wrangler's proxies and local D1, which run in the same process). During the upload:
//   live peak     the most the isolate held after a collection: what no collection could free.
//                 Target: at most +64 MB above idle.
//   fullest       the heap just before a collection: live data and garbage not yet collected.
// V8's heap only: array buffers (the upload's bytes, a piece at a time as they arrive) are not in it.
// Also printed: the workerd process's peak resident size above its size just before
// (/proc/<pid>/status VmHWM, reset through /proc/<pid>/clear_refs): an upper bound, since the
// process also runs local D1 (SQLite and its isolate), which writes every row twice; and the CPU
// this Node process spent sending the upload and reading the answer (the load generator).
// (The inspector answers heap questions only between requests in workerd, so it cannot sample
// the heap during one; V8's trace can.)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startServer } from "../lib/server.mjs";
import { workerdWithV8Flags } from "../lib/workerd-v8-flags.mjs";
import { workerdPids } from "../lib/workerd-processes.mjs";

// Node 20 has WebSocket (for the inspector) only behind a flag: run again with it.
if (typeof globalThis.WebSocket === "undefined") {
  const again = spawnSync(process.execPath, ["--experimental-websocket", "--no-warnings", fileURLToPath(import.meta.url)], { stdio: "inherit" });
  process.exit(again.status ?? 1);
}

const ROWS = 100_000;
const LIMIT_BYTES = 10 * 1024 * 1024;
const TARGET_MB = 64;
const MB = 1024 * 1024;

const HEADER = [
  "Registered Card Last 4",
  "Transaction Date",
  "Type",
  "Status",
  "Authorization Billing Amount",
  "Merchant Name",
  "VCN Nickname",
  "VCN Last 4",
  "Reference Id",
  "Name On Card",
];

/**
 * `rows` valid transactions padded to just under `bytes`, every one new (ids from `idPrefix`).
 * `wide`: a character outside Latin-1 (the euro sign) in every row's merchant name.
 */
function generateStatement({ rows, bytes, idPrefix, wide }) {
  const merchant = (i) => `ADS ${i % 50} ${wide ? "\u20ac" : "E"}`;
  const line = (i, pad) => {
    const day = (i % 28) + 1;
    const cents = 100 + ((i * 7919) % 250_000);
    return [
      `*${["2375", "0042", "7781", "5150"][i % 4]}`,
      `3/${day}/25`,
      i % 97 === 0 ? "CREDIT" : "DEBIT",
      ["CLEARED", "CLEARED", "CLEARED", "PENDING", "DECLINED"][i % 5],
      `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`,
      merchant(i),
      `Ads ${(i % 8) + 1}`,
      String(4100 + (i % 8)),
      `${idPrefix}${String(i).padStart(23 - idPrefix.length, "0")}`,
      `Dana Lee${pad}`,
    ].join(",");
  };
  const size = (text) => Buffer.byteLength(text);
  const unpadded = size(`${HEADER.join(",")}\r\n`) + Array.from({ length: rows }, (_, i) => size(`${line(i, "")}\r\n`)).reduce((a, b) => a + b, 0);
  const padEach = Math.floor((bytes - unpadded) / rows);
  if (padEach < 0) throw new Error("the rows do not fit the size");
  const pad = " ".repeat(padEach);
  const lines = [HEADER.join(",")];
  for (let i = 0; i < rows; i++) lines.push(line(i, pad));
  return `${lines.join("\r\n")}\r\n`;
}

const kb = (status, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
const rss = (pids) => pids.reduce((sum, pid) => sum + kb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS"), 0);
const peakRss = (pids) => pids.reduce((sum, pid) => sum + kb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmHWM"), 0);
/** Linux: writing 5 to clear_refs sets the peak resident size back to the current one. */
const resetPeak = (pids) => pids.forEach((pid) => writeFileSync(`/proc/${pid}/clear_refs`, "5"));

/** A DevTools protocol session with the Worker's isolate (wrangler's --inspector-port). */
async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target) throw new Error(`no inspector target on port ${port}`);
  // wrangler's inspector proxy admits local origins only; Node's WebSocket sends none by itself.
  const ws = new globalThis.WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  // The proxy turns on network inspection, which would copy every D1 call's body into the isolate.
  await send("Network.disable");
  return { send, close: () => ws.close() };
}

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

/**
 * V8's --trace-gc lines (`[pid:isolate] 123 ms: Scavenge 8.1 (10.2) -> 7.6 (10.9) MB, ... reason`):
 * each collection's isolate, the heap's used size before and after it, and the reason.
 */
function gcEvents(text) {
  const events = [];
  for (const line of text.split("\n")) {
    const m = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: ([A-Za-z-]+(?: \([a-z ]+\))?) ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB,(.*)$/.exec(line);
    if (m) events.push({ isolate: m[1], kind: m[2], before: Number(m[3]) * MB, after: Number(m[4]) * MB, reason: m[5] });
  }
  return events;
}

async function main() {
  if (process.platform !== "linux") {
    console.log("Skipped: the memory figures are read from /proc (Linux only).");
    return;
  }
  // Each file has its own reference ids, so that its first upload inserts all of its rows.
  const files = [
    { name: "ASCII", text: () => generateStatement({ rows: ROWS, bytes: LIMIT_BYTES - 4096, idPrefix: "11", wide: false }) },
    { name: "non-Latin-1", text: () => generateStatement({ rows: ROWS, bytes: LIMIT_BYTES - 4096, idPrefix: "22", wide: true }) },
  ];

  const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-billing-memory-"));
  const gcLog = path.join(work, "gc.log");
  writeFileSync(gcLog, "");
  // workerd as wrangler runs it (a dependency of wrangler's), with V8 tracing every collection.
  const workerd = createRequire(import.meta.url)("workerd").default;
  process.env.MINIFLARE_WORKERD_PATH = workerdWithV8Flags({ dir: work, workerd, flags: ["--trace-gc", "--gc-global"], logFile: gcLog });
  const server = await startServer({ port: await freePort(), stateDir: path.join(work, "state"), stdio: "pipe" });
  // wrangler's log is drained (a full pipe would stall it); its tail is shown if the run fails.
  let log = "";
  for (const stream of [server.child.stdout, server.child.stderr]) stream?.on("data", (d) => (log = (log + d).slice(-4000)));
  let devtools;
  try {
    const args = server.child.spawnargs;
    devtools = await inspector(Number(args[args.indexOf("--inspector-port") + 1]));
    const register = await fetch(`${server.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bench-admin", password: "bench-password" }),
    });
    if (register.status !== 201) throw new Error(`registering the first admin: ${register.status} ${await register.text()}`);
    const cookie = register.headers.getSetCookie()[0].split(";")[0];
    const upload = async (text, name) => {
      const form = new FormData();
      form.append("file", new Blob([text], { type: "text/csv" }), name);
      const start = performance.now();
      const cpu = process.cpuUsage();
      const res = await fetch(`${server.url}/api/transactions/upload`, { method: "POST", headers: { cookie }, body: form });
      const body = await res.json();
      const used = process.cpuUsage(cpu);
      if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
      return { ms: performance.now() - start, clientCpuMs: (used.user + used.system) / 1000, body };
    };

    // Every code path loaded and local D1 started before the idle figures.
    await upload(generateStatement({ rows: 200, bytes: 40_000, idPrefix: "99", wide: true }), "warm-up.csv");
    const pids = workerdPids(server.child.pid);
    if (!pids.length) throw new Error("no workerd process found under wrangler");

    /** The collections traced since `from` (characters of the log), once `done(events)` holds or after 5 s. */
    const tracedSince = async (from, done) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const events = gcEvents(readFileSync(gcLog, "utf8").slice(from));
        if (done(events) || Date.now() > deadline) return events;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const logLength = () => readFileSync(gcLog, "utf8").length;

    /**
     * One upload of `text`: its time and answer; the Worker's isolate, idle (just after a full
     * collection asked for through the inspector) and at its peaks during the upload; and the
     * workerd process's peak resident size above its size just before.
     */
    const measure = async (text, name) => {
      // The isolate answers a collection request once it next runs; a short idle request gives it that.
      // Its trace line names the Worker's isolate (the process also runs wrangler's proxies and local D1).
      const before = logLength();
      const collected = devtools.send("HeapProfiler.collectGarbage");
      await fetch(`${server.url}/api/setup`);
      await collected;
      const requested = (e) => e.reason.includes("low memory notification");
      const idle = (await tracedSince(before, (events) => events.some(requested))).findLast(requested);
      if (!idle) throw new Error("V8 traced no collection of the Worker's isolate");
      const idleRss = rss(pids);
      resetPeak(pids);
      const during = logLength();
      const { ms, clientCpuMs, body } = await upload(text, name);
      const rssAbove = peakRss(pids) - idleRss;
      // A collection at the upload's very end may reach the log a moment after the answer.
      await new Promise((r) => setTimeout(r, 300));
      const events = (await tracedSince(during, () => true)).filter((e) => e.isolate === idle.isolate);
      return {
        ms,
        clientCpuMs,
        body,
        idleHeap: idle.after,
        collections: events.length,
        // What the isolate still held after a full collection: its live data, which V8 cannot
        // free to stay within a limit (garbage it can).
        liveAbove: Math.max(0, ...events.map((e) => e.after)) - idle.after,
        // The heap at its fullest, just before a collection: live data and garbage.
        fullestAbove: Math.max(0, ...events.map((e) => e.before)) - idle.after,
        idleRss,
        rssAbove,
      };
    };

    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
    const figures = (m) =>
      `live peak +${mb(m.liveAbove)} (heap at its fullest +${mb(m.fullestAbove)}, ${m.collections} collections), ${seconds(m.ms)}; ` +
      `workerd RSS +${mb(m.rssAbove)}; load generator CPU ${Math.round(m.clientCpuMs)} ms`;
    console.log("");
    for (const file of files) {
      const text = file.text();
      const full = await measure(text, `${file.name}.csv`);
      if (full.body.count !== ROWS || full.body.errorCount !== 0) throw new Error(`${file.name}: ${JSON.stringify(full.body)}`);
      const again = await measure(text, `${file.name}.csv`);
      if (again.body.duplicateCount !== ROWS) throw new Error(`${file.name} again: ${JSON.stringify(again.body)}`);
      const worst = Math.max(full.liveAbove, again.liveAbove);
      console.log(
        `${file.name}: ${mb(Buffer.byteLength(text))}, ${ROWS.toLocaleString("en-US")} rows; the Worker's isolate idle ${mb(full.idleHeap)} (workerd process ${mb(full.idleRss)})\n` +
          `  import     ${figures(full)}\n` +
          `  re-upload  ${figures(again)} (nothing written)\n` +
          `  live peak above idle / target: ${mb(worst)} / ${TARGET_MB} MB = ${(worst / (TARGET_MB * MB)).toFixed(2)}; ` +
          `the isolate at ${mb(full.idleHeap + worst)} of its 128 MB limit (${((full.idleHeap + worst) / (128 * MB)).toFixed(2)}); ` +
          `target ${worst <= TARGET_MB * MB ? "met" : "MISSED"}`,
      );
    }
    console.log("(Times are slowed by --gc-global; scripts/bench/billing-import.mjs measures the import's speed.)");
  } catch (err) {
    await new Promise((r) => setTimeout(r, 2000));
    console.error(`wrangler's last output:\n${log}`);
    throw err;
  } finally {
    devtools?.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
