import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { ACCESS_KEY_HEADER, accessKey } from "../auth/access-key";
import { digestOf, INVALID_KEY_MESSAGE, keyHolder, recordUse, wellFormed } from "../auth/api-key";
import { API_KEY_LIMIT_PER_MINUTE, checkKeyLimit } from "../auth/api-key-limit";
import { LAST_SEEN_GRANULARITY_MS, loadSessionUser, readSessionToken, SESSION_COOKIE, touchSession } from "../auth/session";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { clientIp } from "../lib/request";

/**
 * Puts the caller (or null) on `c.var.user`. A request with an Authorization header is a Bearer
 * API key's and nothing else: its cookie is never read (middleware/request-guards.ts relies on
 * this). Otherwise the session cookie's user; a forged, expired, idle or revoked cookie is null. A
 * request marks the session used (at most once a minute: the idle time and Account's "last seen"
 * read it). The answer, refusals included, carries the user's access key (auth/access-key.ts).
 */
export const sessionUser = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("authorization") !== undefined) return bearerUser(c, next);
  const token = getCookie(c, SESSION_COOKIE);
  const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
  const user = sessionId ? await loadSessionUser(c.get("db"), sessionId) : null;
  const now = Date.now();
  if (user && now - user.lastSeenAt >= LAST_SEEN_GRANULARITY_MS) await touchSession(c.get("db"), user.sessionId, now);
  c.set("user", user);
  await next();
  if (user) c.header(ACCESS_KEY_HEADER, accessKey(user));
});

/**
 * A Bearer key's request (docs/accounts-security.md "API keys"): the key's rate limit first (so a
 * flood reaches neither D1 nor the handlers), then its user. Every answer carries the
 * X-RateLimit-* headers; any key that does not let the caller in gets the same 401.
 */
const bearerUser = createMiddleware<AppEnv>(async (c, next) => {
  const match = /^Bearer +(\S+)$/i.exec(c.req.header("authorization") ?? "");
  const key = match?.[1] ?? "";
  const digest = await digestOf(key);
  const limit = await checkKeyLimit(c.env.API_KEY_LIMITER, digest);
  if (!limit.allowed) {
    throw new ApiError(429, `Too many requests with this API key: at most ${API_KEY_LIMIT_PER_MINUTE} a minute`, undefined, limit.headers);
  }
  const holder = wellFormed(key) ? await keyHolder(c.get("db"), digest) : null;
  if (!holder) throw new ApiError(401, INVALID_KEY_MESSAGE, undefined, { ...limit.headers, "WWW-Authenticate": 'Bearer realm="trackyard"' });
  c.set("user", { ...holder.user, apiKey: { id: holder.keyId, scopes: holder.scopes } });
  const use = recordUse(c.get("db"), holder, clientIp(c.req.raw));
  if (use)
    c.executionCtx.waitUntil(
      use.then(
        () => undefined,
        (err: unknown) => console.error(`API key #${holder.keyId}: last use not recorded`, err),
      ),
    );
  await next();
  for (const [name, value] of Object.entries(limit.headers)) c.header(name, value);
});
