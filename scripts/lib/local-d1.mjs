// The local D1 database `wrangler dev` keeps under a state folder, opened straight from Node
// (for benchmarks that seed or measure it outside the Worker), and the first admin of a fresh
// instance.
import { Miniflare } from "miniflare";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./server.mjs";

const config = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
const databaseId = /database_id\s*=\s*"([^"]+)"/.exec(config)[1];
const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(config)[1];

/**
 * The D1 binding over `stateDir`'s database file. Returns { mf, db, archive } (db() resolves the
 * binding; archive() the ARCHIVE R2 bucket kept in the same state folder); dispose mf when done.
 * `scriptPath`: a Worker (an ES module) to run with those bindings as DB and ARCHIVE, called with
 * mf.dispatchFetch: code that should meet D1 and R2 as a Worker does, not through Node's proxy.
 * With `workflow`, that Worker also has the archive Workflow as ARCHIVE_WORKFLOW (it must export
 * ClickArchiveWorkflow), its instances kept in the same state folder. `quiet` drops what the
 * Worker logs (the runtime's errors still show).
 */
export function openLocalD1(stateDir, { scriptPath, workflow = false, quiet = false } = {}) {
  const mf = new Miniflare({
    modules: true,
    ...(quiet ? { handleRuntimeStdio: (stdout, stderr) => (stdout.resume(), stderr.pipe(process.stderr)) } : {}),
    ...(scriptPath
      ? { scriptPath, modulesRoot: path.dirname(scriptPath), compatibilityDate, compatibilityFlags: ["nodejs_compat"] }
      : { script: "export default { fetch() { return new Response('') } }" }),
    d1Databases: { DB: databaseId },
    d1Persist: path.join(stateDir, "v3", "d1"),
    r2Buckets: { ARCHIVE: "trackyard-click-archive" },
    r2Persist: path.join(stateDir, "v3", "r2"),
    ...(workflow
      ? {
          workflows: { ARCHIVE_WORKFLOW: { name: "trackyard-click-archive", className: "ClickArchiveWorkflow" } },
          workflowsPersist: path.join(stateDir, "v3", "workflows"),
        }
      : {}),
  });
  return { mf, db: () => mf.getD1Database("DB"), archive: () => mf.getR2Bucket("ARCHIVE") };
}

/** Registers the first admin of a fresh instance and returns its session cookie (`name=value`). */
export async function registerFirstAdmin(url) {
  const res = await fetch(`${url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ username: "bench", password: "bench-password" }),
  });
  if (!res.ok) throw new Error(`register: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith("__Host-session="))
    ?.split(";")[0];
}
