import { createMiddleware } from "hono/factory";
import { accessFor, decide } from "../access";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/** Enforces the ACCESS table for every /api request, before any handler runs. */
export const accessControl = createMiddleware<AppEnv>(async (c, next) => {
  const access = accessFor(c.req.method, c.req.path);
  if (access === undefined) throw new ApiError(404, "Not found");
  const decision = decide(access, c.get("user"));
  if (decision === "unauthenticated") throw new ApiError(401, "You are not signed in");
  if (decision === "forbidden") throw new ApiError(403, "You do not have permission to do that");
  await next();
});
