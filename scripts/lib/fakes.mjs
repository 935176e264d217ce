// The local fakes of CAKE, TikTok's reporting API and TikTok's Events API (worker/test/fakes/),
// served over HTTP from one port, for `npm start` (scripts/serve-fakes.mjs) and the benchmarks.
// They are TypeScript, so they are bundled with esbuild first. Control endpoints (JSON):
//   GET  /__fake/events            what the Events API fake received: unique events, duplicates, calls
//   POST /__fake/events/fail       [{ code, message } | { status, text }, ...]: the next calls answer these
//   POST /__fake/cake/conversions  [FakeCakeConversion, ...]: rows the CAKE fake reports from now on
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./server.mjs";

export const FAKE_EVENTS_TOKEN = "events-test-token";
export const FAKE_ADVERTISER = "7000000000001";

async function loadFakes() {
  const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-fakes-"));
  const entry = path.join(work, "entry.ts");
  const src = (p) => JSON.stringify(path.join(ROOT, "worker/test/fakes", p));
  writeFileSync(
    entry,
    [
      `export { createCakeFake } from ${src("cake-fake.ts")};`,
      `export { createTikTokFake } from ${src("tiktok-fake.ts")};`,
      `export { createTikTokEventsFake } from ${src("tiktok-events-fake.ts")};`,
    ].join("\n"),
  );
  const outfile = path.join(work, "fakes.mjs");
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile, logLevel: "warning" });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Starts the fakes on 127.0.0.1:`port` (0: any free port). Returns { url, cake, tiktok, events, close }. */
export async function startFakes({ port = 0, eventsToken = FAKE_EVENTS_TOKEN } = {}) {
  const { createCakeFake, createTikTokFake, createTikTokEventsFake } = await loadFakes();
  const cake = createCakeFake();
  const tiktok = createTikTokFake({ advertiserIds: [FAKE_ADVERTISER] });
  const events = createTikTokEventsFake({ accessToken: eventsToken });

  async function route(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/__fake/events" && request.method === "GET") {
      const { state } = events;
      return json({ unique: state.events.size, duplicates: state.duplicates, calls: state.calls, latest: events.received().slice(-20) });
    }
    if (pathname === "/__fake/events/fail" && request.method === "POST") {
      events.failNext(...(await request.json()));
      return json({ ok: true });
    }
    if (pathname === "/__fake/cake/conversions" && request.method === "POST") {
      cake.state.conversions.push(...(await request.json()));
      return json({ ok: true, conversions: cake.state.conversions.length });
    }
    if (pathname.startsWith("/open_api/v1.3/event/")) return events.handle(request);
    if (pathname.startsWith("/open_api/")) return tiktok.handle(request);
    return cake.handle(request);
  }

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([, v]) => typeof v === "string"));
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    let response;
    try {
      response = await route(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined }));
    } catch (err) {
      response = json({ error: String(err) }, 500);
    }
    const out = {};
    response.headers.forEach((value, key) => (out[key] = value));
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, cake, tiktok, events, close: () => new Promise((resolve) => server.close(resolve)) };
}
