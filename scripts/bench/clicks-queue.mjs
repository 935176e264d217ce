// Benchmark: how clicks should travel to the clicks queue
// (docs/tracking.md "Clicks through a queue"): each isolate's micro-batch as one message (what the
// Worker does), or each click as its own message. Both run the same Trackyard under `wrangler dev`, one after the other, through
// scripts/bench/workers/count-queue.js, which counts the queue's sends, messages and clicks and the
// consumer's deliveries and time; with BENCH_MESSAGE_PER_CLICK=1 it sends every click by its own send.
//
// Per mode: wrk drives /r/ (BENCH_CONNECTIONS connections, BENCH_SECONDS seconds, every request from
// its own address so every click is stored), then the bench waits until the consumer has written
// every answered click (the Click Log's total), and prints /r/'s throughput, p99 and server CPU per
// request, queue operations and messages per click, the consumer's deliveries and its time per
// click, and how long after the load the last click landed (the backlog the load left).
import path from "node:path";
import { addressesScript, benchDirs, campaignOn, fmt, sleep } from "../lib/click-bench.mjs";
import { ROOT, startServer } from "../lib/server.mjs";
import { cpuCount, descendantsNamed, ensureWrk, loadAverage, runWrk } from "../lib/wrk.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PORT = 8945;
const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "count-queue.js");

const { tmp, removeAll } = benchDirs("trackyard-bench-queue");

async function storedClicks(base, cookie, campaignId) {
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const res = await fetch(`${base}/api/clicks?startDate=${day(-1)}&endDate=${day(1)}&campaignId=${campaignId}&pageSize=1`, { headers: { cookie } });
  if (!res.ok) throw new Error(`clicks: ${res.status} ${await res.text()}`);
  return (await res.json()).total;
}

async function run(label, vars, script) {
  const server = await startServer({ port: PORT, stateDir: tmp("state"), stdio: "pipe", script: ENTRY, vars });
  // An unread pipe would stall the server.
  server.child.stdout?.resume();
  server.child.stderr?.resume();
  try {
    const { cookie, campaignId } = await campaignOn(server.url);
    const url = `${server.url}/r/${campaignId}?cid=1799000000000001&plc=tiktok_feed`;
    await runWrk({ url, seconds: 2, connections: CONNECTIONS, script });
    // After the warm-up: wrangler may have replaced its first workerd by then.
    const pids = descendantsNamed(server.child.pid, "workerd");
    const warmStored = await waitStored(server.url, cookie, campaignId, -1);
    const before = await (await fetch(`${server.url}/__bench/queue`)).json();
    const r = await runWrk({ url, seconds: SECONDS, connections: CONNECTIONS, script, serverPids: pids });
    const endedAt = Date.now();
    const stored = (await waitStored(server.url, cookie, campaignId, warmStored + r.ok)) - warmStored;
    const after = await (await fetch(`${server.url}/__bench/queue`)).json();
    const d = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
    const clicks = d.clicks || 1;
    return {
      label,
      rps: r.rps,
      p99: r.p99,
      cpu: r.serverCpuMsPerRequest,
      answered: r.ok,
      stored,
      sendsPerClick: d.sends / clicks,
      messagesPerClick: d.messages / clicks,
      deliveries: d.deliveries,
      consumerUsPerClick: (d.consumerMs * 1000) / clicks,
      drainS: Math.max(0, after.lastWrittenAt - endedAt) / 1000,
    };
  } finally {
    await server.stop();
  }
}

/** Polls the Click Log until it holds `expected` clicks (or stops growing for 10 s); returns the count. */
async function waitStored(base, cookie, campaignId, expected) {
  let last = -1;
  let stable = 0;
  for (const giveUpAt = Date.now() + 180_000; Date.now() < giveUpAt; await sleep(500)) {
    const n = await storedClicks(base, cookie, campaignId);
    if (expected >= 0 && n >= expected) return n;
    stable = n === last ? stable + 1 : 0;
    last = n;
    if (stable >= (expected < 0 ? 4 : 20)) return n;
  }
  return last;
}

try {
  ensureWrk();
  const script = addressesScript(tmp("wrk"));
  console.log(`wrk, ${CONNECTIONS} connections, ${SECONDS} s per mode; ${cpuCount()} cores, load average ${loadAverage().join(" ")} before.`);
  const results = [await run("micro-batch per message", {}, script), await run("one message per click", { BENCH_MESSAGE_PER_CLICK: "1" }, script)];
  console.log(
    "\nmode                        req/s  p99 ms  server CPU/req  answered  stored  sends/click  messages/click  deliveries  consumer µs/click  last click landed",
  );
  for (const x of results) {
    console.log(
      `${x.label.padEnd(26)} ${fmt(x.rps).padStart(6)} ${fmt(x.p99, 1).padStart(7)} ${`${fmt(x.cpu, 2)} ms`.padStart(15)} ${fmt(x.answered).padStart(9)} ${fmt(x.stored).padStart(7)} ${fmt(x.sendsPerClick, 4).padStart(12)} ${fmt(x.messagesPerClick, 4).padStart(15)} ${fmt(x.deliveries).padStart(11)} ${fmt(x.consumerUsPerClick, 1).padStart(18)} ${`${fmt(x.drainS, 1)} s after the load`.padStart(24)}`,
    );
  }
  console.log(`load average after: ${loadAverage().join(" ")}`);
  const lost = results.filter((x) => x.stored < x.answered);
  console.log(lost.length ? `FAIL: clicks lost in ${lost.map((x) => x.label).join(", ")}` : "PASS: every answered click stored in both modes");
  process.exitCode = lost.length ? 1 : 0;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  removeAll();
}
