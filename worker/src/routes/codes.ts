import { Hono } from "hono";
import { inboxWarnings } from "../codes/config";
import { codesEtag, recentCodesVersion, rememberCodesVersion } from "../codes/version";
import { codesSnapshot } from "../db/queries/codes";
import type { AppEnv } from "../env";
import { iso } from "../lib/time";

/** The most codes one answer carries; `total` still counts them all. */
export const CODES_LIMIT = 100;

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

export const codeRoutes = new Hono<AppEnv>()
  /**
   * What the inbox's settings let through or keep out, for admins on the Codes screen: the same
   * sentences the email handler logs with each message they concern (codes/config.ts).
   */
  .get("/setup", (c) => c.json({ warnings: inboxWarnings(c.env) }, 200))
  /**
   * The inbox, polled every 2 seconds by every open Codes screen. An unchanged list answers 304
   * from the version (an indexed aggregate, remembered for a second: codes/version.ts) without
   * reading a row; otherwise the list and its version are read together, so the ETag always
   * belongs to the body it comes with. (`Cache-Control: no-store` is set for all of /api.)
   */
  .get("/", async (c) => {
    const db = c.get("db");
    const ifNoneMatch = c.req.header("if-none-match");
    if (ifNoneMatch) {
      const etag = codesEtag(await recentCodesVersion(db));
      if (matches(ifNoneMatch, etag)) {
        c.header("ETag", etag);
        return c.body(null, 304);
      }
    }
    const { version, rows } = await codesSnapshot(db, CODES_LIMIT);
    rememberCodesVersion(version);
    c.header("ETag", codesEtag(version));
    return c.json(
      {
        items: rows.map((r) => ({ ...r, receivedAt: iso(r.receivedAt), extractedAt: iso(r.extractedAt) })),
        total: version.total,
        limit: CODES_LIMIT,
      },
      200,
    );
  });
