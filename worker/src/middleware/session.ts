import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { loadSessionUser, readSessionToken, SESSION_COOKIE } from "../auth/session";
import type { AppEnv } from "../env";

/** Puts the signed-in user (or null) on `c.var.user`; a forged, expired or revoked cookie is null. */
export const sessionUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
  c.set("user", sessionId ? await loadSessionUser(c.get("db"), sessionId) : null);
  await next();
});
