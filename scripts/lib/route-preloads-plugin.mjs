// A Vite build plugin: writes dist/client/route-preloads.json, each screen's path
// (web/src/app/screens.ts) with the JavaScript chunks a fresh load of it needs beyond the entry
// (the screen, its loader's prefetch module, the signed-in frame, and everything those import
// statically) and their styles. The Worker puts them in the page as modulepreload and stylesheet
// links (worker/src/lib/route-preloads.ts), so they download while the entry script does instead
// of after it has run (docs/screens.md "The web app: state in the URL, days and speed").
import { readFileSync } from "node:fs";
import path from "node:path";

const ROUTE_PRELOADS_FILE = "route-preloads.json";

/** `{ path, modules }` for each screen: the files its `load` and `prefetch` import. */
function screenModules(root) {
  const source = readFileSync(path.join(root, "web/src/app/screens.ts"), "utf8");
  const screens = [
    ...source.matchAll(/\{\s*path:\s*"([^"]+)"[\s\S]*?load:\s*\(\)\s*=>\s*import\("@\/([^"]+)"\)(?:,\s*prefetch:\s*\(\)\s*=>\s*import\("@\/([^"]+)"\))?/g),
  ];
  const declared = [...source.matchAll(/\bpath:\s*"/g)].length;
  if (!screens.length || screens.length !== declared) {
    throw new Error(`route-preloads: read ${screens.length} of ${declared} screens in web/src/app/screens.ts`);
  }
  return screens.map(([, route, load, prefetch]) => ({
    path: route,
    modules: [load, prefetch, "app/layout/app-layout"].filter(Boolean).map((m) => path.join(root, "web/src", m)),
  }));
}

export function routePreloads(root) {
  return {
    name: "trackyard-route-preloads",
    apply: "build",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === "chunk");
      const entry = chunks.find((c) => c.isEntry);
      // Already in index.html: the entry and what it imports statically.
      const inHtml = new Set([entry?.fileName, ...(entry?.imports ?? []), ...(entry?.viteMetadata?.importedCss ?? [])]);
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const chunkOf = (modulePath) => chunks.find((c) => c.moduleIds.some((id) => id.replace(/\.(tsx?|jsx?)$/, "") === modulePath));
      const routes = {};
      for (const screen of screenModules(root)) {
        const files = new Set();
        const queue = screen.modules.map((m) => {
          const chunk = chunkOf(m);
          if (!chunk) throw new Error(`route-preloads: no chunk holds ${m}`);
          return chunk.fileName;
        });
        while (queue.length) {
          const file = queue.shift();
          if (files.has(file) || inHtml.has(file)) continue;
          files.add(file);
          queue.push(...(byFile.get(file)?.imports ?? []));
        }
        // The styles those chunks bring (Vite waits for each before it runs the chunk's import),
        // so they too download beside the entry rather than once it has run.
        const styles = new Set([...files].flatMap((f) => [...(byFile.get(f)?.viteMetadata?.importedCss ?? [])]).filter((f) => !inHtml.has(f)));
        routes[screen.path] = [...files, ...styles].map((f) => `/${f}`);
      }
      this.emitFile({ type: "asset", fileName: ROUTE_PRELOADS_FILE, source: `${JSON.stringify(routes, null, 1)}\n` });
    },
  };
}
