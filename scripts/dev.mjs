// `npm run dev`: hot reload for the React app and the Worker (Vite with the Cloudflare plugin,
// which runs the Worker in workerd). Same PORT / STATE_DIR conventions as `npm start`.
import { spawn } from "node:child_process";
import path from "node:path";
import { applyMigrations, ensureDevVars, ROOT } from "./lib/server.mjs";

const port = process.env.PORT ?? "8787";
const stateDir = process.env.STATE_DIR ?? ".wrangler/state";

ensureDevVars();
applyMigrations(path.resolve(ROOT, stateDir));
const vite = spawn(path.join(ROOT, "node_modules", ".bin", "vite"), ["--port", port, "--strictPort"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, STATE_DIR: stateDir },
});
vite.on("exit", (code) => process.exit(code ?? 0));
