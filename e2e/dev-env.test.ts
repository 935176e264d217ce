import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { unstable_getVarsForDev } from "wrangler";
import { afterAll, describe, expect, it } from "vitest";
import { DOCUMENTED_ENV, forwardedEnv, serializeEnvFile, workerVars, writeSecretFile } from "../scripts/lib/dev-env.mjs";
import { ROOT } from "../scripts/lib/server.mjs";

const tmp = mkdtempSync(path.join(os.tmpdir(), "trackyard-dev-env-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What wrangler itself reads from a file: an env file (with $ expansion), or `.dev.vars` beside a config. */
function wranglerReads(file: string, kind: "env-file" | "dev-vars"): Record<string, string> {
  const config = path.join(path.dirname(file), "wrangler.toml");
  const bindings = unstable_getVarsForDev(config, kind === "env-file" ? [file] : undefined, {}, undefined, true) as Record<string, { value: string }>;
  return Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, v.value]));
}

describe("forwarding the documented settings to the local Worker", () => {
  it("forwards exactly the variables and secrets the README's and docs' tables document (besides npm start's own PORT and STATE_DIR)", () => {
    const docs = readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
    const readme = ["README.md", ...docs.map((f) => path.join("docs", f))].map((f) => readFileSync(path.join(ROOT, f), "utf8")).join("\n");
    const documented = new Set<string>();
    for (const line of readme.split("\n")) {
      const first = /^\| ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+) \|/.exec(line)?.[1];
      for (const m of first?.matchAll(/`([A-Z][A-Z0-9_]*)`/g) ?? []) documented.add(m[1]!);
    }
    documented.delete("PORT");
    documented.delete("STATE_DIR");
    expect([...documented].sort()).toEqual([...DOCUMENTED_ENV].sort());
  });

  it("lets the environment win over .dev.vars, forwards an empty value as a cleared setting, and nothing undocumented", () => {
    const root = mkdtempSync(path.join(tmp, "root-"));
    writeFileSync(
      path.join(root, ".dev.vars"),
      "SESSION_SECRET=from-dev-vars-0123456789012345678901\nNAMECHEAP_API_URL=https://api.sandbox.namecheap.com/xml.response\nNAMECHEAP_PROXY=https://relay.example.com\n# a comment\n",
    );
    const env = { NAMECHEAP_API_URL: "http://127.0.0.1:9000/xml.response", NAMECHEAP_PROXY: "", PATH: "/usr/bin", HOME: "/root" };
    expect(forwardedEnv(env)).toEqual({ NAMECHEAP_API_URL: "http://127.0.0.1:9000/xml.response", NAMECHEAP_PROXY: "" });
    expect(workerVars(root, { env, overrides: { CAKE_BASE_URL: "http://127.0.0.1:1234" } })).toEqual({
      SESSION_SECRET: "from-dev-vars-0123456789012345678901",
      NAMECHEAP_API_URL: "http://127.0.0.1:9000/xml.response",
      NAMECHEAP_PROXY: "",
      CAKE_BASE_URL: "http://127.0.0.1:1234",
    });
  });

  it("writes files wrangler reads back exactly as given, readable by this user only", () => {
    const values = {
      SESSION_SECRET: "a-secret-with-$HOME-and-${PATH}-inside",
      NAMECHEAP_PROXY: "socks5://ops:p@ss#w0rd 'x'@10.0.0.5:1080",
      NAMECHEAP_RELAY_KEY: 'has "double" quotes',
      CODES_RECIPIENTS: "",
      POSTBACK_TOKEN: "line one\nline two",
    };
    const envFile = writeSecretFile(path.join(tmp, "state", "worker.env"), serializeEnvFile(values, { expands: true }));
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(wranglerReads(envFile, "env-file")).toEqual(values);
    const devVars = writeSecretFile(path.join(tmp, "state", "worker-vars", ".dev.vars"), serializeEnvFile(values));
    expect(wranglerReads(devVars, "dev-vars")).toEqual(values);
  });
});
