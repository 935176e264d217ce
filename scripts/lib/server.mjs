// Starts Trackyard locally the way `npm start` does: migrations applied to the local D1 under
// `stateDir`, then `wrangler dev` on `port`. Used by `npm start`, the browser tests and the benchmarks.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serializeEnvFile, workerVars, writeSecretFile } from "./dev-env.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER = path.join(ROOT, "node_modules", ".bin", "wrangler");

/** What local use needs in `.dev.vars`: each line's pattern, and how to make its value when missing. */
const DEV_VARS = [
  { name: "SESSION_SECRET", present: /^SESSION_SECRET=.{32,}$/m, value: () => randomBytes(48).toString("base64url") },
  { name: "TWO_FACTOR_KEY", present: /^TWO_FACTOR_KEY=.{32,}$/m, value: () => randomBytes(48).toString("base64url") },
  // The code inbox fails closed when this is empty; locally any made-up address may receive codes.
  { name: "CODES_RECIPIENTS", present: /^CODES_RECIPIENTS=/m, value: () => "*" },
  // Any sender, chosen: a deployed Worker without CODES_SENDERS warns that it takes any sender.
  { name: "CODES_SENDERS", present: /^CODES_SENDERS=/m, value: () => "*" },
];

/** Creates `.dev.vars`, or adds to it what it lacks: random SESSION_SECRET and TWO_FACTOR_KEY, CODES_RECIPIENTS=* and CODES_SENDERS=*. */
export function ensureDevVars() {
  const file = path.join(ROOT, ".dev.vars");
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  const missing = DEV_VARS.filter((v) => !v.present.test(current));
  if (!missing.length) return;
  const lines = missing.map((v) => `${v.name}=${v.value()}\n`).join("");
  writeFileSync(file, `${current}${current && !current.endsWith("\n") ? "\n" : ""}${lines}`, { mode: 0o600 });
  console.log(`Added ${missing.map((v) => v.name).join(", ")} to .dev.vars`);
}

export function buildWeb() {
  const result = spawnSync(path.join(ROOT, "node_modules", ".bin", "vite"), ["build"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error("vite build failed");
}

function runMigrations(stateDir, quiet) {
  const result = spawnSync(WRANGLER, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
    cwd: ROOT,
    stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) {
    throw new Error(`applying D1 migrations failed${quiet ? `:\n${result.stdout}\n${result.stderr}` : ""}`);
  }
}

/**
 * A local state folder with every migration applied and nothing else, made once per set of
 * migrations (named by their files' hash, under .wrangler/migrated/). Starting wrangler's CLI to
 * apply them takes seconds; copying this takes milliseconds, and each browser test file starts
 * from an empty database.
 */
function migratedTemplate() {
  const folder = path.join(ROOT, "migrations");
  const hash = createHash("sha256");
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith(".sql"))
    .sort())
    hash.update(name).update(readFileSync(path.join(folder, name)));
  const template = path.join(ROOT, ".wrangler", "migrated", hash.digest("hex").slice(0, 16));
  if (existsSync(template)) return template;
  // Made aside and renamed into place, so a second process never copies a half-made one.
  const making = `${template}.${process.pid}.tmp`;
  rmSync(making, { recursive: true, force: true });
  runMigrations(making, true);
  mkdirSync(path.dirname(template), { recursive: true });
  try {
    renameSync(making, template);
  } catch (err) {
    rmSync(making, { recursive: true, force: true });
    if (!existsSync(template)) throw err;
  }
  return template;
}

/** Applies the D1 migrations to the local state in `stateDir`; a new, empty one is copied from the migrated template. */
export function applyMigrations(stateDir, { quiet = false } = {}) {
  if (!existsSync(stateDir) || readdirSync(stateDir).length === 0) {
    cpSync(migratedTemplate(), stateDir, { recursive: true });
    return;
  }
  runMigrations(stateDir, quiet);
}

/** A TCP port nothing listens on now, as the system hands it out. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `wrangler dev` on 127.0.0.1:`port` with extra `args`, from `cwd` (whose wrangler.toml it
 * uses), and resolves once `ready(url)` says so. `onSpawn` sees the child first (to read piped
 * output from the start). Returns { url, child, stop }; stop ends the whole process group,
 * with SIGKILL after 5 s. Piped output also goes to `logFile` when one is given.
 */
export async function runWranglerDev({ port, args = [], cwd = ROOT, stdio = "inherit", timeoutMs = 90_000, ready, onSpawn, logFile }) {
  // Its own devtools port unless given: every wrangler dev takes 9229 by default, so a second one
  // on the machine (another copy, a bench, a browser test file's server) would fail to start.
  const inspector = args.includes("--inspector-port") ? [] : ["--inspector-port", String(await freePort())];
  const child = spawn(WRANGLER, ["dev", "--port", String(port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false", ...inspector, ...args], {
    cwd,
    stdio: stdio === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    detached: process.platform !== "win32",
  });
  // Piped output is drained (a full pipe would stall wrangler) and its tail kept for the error.
  let tail = "";
  // `logFile` keeps all of it, for reading after a failed test.
  const log = stdio !== "inherit" && logFile ? createWriteStream(logFile, { flags: "a" }) : null;
  if (stdio !== "inherit")
    for (const stream of [child.stdout, child.stderr])
      stream?.on("data", (d) => {
        tail = (tail + d).slice(-4000);
        log?.write(d);
      });
  child.once("exit", () => log?.end());
  onSpawn?.(child);
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // No process group (already gone, or not detached): signal the child itself.
        child.kill("SIGTERM");
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already exited.
        }
      }, 5000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}${tail ? `:\n${tail}` : ""}`);
    try {
      if (await ready(url)) return { url, child, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs / 1000}s`);
}

/**
 * Starts Trackyard under `wrangler dev` and resolves once the API answers. The Worker's settings
 * are `.dev.vars`, then the documented variables found in `env` (`npm start` passes its own
 * environment; tests and benchmarks pass none, so a developer's shell never leaks into them),
 * then `vars`. They reach the Worker as one env file in the state folder (readable by this user
 * only), since a secret on the command line would show in the process list. `script`: another entry
 * than wrangler.toml's `main` (a bench's wrapper around the Worker). `logFile`: where the piped output
 * goes too. Returns { url, child, stop }.
 */
export async function startServer({ port = 8787, stateDir, vars = {}, env = {}, stdio = "inherit", timeoutMs = 90_000, script, logFile } = {}) {
  const dir = path.resolve(ROOT, stateDir ?? path.join(".wrangler", "state"));
  ensureDevVars();
  applyMigrations(dir, { quiet: stdio === "pipe" });
  // wrangler reads --env-file with `$NAME` expansion, hence `expands`.
  const envFile = writeSecretFile(path.join(dir, "worker.env"), serializeEnvFile(workerVars(ROOT, { env, overrides: vars }), { expands: true }));
  // --test-scheduled: the cron runs on GET /__scheduled. Wrangler's /cdn-cgi/handler/scheduled
  // answers "exception" for a Worker with static assets (the asset router has no scheduled handler).
  const args = ["--persist-to", dir, "--env-file", envFile, "--test-scheduled", ...(script ? [script] : [])];
  return runWranglerDev({ port, args, stdio, timeoutMs, logFile, ready: async (url) => (await fetch(`${url}/api/setup`)).ok });
}
