import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { ACCESS_KEY_HEADER, accessKey } from "../auth/access-key";
import { loadSessionUser, readSessionToken, SESSION_COOKIE } from "../auth/session";
import type { AppEnv } from "../env";

/**
 * Puts the signed-in user (or null) on `c.var.user`; a forged, expired or revoked cookie is null.
 * The answer, refusals included, carries the user's access key (auth/access-key.ts).
 */
export const sessionUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
  const user = sessionId ? await loadSessionUser(c.get("db"), sessionId) : null;
  c.set("user", user);
  await next();
  if (user) c.header(ACCESS_KEY_HEADER, accessKey(user));
});
