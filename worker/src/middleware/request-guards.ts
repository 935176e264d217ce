import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Routes that take a multipart upload instead of JSON, with their own (larger) size limit. */
export const MULTIPART_ROUTES: Record<string, number> = {
  // A 10 MB statement plus room for the multipart envelope; the route itself refuses a file over 10 MB.
  "POST /api/transactions/upload": 10 * 1024 * 1024 + 64 * 1024,
};
export const JSON_BODY_LIMIT = 1024 * 1024;

const routeKey = (method: string, path: string) => `${method} ${path}`;
const hasBody = (req: Request) => req.body !== null && (req.headers.get("content-length") ?? "") !== "0";

/**
 * CSRF and content rules (docs/product-rules.md): a state-changing call must come from our own origin
 * (Origin, or Sec-Fetch-Site when Origin is absent) and carry JSON, except the declared
 * multipart uploads. Browsers cannot send cross-site JSON without a CORS preflight we never grant.
 */
export const requestGuards = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (SAFE_METHODS.has(method)) return next();

  // A Bearer API key's request skips the origin check: it carries no ambient credential (its
  // cookie is never read: middleware/session.ts), and a page on another site cannot make a browser
  // add an Authorization header it does not know, so there is nothing for a forged request to ride on.
  const bearer = c.req.header("authorization") !== undefined;
  const origin = bearer ? undefined : c.req.header("origin");
  const ownOrigin = new URL(c.req.url).origin;
  if (origin !== undefined && origin !== ownOrigin) {
    throw new ApiError(403, "Cross-site requests are not allowed");
  }
  const fetchSite = c.req.header("sec-fetch-site");
  if (!bearer && origin === undefined && fetchSite && fetchSite !== "same-origin" && fetchSite !== "none") {
    throw new ApiError(403, "Cross-site requests are not allowed");
  }

  const multipartLimit = MULTIPART_ROUTES[routeKey(method, c.req.path)];
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (hasBody(c.req.raw)) {
    const accepted = multipartLimit !== undefined ? type === "multipart/form-data" : type === "application/json";
    if (!accepted) {
      throw new ApiError(415, multipartLimit !== undefined ? "Send the file as multipart/form-data" : "Send the request body as application/json");
    }
  }
  const limit = multipartLimit ?? JSON_BODY_LIMIT;
  return bodyLimit({
    maxSize: limit,
    onError: () => {
      throw new ApiError(413, `The request body is larger than ${Math.round(limit / 1024 / 1024)} MB`);
    },
  })(c, next);
});
