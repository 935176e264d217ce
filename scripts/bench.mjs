// `npm run bench`: runs every benchmark in scripts/bench/ in turn. Each prints its own figures as
// ratios against a baseline it measures in the same run. BENCH=name runs only the matching ones.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/server.mjs";

const dir = path.join(ROOT, "scripts", "bench");
const only = process.env.BENCH;
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && (!only || f.includes(only)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, [path.join(dir, file)], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) failed++;
}
if (!files.length) console.log("No benchmarks found in scripts/bench/");
process.exit(failed ? 1 : 0);
