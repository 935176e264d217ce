import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { ACCESS_KEY_HEADER, accessKey } from "../auth/access-key";
import { LAST_SEEN_GRANULARITY_MS, loadSessionUser, readSessionToken, SESSION_COOKIE, touchSession } from "../auth/session";
import type { AppEnv } from "../env";

/**
 * Puts the signed-in user (or null) on `c.var.user`; a forged, expired or revoked cookie is null.
 * The answer, refusals included, carries the user's access key (auth/access-key.ts).
 */
export const sessionUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
  const session = sessionId ? await loadSessionUser(c.get("db"), sessionId) : null;
  const now = Date.now();
  if (session && now - session.lastSeenAt >= LAST_SEEN_GRANULARITY_MS) await touchSession(c.get("db"), session.sessionId, now);
  const user = session;
  c.set("user", user);
  await next();
  if (user) c.header(ACCESS_KEY_HEADER, accessKey(user));
});
