// Benchmark: the archive Workflow (docs/data.md "Retention and archives") under `wrangler dev`, on days of
// BENCH_CLICKS_PER_DAY clicks (default 1,000,000).
//
// Two days of clicks are generated into the local D1 (scripts/lib/click-days.mjs), with a click
// 100 days later as today's traffic. Trackyard then runs under `wrangler dev` (the local Workflows
// engine, D1 and R2, state kept in one folder), and the bench plays the cron: GET /__scheduled
// with the time set 91 days after the days, every few seconds (the deployed cron runs every 15
// minutes). The cron's jobs run the click rollup and start the archive runs, one day at a time.
//  1. The first day is archived and deleted by one run, undisturbed: every step is printed as the
//     Worker logs it, with the time since the run began and the CPU the workerd process used
//     meanwhile (the Worker, and locally also D1's SQLite and R2: an upper bound on the Worker's).
//  2. The second day's run is killed half-way (SIGKILL to wrangler's process group after the
//     steps named in BENCH_KILL_AT, default half of its exports and half of its deletes), and
//     wrangler is started again on the same state. The run finishes on its own: nothing but the
//     cron's next call (as every 15 minutes) is needed, and the steps it had finished are not run
//     again (they are kept by the engine; their log lines do not repeat).
// Then, with wrangler stopped: each day's clicks are gone from D1 (with their exits), and its
// archive (read from R2, gunzipped by Node) holds exactly the clicks D1 held before, each once
// (count, distinct count, and a fingerprint of the click ids). One run per day in click_archive_runs.
//
// On this 2-core machine, busy with other work, a million clicks take minutes to generate and to
// archive; BENCH_CLICKS_PER_DAY=100000 runs the same in a few minutes.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { DAY_MS, generateClicks, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations, freePort, ROOT, startServer } from "../lib/server.mjs";
import { cpuSeconds, descendantsNamed, loadAverage } from "../lib/wrk.mjs";

const PER_DAY = Number(process.env.BENCH_CLICKS_PER_DAY ?? 1_000_000);
/** The Workflow's default sizes (retention/archive-day.ts ARCHIVE_SIZES). */
const CHUNK_ROWS = 50_000;
const DELETE_STEP_ROWS = 50_000;
const EXPORTS = Math.ceil((PER_DAY + 1) / CHUNK_ROWS);
const DELETES = Math.ceil(PER_DAY / DELETE_STEP_ROWS);
/** Where the second day's run is killed: half-way through its exports, and through its deletes. */
const KILL_AT = (
  process.env.BENCH_KILL_AT ?? [EXPORTS > 1 ? `export ${Math.floor(EXPORTS / 2)}` : "", DELETES > 1 ? `delete ${Math.floor(DELETES / 2)}` : ""].join(",")
)
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s && s !== "none");
const RETENTION = 90;
const DAYS = ["2024-01-01", "2024-01-02"];
const dayStart = (day) => Date.parse(`${day}T00:00:00Z`);
/** The cron's time: 91 days after the second day, when both are past the retention. */
const NOW = dayStart(DAYS[1]) + (RETENTION + 1) * DAY_MS + 3_600_000;
const CRON_EVERY_MS = 5_000;

const fmt = (n, d = 0) => Number(n).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-archive-workflow-"));
const stateDir = path.join(work, "state");
// wrangler dev wants the assets folder to exist; the app itself is not needed here.
mkdirSync(path.join(ROOT, "dist", "client"), { recursive: true });

/** Count and an order-free fingerprint (sum of each id's MD5 head) of a list of click ids. */
function fingerprint() {
  let count = 0;
  let sum = 0n;
  const seen = new Set();
  let repeats = 0;
  return {
    add(id) {
      count++;
      if (seen.has(id)) repeats++;
      seen.add(id);
      sum += BigInt(`0x${createHash("md5").update(id).digest("hex").slice(0, 12)}`);
    },
    result: () => ({ count, distinct: seen.size, repeats, sum: sum.toString(16) }),
  };
}

/** The click ids D1 holds for a day (read a page at a time through Node's proxy). */
async function idsInD1(d1, day) {
  const f = fingerprint();
  for (let after = 0; ;) {
    const { results } = await d1
      .prepare("select id, click_id from clicks where clicked_at >= ?1 and clicked_at < ?2 and id > ?3 order by id limit 100000")
      .bind(dayStart(day), dayStart(day) + DAY_MS, after)
      .all();
    for (const row of results) f.add(row.click_id);
    if (results.length < 100_000) return f.result();
    after = results.at(-1).id;
  }
}

/** The click ids (first column) of a day's archive, gunzipped by Node. */
async function idsInArchive(bucket, day) {
  const object = await bucket.get(`clicks/${day}.csv.gz`);
  if (!object) throw new Error(`no archive of ${day}`);
  const bytes = Buffer.from(await object.arrayBuffer());
  const f = fingerprint();
  let rest = "";
  let header = true;
  for await (const piece of Readable.from([bytes]).pipe(createGunzip()).setEncoding("utf8")) {
    const lines = (rest + piece).split("\r\n");
    rest = lines.pop();
    for (const line of lines) {
      if (header) header = false;
      else f.add(line.slice(0, line.indexOf(",")));
    }
  }
  if (rest) throw new Error(`${day}: the archive ends in the middle of a line`);
  return { ...f.result(), bytes: bytes.length };
}

// --- The days ---------------------------------------------------------------------------------
const load = loadAverage();
console.log(`${fmt(PER_DAY)} clicks on each of ${DAYS.join(" and ")}; load average ${load}; kills: ${KILL_AT.join(", ") || "none"}`);
applyMigrations(stateDir, { quiet: true });
const before = {};
{
  const local = openLocalD1(stateDir);
  try {
    const d1 = await local.db();
    await seedCampaigns(d1);
    let id = 1;
    for (const day of DAYS) {
      const t = performance.now();
      id = await generateClicks(d1, { start: dayStart(day), firstId: id, count: PER_DAY });
      console.log(`generated ${day}: ${fmt(PER_DAY)} clicks (40% with an exit) in ${secs(performance.now() - t)}`);
    }
    // Today's traffic: the rollup's newest counted click stays in D1, so it must not be on a day archived.
    await generateClicks(d1, { start: NOW - DAY_MS, firstId: id, count: 10 });
    for (const day of DAYS) before[day] = await idsInD1(d1, day);
  } finally {
    await local.mf.dispose();
  }
}

// --- wrangler dev, and the cron -----------------------------------------------------------------
const port = await freePort();
let server;
/** CPU seconds of each workerd process under wrangler at the last log line. */
let cpuSeen = new Map();
/** The CPU workerd processes used since the last call (ones started meanwhile count whole). */
function cpuSince() {
  let used = 0;
  const now = new Map();
  for (const pid of descendantsNamed(server.child.pid, "workerd")) {
    try {
      now.set(pid, cpuSeconds(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  for (const [pid, cpu] of now) used += cpu - (cpuSeen.get(pid) ?? 0);
  cpuSeen = now;
  return used;
}
/** Log lines of the archive runs, as they come: [{ at, day, run, step, text, cpu }]. */
const lines = [];
let waiters = [];
const runStarted = {};

async function start() {
  server = await startServer({ port, stateDir, stdio: "pipe", timeoutMs: 180_000 });
  cpuSeen = new Map();
  cpuSince();
  for (const stream of [server.child.stdout, server.child.stderr]) {
    let partial = "";
    stream.on("data", (data) => {
      const split = (partial + data).split("\n");
      partial = split.pop();
      for (const raw of split) {
        const line = raw.trim();
        const m = /^click-archive (\S+) run (\d+): (.+?)(?: \(try \d+\))?: (.*)$/.exec(line);
        if (m) {
          const entry = { at: performance.now(), day: m[1], run: Number(m[2]), step: m[3], text: m[4], cpu: cpuSince() };
          runStarted[m[1]] ??= entry.at;
          lines.push(entry);
          console.log(`  ${m[1]} +${secs(entry.at - runStarted[m[1]]).padStart(8)}  cpu ${entry.cpu.toFixed(1).padStart(5)} s  ${m[3]}: ${m[4]}`);
        } else if (line.includes("click-retention:") || line.includes("click-archive")) {
          console.log(`  ${line}`);
        }
        waiters = waiters.filter((w) => !w());
      }
    });
  }
}
/** Resolves once a logged step matches. */
const stepLogged = (match) =>
  new Promise((resolve) => {
    const check = () => {
      const hit = lines.find(match);
      if (hit) resolve(hit);
      return Boolean(hit);
    };
    if (!check()) waiters.push(check);
  });

/** The cron, played every CRON_EVERY_MS once the last call is answered (or given up on); stopCron ends the round. */
let cronRound = 0;
function playCron() {
  const round = ++cronRound;
  const fire = async () => {
    if (round !== cronRound) return;
    try {
      // Read to the end, and given up on after a while: one call that never answers (seen once
      // while a step held workerd busy) must not stop the cron, as the deployed one never stops.
      await (await fetch(`${server.url}/__scheduled?time=${NOW}`, { signal: AbortSignal.timeout(30_000) })).text();
    } catch {
      // wrangler being killed or started, or the call given up on: the next call comes anyway.
    }
    setTimeout(fire, CRON_EVERY_MS);
  };
  void fire();
}
const stopCron = () => cronRound++;

async function kill() {
  stopCron();
  process.kill(-server.child.pid, "SIGKILL");
  await new Promise((resolve) => (server.child.exitCode !== null ? resolve() : server.child.once("exit", resolve)));
}

const summary = (day) => {
  const mine = lines.filter((l) => l.day === day);
  const ms = (step) => mine.filter((l) => l.step.startsWith(step)).reduce((s, l) => s + Number(/\((\d+) ms\)$/.exec(l.text)?.[1] ?? 0), 0);
  // The first line's CPU also holds what ran before the run (the cron's rollup of both days).
  const stepped = mine.slice(1);
  const maxCpu = Math.max(...stepped.map((l) => l.cpu));
  const worst = stepped.find((l) => l.cpu === maxCpu);
  return (
    `${day}: ${mine.length} steps logged, ${secs(mine.at(-1).at - mine[0].at)} from the first to the last; in the steps: export ${secs(ms("export"))}, ` +
    `complete ${secs(ms("complete"))}, read back ${secs(ms("verify"))}, deletes ${secs(ms("delete"))}; the most workerd CPU between two steps: ${maxCpu.toFixed(1)} s (${worst.step})`
  );
};

let failed = false;
try {
  await start();
  const started = performance.now();
  playCron();
  console.log(`\n1. ${DAYS[0]}: archived and deleted undisturbed (the cron also rolls up both days first)`);
  await stepLogged((l) => l.day === DAYS[0] && l.step === "finish");
  console.log(`   ${summary(DAYS[0])}`);

  console.log(`\n2. ${DAYS[1]}: wrangler killed after ${KILL_AT.join(" and after ") || "nothing"}`);
  for (const point of KILL_AT) {
    await stepLogged((l) => l.day === DAYS[1] && l.step === point);
    if (lines.some((l) => l.day === DAYS[1] && l.step === "finish")) break;
    await kill();
    const killedAt = performance.now();
    console.log(`   --- wrangler killed (SIGKILL) after ${point}; starting it again on the same state ---`);
    await start();
    console.log(`   --- wrangler answering again after ${secs(performance.now() - killedAt)}; the cron goes on ---`);
    playCron();
  }
  await stepLogged((l) => l.day === DAYS[1] && l.step === "finish");
  console.log(`   ${summary(DAYS[1])}`);
  const steps = lines.filter((l) => l.day === DAYS[1]).map((l) => l.step);
  const repeated = steps.filter((s, i) => steps.indexOf(s) !== i);
  console.log(`   steps run twice: ${repeated.length ? repeated.join(", ") : "none"} (a step cut off by the kill runs again; one that finished does not)`);
  console.log(`\nboth days in ${secs(performance.now() - started)} (load average ${loadAverage()})`);
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  stopCron();
  await server?.stop();
}

// --- What is left: D1 and the archives, read with wrangler stopped -------------------------------
if (!failed) {
  const local = openLocalD1(stateDir);
  try {
    const d1 = await local.db();
    const bucket = await local.archive();
    const runs = (await d1.prepare("select day, run, outcome from click_archive_runs order by id").all()).results;
    console.log(`\nruns: ${runs.map((r) => `${r.day} run ${r.run}: ${r.outcome}`).join("; ")}`);
    for (const day of DAYS) {
      const left = await d1
        .prepare("select count(*) as n from clicks where clicked_at >= ?1 and clicked_at < ?2")
        .bind(dayStart(day), dayStart(day) + DAY_MS)
        .first("n");
      const archived = await idsInArchive(bucket, day);
      const ledger = await d1.prepare("select rows, bytes, deleted_at from click_archives where day = ?1").bind(day).first();
      const exact = archived.count === before[day].count && archived.distinct === archived.count && archived.sum === before[day].sum;
      const once = runs.filter((r) => r.day === day).length === 1;
      console.log(
        `${day}: D1 held ${fmt(before[day].count)} clicks, now ${fmt(left)}; the archive (${fmt(archived.bytes / 1024 ** 2, 1)} MB) holds ${fmt(archived.count)} rows, ` +
          `${fmt(archived.distinct)} distinct, ${exact ? "exactly D1's clicks (same fingerprint)" : "NOT D1's clicks"}; ledger: ${fmt(ledger?.rows ?? 0)} rows, ` +
          `${ledger?.deleted_at ? "deleted" : "NOT deleted"}; ${once ? "one run" : "MORE THAN ONE RUN"}`,
      );
      if (!exact || left !== 0 || !ledger?.deleted_at || !once) failed = true;
    }
    const lander = await d1
      .prepare("select count(*) as n from lander_clicks where clicked_at < ?1")
      .bind(dayStart(DAYS[1]) + 2 * DAY_MS)
      .first("n");
    console.log(`exits (lander_clicks) of the two days left: ${fmt(lander)}`);
    if (lander !== 0) failed = true;
  } finally {
    await local.mf.dispose();
  }
}
rmSync(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
