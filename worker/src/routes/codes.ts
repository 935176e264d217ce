import { Hono } from "hono";
import { codesVersion, listRecentCodes } from "../db/queries/codes";
import type { AppEnv } from "../env";
import { iso } from "../lib/time";

/** The most codes one answer carries; `total` still counts them all. */
export const CODES_LIMIT = 100;

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

export const codeRoutes = new Hono<AppEnv>()
  /**
   * The inbox, polled every 2 seconds by every open Codes screen: the ETag comes from an indexed
   * aggregate, so an unchanged list costs one small query and a 304 without reading a row.
   * (`Cache-Control: no-store` is set for every API answer in app.ts.)
   */
  .get("/", async (c) => {
    const db = c.get("db");
    const version = await codesVersion(db);
    const etag = `"codes-${version.total}-${version.lastId}-${version.lastExtractedAt}"`;
    c.header("ETag", etag);
    if (matches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
    const rows = await listRecentCodes(db, CODES_LIMIT);
    return c.json(
      {
        items: rows.map((r) => ({ ...r, receivedAt: iso(r.receivedAt), extractedAt: iso(r.extractedAt) })),
        total: version.total,
        limit: CODES_LIMIT,
      },
      200,
    );
  });
