// HTTP load with wrk (Debian's `wrk`: C, event-driven, far lighter than a Node load tool), and the
// CPU time of processes, so a benchmark can print what its load generator and the server used.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS_PER_SECOND = 100;

/** wrk's path, installing Debian's package when it is missing. */
export function ensureWrk() {
  const found = spawnSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).stdout.trim();
  if (found) return found;
  console.log("wrk is missing: installing Debian's wrk package (apt-get install wrk)...");
  const root = process.getuid?.() === 0;
  const run = (args) => spawnSync(root ? args[0] : "sudo", root ? args.slice(1) : args, { stdio: "inherit" });
  run(["apt-get", "update"]);
  const installed = run(["apt-get", "install", "-y", "--no-install-recommends", "wrk"]);
  if (installed.status !== 0 || !existsSync("/usr/bin/wrk")) throw new Error("could not install wrk: run `apt-get install wrk` and try again");
  return "/usr/bin/wrk";
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** The pids of a process's descendants named `name` (e.g. the workerd under a wrangler). */
export function descendantsNamed(rootPid, name) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push({ pid: Number(entry), comm });
    } catch {
      // The process ended while the list was read.
    }
  }
  const found = [];
  const queue = [rootPid];
  while (queue.length) {
    for (const child of children.get(queue.shift()) ?? []) {
      if (child.comm === name) found.push(child.pid);
      queue.push(child.pid);
    }
  }
  return found;
}

const toMs = (value, unit) => Number(value) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit];

/**
 * One wrk run against `url` for `seconds`, with a Lua `script` when given. Returns its figures and
 * wrk's own CPU use (bash's `times` of its child), plus the CPU the `serverPids` used meanwhile.
 */
export async function runWrk({ url, seconds, connections, threads = 1, script, serverPids = [] }) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "30s", ...(script ? ["-s", script] : []), url];
  const before = serverPids.map(cpuSeconds);
  const started = process.hrtime.bigint();
  const output = await new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", 'wrk "$@"; status=$?; times; exit $status', "wrk", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}:\n${out}`))));
  });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const serverCpu = serverPids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - before[i], 0);
  const number = (re) => {
    const m = re.exec(output);
    return m ? Number(m[1]) : 0;
  };
  const latency = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  // `times` prints the shell's own times, then its children's: "0m1.234s 0m0.567s".
  const timeLines = [...output.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)];
  const child = timeLines.at(-1);
  const wrkCpu = child ? Number(child[1]) * 60 + Number(child[2]) + Number(child[3]) * 60 + Number(child[4]) : NaN;
  const requests = number(/^\s*(\d+) requests in /m);
  const notOk = number(/Non-2xx or 3xx responses: (\d+)/);
  const errors = [...output.matchAll(/(connect|read|write|timeout) (\d+)/g)].reduce((s, m) => s + Number(m[2]), 0);
  return {
    rps: number(/^Requests\/sec:\s+([\d.]+)/m),
    p50: latency(50),
    p99: latency(99),
    requests,
    ok: requests - notOk,
    notOk,
    errors,
    wrkCpuPercent: (wrkCpu / wallSeconds) * 100,
    serverCpuMsPerRequest: requests ? (serverCpu * 1000) / requests : NaN,
    output,
  };
}

/** Whether this machine's other load is high (for the report: runs on a busy machine are noisy). */
export function loadAverage() {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
}

export const cpuCount = () => Number(execFileSync("nproc", { encoding: "utf8" }).trim());
