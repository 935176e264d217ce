import { createMiddleware } from "hono/factory";
import { decide, routeFor } from "../access";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/** Enforces the ACCESS table for every /api request, before any handler runs. */
export const accessControl = createMiddleware<AppEnv>(async (c, next) => {
  const route = routeFor(c.req.method, c.req.path);
  if (route === undefined) throw new ApiError(404, "Not found");
  const decision = decide(route.access, c.get("user"), route.key);
  if (decision === "unauthenticated") throw new ApiError(401, "You are not signed in");
  if (decision === "forbidden") throw new ApiError(403, "You do not have permission to do that");
  if (decision === "two-factor-setup-first") {
    throw new ApiError(403, "Set up two-factor sign-in on your Account page first: an admin requires it for everyone");
  }
  await next();
});
