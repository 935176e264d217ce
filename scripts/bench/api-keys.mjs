// Benchmark: what a Bearer API key costs against a session (docs/accounts-security.md "API keys").
//
// One `wrangler dev` on a fresh local D1. The first admin signs in and creates a key with
// landers:read and profile:read for each route; then rounds alternate a session request and a Bearer request for
// the same route (GET /api/user, which reads nothing else, and GET /api/landers, one more read),
// one at a time over loopback, and print each one's median and p90 and the Bearer / session ratio.
// The Bearer requests mostly find the key in the isolate's 5 s cache (no D1 read); every 5 s one
// reads it, the one read a session request always makes. worker/test/api-keys.test.ts counts the
// reads themselves.
//
//   BENCH=api-keys npm run bench                  # about a minute
//   BENCH=api-keys BENCH_ROUNDS=2000 npm run bench
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { registerFirstAdmin } from "../lib/local-d1.mjs";
import { median, pct } from "../lib/percentiles.mjs";
import { startServer } from "../lib/server.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 250);
// Each route has its own key, which may make 600 requests a minute (API_KEY_LIMITER): with the
// warm-up's 20, more rounds than this could meet a 429 inside a minute.
const MAX_ROUNDS = 560;
if (ROUNDS > MAX_ROUNDS) throw new Error(`BENCH_ROUNDS at most ${MAX_ROUNDS}: a key may make 600 requests a minute`);
const PORT = 8973;
const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-keys-"));
const ms = (n) => `${n.toFixed(2)} ms`;

let server;
try {
  server = await startServer({ port: PORT, stateDir: path.join(work, "state"), stdio: "pipe" });
  const { url } = server;
  const cookie = await registerFirstAdmin(url);
  const newKey = async () => {
    const created = await fetch(`${url}/api/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url, cookie },
      body: JSON.stringify({ name: "bench", scopes: ["landers:read", "profile:read"] }),
    });
    if (created.status !== 201) throw new Error(`creating the key: ${created.status} ${await created.text()}`);
    return (await created.json()).key;
  };

  const timed = async (route, headers) => {
    const start = performance.now();
    const res = await fetch(`${url}${route}`, { headers });
    await res.arrayBuffer();
    const took = performance.now() - start;
    if (res.status !== 200) throw new Error(`${route}: ${res.status}`);
    return took;
  };

  for (const route of ["/api/user", "/api/landers"]) {
    const key = await newKey();
    const times = { session: [], bearer: [] };
    // Warm-up: the isolate, the key cache and the last-used write.
    for (let i = 0; i < 20; i++) await Promise.all([timed(route, { cookie }), timed(route, { authorization: `Bearer ${key}` })]);
    for (let i = 0; i < ROUNDS; i++) {
      times.session.push(await timed(route, { cookie }));
      times.bearer.push(await timed(route, { authorization: `Bearer ${key}` }));
    }
    const ratio = median(times.bearer) / median(times.session);
    console.log(
      `${route} over ${ROUNDS} alternating rounds: session median ${ms(median(times.session))} (p90 ${ms(pct(times.session, 90))}), ` +
        `Bearer median ${ms(median(times.bearer))} (p90 ${ms(pct(times.bearer, 90))}); Bearer / session ${ratio.toFixed(2)}`,
    );
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
