import { Hono } from "hono";
import type { RouterRoute } from "hono/types";
import type { AppEnv } from "../env";
import { openApiDocument } from "../openapi/document";

/**
 * The API's OpenAPI 3.1 description (docs/accounts-security.md "API keys"), public like any
 * published API reference: it holds no data, and tools fetch it before they have a key. Built once
 * per isolate from the mounted routes, which `routes` returns (the app's, known only once it is built).
 */
export const openApiRoutes = (routes: () => readonly RouterRoute[]) => {
  let document: ReturnType<typeof openApiDocument> | undefined;
  return new Hono<AppEnv>().get("/", (c) => c.json((document ??= openApiDocument(routes())), 200));
};
