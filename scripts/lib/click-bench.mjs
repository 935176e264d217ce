// What the clicks benches share (scripts/bench/clicks-queue.mjs, clicks-sustained.mjs): a wrk
// script giving every request its own address, and a campaign to click on.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Temporary directories named `prefix`-name-..., all removed by removeAll(). */
export function benchDirs(prefix) {
  const dirs = [];
  return {
    tmp(name) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-${name}-`));
      dirs.push(dir);
      return dir;
    },
    removeAll: () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })),
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "-");

/**
 * A wrk script giving every request its own CF-Connecting-IP, so the per-address limit never
 * refuses; with `delayMs`, each connection waits that long after an answer before its next request
 * (wrk's delay(): Debian's wrk has no fixed-rate mode, so this caps the rate at connections × 1000 / delayMs).
 */
export function addressesScript(dir, delayMs = 0) {
  const file = path.join(dir, `addresses-${delayMs}.lua`);
  writeFileSync(
    file,
    `local n = 0
function request()
  n = n + 1
  return wrk.format("GET", nil, { ["CF-Connecting-IP"] = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256) })
end
${delayMs > 0 ? `function delay()\n  return ${delayMs}\nend\n` : ""}`,
  );
  return file;
}

/** The first admin and one campaign with the redirect on; returns the session cookie and the campaign. */
export async function campaignOn(base) {
  const register = await fetch(`${base}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "bench-password" }),
  });
  if (!register.ok) throw new Error(`register: ${register.status} ${await register.text()}`);
  const cookie = register.headers.getSetCookie()[0].split(";")[0];
  const post = async (p, body) => {
    const res = await fetch(`${base}${p}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const lander = await post("/api/landers", { name: "Queue lander", url: "https://lander.example/lp" });
  const offer = await post("/api/offers", { name: "Queue offer", url: "https://offer.example/go", utmTemplate: "sub1={clickId}" });
  const campaign = await post("/api/campaigns", { name: "Queue bench", landerId: lander.id, offerId: offer.id, bhToggle: true });
  return { cookie, campaignId: campaign.id };
}

/**
 * A GET of a bench Worker's route (scripts/bench/workers/shard-sim.js), its JSON answer. A call
 * with no answer in `timeoutMs` says the local runtime stopped answering (docs/click-storage.md
 * "Forty days of shard-days, simulated"); any other status throws with its body.
 */
export async function simCall(base, pathname, timeoutMs) {
  let res;
  try {
    res = await fetch(`${base}${pathname}`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(`${pathname}: no answer in ${timeoutMs / 1000} s (the local runtime stopped answering): ${err.message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}
