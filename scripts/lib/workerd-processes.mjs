// The workerd processes a `wrangler dev` started, read from /proc: the memory benchmarks measure them.
import { readdirSync, readFileSync } from "node:fs";

/** The workerd processes under a parent pid (wrangler runs the Worker and local D1 in them); none off Linux. */
export function workerdPids(rootPid) {
  if (process.platform !== "linux") return [];
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
