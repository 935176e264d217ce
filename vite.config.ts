import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { routePreloads } from "./scripts/lib/route-preloads-plugin.mjs";

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
    routePreloads(path.resolve(".")),
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
    // A few chunks instead of ~90: a fresh load of a screen fetched ~40 small ones, six at a time,
    // each through the Worker. Now: the entry with everything the first page needs (the sign-in
    // screen's budget), the sign-in form, the libraries and the shared app code of the signed-in
    // screens, each screen, and the chart's library on its own (only the Dashboard's chart loads
    // it, after the table). Measured in docs/screens.md "The web app: state in the URL, days and speed".
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: "boot", tags: ["$initial"], priority: 6 },
            { name: "login-screen", test: /web[\\/]src[\\/]features[\\/]auth[\\/]/, priority: 5 },
            {
              name: "chart",
              test: /node_modules[\\/](recharts|d3-|victory|internmap|decimal\.js|eventemitter3|es-toolkit|immer|reselect|redux|@reduxjs|react-redux|use-sync-external-store)/,
              priority: 4,
            },
            // A group takes the modules it names and what they import, unless a group before it (a
            // higher priority) took them: so the libraries and the shared app code come first,
            // without the parts loaded on demand, which then come last with only what is theirs.
            { name: "vendor", test: /node_modules[\\/](?!react-day-picker|react-hook-form|@hookform|uqr)/, priority: 3 },
            {
              name: "app",
              test: /web[\\/]src[\\/](?!lib[\\/]schema-form\.|components[\\/](own-factors-dialog|reauth-dialog|readme-section|ui[\\/]date-range-calendar)\.)(components|lib|app)[\\/]/,
              priority: 2,
            },
            // On demand, not with a screen: the calendar (a date picker's first opening), the form
            // library with the forms the frame opens (re-authentication, two-factor), the QR code
            // of Account's two-factor set-up, and the README the help links open.
            { name: "calendar", test: /node_modules[\\/]react-day-picker|web[\\/]src[\\/]components[\\/]ui[\\/]date-range-calendar\./, priority: 1 },
            {
              name: "forms",
              test: /node_modules[\\/](react-hook-form|@hookform)|web[\\/]src[\\/](lib[\\/]schema-form|components[\\/](own-factors-dialog|reauth-dialog))\./,
              priority: 1,
            },
            { name: "qr", test: /node_modules[\\/]uqr/, priority: 1 },
            { name: "readme", test: /web[\\/]src[\\/]components[\\/]readme-section\.|README\.md/, priority: 1 },
          ],
        },
      },
    },
  },
}));
