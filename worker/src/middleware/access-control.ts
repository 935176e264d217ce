import { createMiddleware } from "hono/factory";
import { decide, decideKey, routeFor } from "../access";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/**
 * Enforces the ACCESS table for every /api request, before any handler runs. A Bearer API key
 * passes the same table as its user's session would, and its scopes on top (access.ts `decideKey`).
 */
export const accessControl = createMiddleware<AppEnv>(async (c, next) => {
  const route = routeFor(c.req.method, c.req.path);
  if (route === undefined) throw new ApiError(404, "Not found");
  const user = c.get("user");
  const keyDecision = user?.apiKey ? decideKey(user.apiKey.scopes, route.key, route.access, c.req.method) : { allowed: true as const };
  if (!keyDecision.allowed && keyDecision.never) {
    throw new ApiError(403, "API keys cannot be used for signing in, the account, two-factor sign-in or API keys: sign in to the app for these");
  }
  const decision = decide(route.access, user, route.key);
  if (decision === "unauthenticated") throw new ApiError(401, "You are not signed in");
  if (decision === "forbidden") throw new ApiError(403, "You do not have permission to do that");
  if (decision === "two-factor-setup-first") {
    throw new ApiError(403, "Set up two-factor sign-in on your Account page first: an admin requires it for everyone");
  }
  if (!keyDecision.allowed) {
    const [first, ...others] = keyDecision.scopes;
    throw new ApiError(403, `This API key lacks the scope ${first}${others.length ? ` (or ${others.join(", ")})` : ""}`, undefined, undefined, "missing_scope");
  }
  await next();
});
