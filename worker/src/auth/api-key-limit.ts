/**
 * The per-key rate limit of Bearer requests (docs/accounts-security.md "API keys"): the
 * API_KEY_LIMITER Rate Limiting binding decides, counted per key, so one key's flood never uses
 * another key's allowance. The binding only answers allowed or not, so the X-RateLimit-Remaining
 * an answer carries is this isolate's own count of the key's requests in the current minute: a
 * hint, since Cloudflare counts per location and a key's requests may reach other isolates.
 */

import { API_KEY_LIMIT_PER_MINUTE } from "../schemas/api-keys";

export { API_KEY_LIMIT_PER_MINUTE };
const WINDOW_MS = 60_000;
/** Keys counted per window at most: a flood of made-up keys starts the counts again rather than filling memory. */
const COUNTED_KEYS = 10_000;

let counts = new Map<string, number>();
let countsWindow = 0;

export interface KeyLimitAnswer {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Asks the limit for one request of the key with this digest. A limit that cannot answer lets the
 * request through (the key is still checked), as the tracking limits do.
 */
export async function checkKeyLimit(limiter: RateLimit | undefined, digest: string, now = Date.now()): Promise<KeyLimitAnswer> {
  const windowStart = now - (now % WINDOW_MS);
  if (windowStart !== countsWindow || counts.size >= COUNTED_KEYS) {
    counts = new Map();
    countsWindow = windowStart;
  }
  const used = (counts.get(digest) ?? 0) + 1;
  counts.set(digest, used);
  let allowed = true;
  if (limiter) {
    try {
      allowed = (await limiter.limit({ key: `api-key:${digest}` })).success;
    } catch (err) {
      console.error("API key rate limit unavailable; letting the request through", err);
    }
  }
  const resetSeconds = Math.ceil((windowStart + WINDOW_MS) / 1000);
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(API_KEY_LIMIT_PER_MINUTE),
    "X-RateLimit-Remaining": String(allowed ? Math.max(0, API_KEY_LIMIT_PER_MINUTE - used) : 0),
    "X-RateLimit-Reset": String(resetSeconds),
  };
  if (!allowed) headers["Retry-After"] = String(Math.max(1, resetSeconds - Math.floor(now / 1000)));
  return { allowed, headers };
}
