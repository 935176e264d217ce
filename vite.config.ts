import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `vite build` builds only the React app into dist/client (wrangler serves it as static assets and
// bundles the Worker itself). `vite dev` (npm run dev) adds the Cloudflare plugin, which runs the
// Worker in workerd beside the dev server for hot reload of both.
export default defineConfig(({ command }) => ({
  root: path.resolve("web"),
  publicDir: path.resolve("web/public"),
  plugins: [
    react(),
    tailwindcss(),
    ...(command === "serve" ? [cloudflare({ configPath: path.resolve("wrangler.toml"), persistState: { path: path.resolve(process.env.STATE_DIR ?? ".wrangler/state") } })] : []),
  ],
  resolve: { alias: { "@": path.resolve("web/src") } },
  build: {
    outDir: path.resolve("dist/client"),
    emptyOutDir: true,
    sourcemap: false,
  },
}));
