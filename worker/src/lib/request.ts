import type { Context } from "hono";
import type { AppEnv, SessionUser } from "../env";
import { ApiError } from "./errors";

/** The visitor's IP as Cloudflare saw it; X-Forwarded-For is client-controlled and ignored. */
export const clientIp = (req: Request) => req.headers.get("cf-connecting-ip") ?? "unknown";

/** The signed-in caller of a route access control already closed to anonymous callers; this only narrows the type. */
export function signedInUser(c: Context<AppEnv>): SessionUser {
  const user = c.get("user");
  if (!user) throw new ApiError(401, "You are not signed in");
  return user;
}
