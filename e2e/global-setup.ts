import { existsSync } from "node:fs";
import path from "node:path";
import { buildWeb, ensureDevVars, ROOT } from "../scripts/lib/server.mjs";

/** The browser tests run against the built app: build it once if `npm test` has not already. */
export default function setup() {
  ensureDevVars();
  if (!existsSync(path.join(ROOT, "dist", "client", "index.html"))) buildWeb();
}
