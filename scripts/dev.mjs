// `npm run dev`: hot reload for the React app and the Worker (Vite with the Cloudflare plugin,
// which runs the Worker in workerd). Same PORT / STATE_DIR conventions as `npm start`, and the
// same forwarding of the documented variables from this command's environment (scripts/lib/dev-env.mjs).
import { spawn } from "node:child_process";
import path from "node:path";
import { serializeEnvFile, workerVars, writeSecretFile } from "./lib/dev-env.mjs";
import { applyMigrations, ensureDevVars, ROOT } from "./lib/server.mjs";

const port = process.env.PORT ?? "8787";
const stateDir = process.env.STATE_DIR ?? ".wrangler/state";

ensureDevVars();
applyMigrations(path.resolve(ROOT, stateDir));
// The Cloudflare plugin reads a `.dev.vars` file (no `$` expansion): the merged one goes to its own
// folder in the state dir, and vite.config.ts points the plugin there.
const varsDir = path.resolve(ROOT, stateDir, "worker-vars");
writeSecretFile(path.join(varsDir, ".dev.vars"), serializeEnvFile(workerVars(ROOT, { env: process.env })));
const vite = spawn(path.join(ROOT, "node_modules", ".bin", "vite"), ["--port", port, "--strictPort"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, STATE_DIR: stateDir, TRACKYARD_WORKER_VARS_DIR: varsDir },
});
vite.on("exit", (code) => process.exit(code ?? 0));
