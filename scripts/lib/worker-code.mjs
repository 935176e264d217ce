// The Worker's own code for benchmarks that run it outside the Worker (against a local D1 opened
// from Node): the named exports of worker/src files, bundled with esbuild and imported.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./server.mjs";

/**
 * workerd's own modules (`cloudflare:sockets`, used by the Namecheap SOCKS5 route; the Workflow's
 * `cloudflare:workers`) are left to the runtime: workerd provides them, and Node never reaches the
 * code paths that import them. So are `node:` built-ins (the click archive's `node:zlib`), which
 * both Node and workerd (nodejs_compat) provide.
 */
const WORKERD_MODULES = ["cloudflare:*", "node:*"];

/**
 * `exports` maps a file under worker/src (or a package, when it does not end in .ts) to the names
 * to take from it. The bundle is written into `dir`.
 */
export async function bundleWorkerCode(dir, exports) {
  const entry = path.join(dir, "worker-entry.ts");
  const from = (file) => JSON.stringify(file.endsWith(".ts") ? path.join(ROOT, "worker/src", file) : file);
  writeFileSync(
    entry,
    Object.entries(exports)
      .map(([file, names]) => `export { ${names.join(", ")} } from ${from(file)};`)
      .join("\n"),
  );
  const outfile = path.join(dir, "worker-code.mjs");
  // platform node: some libraries the app imports (papaparse) name Node built-ins they never use here.
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "node",
    mainFields: ["module", "main"],
    outfile,
    external: WORKERD_MODULES,
    logLevel: "warning",
    nodePaths: [path.join(ROOT, "node_modules")],
  });
  return import(pathToFileURL(outfile).href);
}

/**
 * A Worker for Miniflare (an ES module, bundled for workerd) from `source`, TypeScript that may
 * import worker/src files as `@worker/<path>`. Returns the bundle's path.
 */
export async function bundleWorker(dir, source) {
  const entry = path.join(dir, "bench-worker.ts");
  writeFileSync(entry, source.replaceAll("@worker/", `${path.join(ROOT, "worker/src")}/`));
  const outfile = path.join(dir, "bench-worker.mjs");
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    outfile,
    external: WORKERD_MODULES,
    logLevel: "warning",
    nodePaths: [path.join(ROOT, "node_modules")],
  });
  return outfile;
}
