// Benchmark: the memory a statement upload takes in workerd (README "Billing statements and
// invoicing"; the isolate's limit is 128 MB). Two files at the upload limits, 100,000 rows just
// under 10 MB each: one all ASCII, one with a character outside Latin-1 in every row (V8 keeps such
// text two bytes a character). Each is imported whole on `wrangler dev` with local D1.
//
// Two figures per upload, both against the idle Worker measured just before it (after a small
// warm-up upload):
//   workerd RSS  the process's peak resident size (/proc/<pid>/status VmHWM, reset through
//                /proc/<pid>/clear_refs before the upload) minus its idle size. The process also
//                runs local D1 (SQLite), so this is an upper bound on the Worker's own use.
//   V8 heap      the Worker isolate's used heap, sampled through the inspector every few ms during
//                the upload (CDP Runtime.getHeapUsage), minus the idle heap: the isolate's own use,
//                garbage not yet collected included.
// Target: at most 64 MB above the idle isolate.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startServer } from "../lib/server.mjs";

// Node 20 has WebSocket (for the inspector) only behind a flag: run again with it.
if (typeof WebSocket === "undefined") {
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

/** The workerd processes under a parent pid (wrangler runs the Worker and local D1 in one). */
function workerdPids(rootPid) {
  const children = new Map();
  const names = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we listed it.
    }
  }
  const found = [];
  const walk = (pid) => {
    for (const child of children.get(pid) ?? []) {
      if (names.get(child)?.startsWith("workerd")) found.push(child);
      walk(child);
    }
  };
  walk(rootPid);
  return found;
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
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "http://localhost" } });
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

/** What the isolate holds: the JS heap in use, workerd's objects on V8's C++ heap, and array buffers' memory. */
const isolateBytes = (usage) => usage.usedSize + (usage.embedderHeapUsedSize ?? 0) + (usage.backingStorageSize ?? 0);

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

async function main() {
  if (process.platform !== "linux") {
    console.log("Skipped: the memory figures are read from /proc (Linux only).");
    return;
  }
  // Each upload gets its own reference ids, so that every one inserts all of its rows.
  const files = [
    { name: "ASCII", text: (run) => generateStatement({ rows: ROWS, bytes: LIMIT_BYTES - 4096, idPrefix: `1${run}`, wide: false }) },
    { name: "non-Latin-1", text: (run) => generateStatement({ rows: ROWS, bytes: LIMIT_BYTES - 4096, idPrefix: `2${run}`, wide: true }) },
  ];

  const stateDir = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-billing-memory-"));
  const server = await startServer({ port: await freePort(), stateDir, stdio: "pipe" });
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
      const res = await fetch(`${server.url}/api/transactions/upload`, { method: "POST", headers: { cookie }, body: form });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
      return { ms: performance.now() - start, body };
    };

    // Every code path loaded and local D1 started before the idle figures.
    await upload(generateStatement({ rows: 200, bytes: 40_000, idPrefix: "99", wide: true }), "warm-up.csv");
    const pids = workerdPids(server.child.pid);
    if (!pids.length) throw new Error("no workerd process found under wrangler");

    /**
     * One upload of `file` under the inspector's eye: its time, the isolate's peak over its idle
     * size, and the workerd process's. `live`: every sample first collects garbage, so the peak is
     * what the isolate could not free (what its memory limit applies to); otherwise the samples
     * include garbage V8 had not collected yet.
     */
    const measure = async (file, live) => {
      // The isolate answers a collection request once it next runs; a short idle request gives it that.
      const collected = devtools.send("HeapProfiler.collectGarbage");
      await fetch(`${server.url}/api/setup`);
      await collected;
      const idleHeap = isolateBytes(await devtools.send("Runtime.getHeapUsage"));
      const idleRss = rss(pids);
      resetPeak(pids);
      let peakHeap = idleHeap;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          if (live) await devtools.send("HeapProfiler.collectGarbage");
          peakHeap = Math.max(peakHeap, isolateBytes(await devtools.send("Runtime.getHeapUsage")));
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const { ms, body } = await upload(file.text(live ? "1" : "2"), `${file.name}.csv`);
      sampling = false;
      await sampler;
      if (body.count !== ROWS || body.errorCount !== 0) throw new Error(`${file.name}: ${JSON.stringify(body)}`);
      return { ms, idleHeap, heapAbove: peakHeap - idleHeap, idleRss, rssAbove: peakRss(pids) - idleRss };
    };

    console.log("");
    for (const file of files) {
      const plain = await measure(file, false);
      const live = await measure(file, true);
      const bytes = Buffer.byteLength(file.text("0"));
      console.log(
        `${file.name.padEnd(12)} ${mb(bytes)}, ${ROWS.toLocaleString("en-US")} rows, ${(plain.ms / 1000).toFixed(1)} s: ` +
          `isolate ${mb(live.idleHeap)} idle, peak +${mb(live.heapAbove)} live (+${mb(plain.heapAbove)} with uncollected garbage); ` +
          `workerd RSS ${mb(plain.idleRss)} idle, peak +${mb(plain.rssAbove)}  ` +
          `target ${live.heapAbove <= TARGET_MB * MB ? "met" : "MISSED"} (live <= +${TARGET_MB} MB)`,
      );
    }
  } catch (err) {
    await new Promise((r) => setTimeout(r, 2000));
    console.error(`wrangler's last output:\n${log}`);
    throw err;
  } finally {
    devtools?.close();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
