import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `vite build` builds only the React app into dist/client (wrangler serves it as static assets and
// bundles the Worker itself). `vite dev` (npm run dev) adds the Cloudflare plugin, which runs the
// Worker in workerd beside the dev server for hot reload of both.
//
// TRACKYARD_WORKER_VARS_DIR (set by scripts/dev.mjs): a folder holding the merged `.dev.vars`
// (the repo's, overridden by the documented variables of the command's environment). Wrangler
// reads `.dev.vars` beside the config path it is given as `userConfigPath`, so that is pointed
// there; wrangler.toml itself is still read from the repo.
const varsDir = process.env.TRACKYARD_WORKER_VARS_DIR;
const workerVars = varsDir ? { userConfigPath: path.join(varsDir, "wrangler.toml") } : undefined;

export default defineConfig(({ command }) => ({
  root: path.resolve("web"),
  publicDir: path.resolve("web/public"),
  plugins: [
    react(),
    tailwindcss(),
    ...(command === "serve"
      ? [
          cloudflare({
            configPath: path.resolve("wrangler.toml"),
            persistState: { path: path.resolve(process.env.STATE_DIR ?? ".wrangler/state") },
            config: workerVars,
          }),
        ]
      : []),
  ],
  resolve: { alias: { "@": path.resolve("web/src") } },
  build: {
    outDir: path.resolve("dist/client"),
    emptyOutDir: true,
    sourcemap: false,
  },
}));
