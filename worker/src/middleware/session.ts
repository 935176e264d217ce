import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { ACCESS_KEY_HEADER, accessKey } from "../auth/access-key";
import { LAST_SEEN_GRANULARITY_MS, loadSessionUser, readSessionToken, SESSION_COOKIE, touchSession } from "../auth/session";
import type { AppEnv } from "../env";

/**
 * Puts the signed-in user (or null) on `c.var.user`; a forged, expired, idle or revoked cookie is
 * null. A request marks the session used (at most once a minute: the idle time and Account's
 * "last seen" read it). The answer, refusals included, carries the user's access key (auth/access-key.ts).
 */
export const sessionUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
  const user = sessionId ? await loadSessionUser(c.get("db"), sessionId) : null;
  const now = Date.now();
  if (user && now - user.lastSeenAt >= LAST_SEEN_GRANULARITY_MS) await touchSession(c.get("db"), user.sessionId, now);
  c.set("user", user);
  await next();
  if (user) c.header(ACCESS_KEY_HEADER, accessKey(user));
});
