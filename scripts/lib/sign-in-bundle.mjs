// The JavaScript a browser loads for the sign-in screen (/auth), from the built app in dist/client:
// the entry script and its modulepreloads from index.html, the login screen's lazy chunk, and
// every module those import statically (dynamic `import()`s load later, only when used). Sizes
// gzipped at level 9, as the build's own report shows them.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "./server.mjs";

const CLIENT = path.join(ROOT, "dist", "client");

export function signInBundle() {
  const html = readFileSync(path.join(CLIENT, "index.html"), "utf8");
  const start = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  const login = readdirSync(path.join(CLIENT, "assets")).find((f) => /^login-screen-.*\.js$/.test(f));
  if (!login) throw new Error("no login-screen chunk in dist/client/assets: run npm run build");
  start.push(`assets/${login}`);
  const seen = new Set();
  const queue = [...start];
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file) || !existsSync(path.join(CLIENT, file))) continue;
    seen.add(file);
    const code = readFileSync(path.join(CLIENT, file), "utf8");
    // Static imports only: `import ... from"./x.js"` and bare `import"./x.js"`, not `import("./x.js")`.
    for (const m of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) queue.push(`assets/${m[1]}`);
  }
  const files = [...seen].map((file) => ({ file, gzipBytes: gzipSync(readFileSync(path.join(CLIENT, file)), { level: 9 }).length }));
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}
