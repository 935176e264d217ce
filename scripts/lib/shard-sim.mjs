// Trackyard under `wrangler dev` through scripts/bench/workers/shard-sim.js, the bench Worker whose
// routes generate a day's clicks in bulk inside its shard-day objects, with the project's fakes
// (scripts/lib/fakes.mjs) serving CAKE. Used by scripts/bench/shard-days-40.mjs and
// scripts/bench/cake-pull-steps.mjs.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { seedCampaigns } from "./click-days.mjs";
import { startFakes } from "./fakes.mjs";
import { openLocalD1 } from "./local-d1.mjs";
import { applyMigrations, freePort, ROOT, startServer } from "./server.mjs";
import { cpuSeconds, descendantsNamed } from "./wrk.mjs";

const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "shard-sim.js");

/**
 * How often the bench sends the server a request that does nothing. wrangler dev 4.86.0's local
 * runtime now and then leaves a request unanswered, using no CPU, until another request arrives:
 * seen in the first rollup of a day of a million clicks, which waited 60 s and went on within a
 * tenth of a second of a request for a page that does not exist. A bench that waits on one call at
 * a time would wait forever. See docs/click-storage.md "Forty days of shard-days, simulated".
 */
const WAKE_MS = 5_000;

/**
 * Migrates and seeds the campaigns in `stateDir`, starts the fakes and the server with `vars` and
 * CAKE pointed at the fake, and sends it a request that does nothing (`/__bench/sim/wake`) every
 * WAKE_MS until it stops. BENCH_SIM_LOG=1 shows wrangler's own output. Returns the fakes, the
 * server, its address, and workerd's CPU seconds so far.
 */
export async function startShardSim(stateDir, vars) {
  // wrangler dev wants the assets folder to exist; the app itself is not needed here.
  mkdirSync(path.join(ROOT, "dist", "client"), { recursive: true });
  applyMigrations(stateDir, { quiet: true });
  const local = openLocalD1(stateDir, { quiet: true });
  try {
    await seedCampaigns(await local.db());
  } finally {
    await local.mf.dispose();
  }
  const fakes = await startFakes();
  const server = await startServer({
    port: await freePort(),
    stateDir,
    stdio: process.env.BENCH_SIM_LOG ? "inherit" : "pipe",
    script: ENTRY,
    vars: { ...vars, CAKE_BASE_URL: fakes.url, CAKE_API_KEY: fakes.cake.state.apiKey, CAKE_AFFILIATE_ID: fakes.cake.state.affiliateId },
    timeoutMs: 180_000,
  });
  const wake = setInterval(() => {
    fetch(`${server.url}/__bench/sim/wake`)
      .then((res) => res.arrayBuffer())
      .catch(() => {});
  }, WAKE_MS);
  server.child.once("exit", () => clearInterval(wake));
  const workerdCpu = () => descendantsNamed(server.child.pid, "workerd").reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  return { fakes, server, base: server.url, workerdCpu };
}
