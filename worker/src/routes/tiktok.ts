import { Hono } from "hono";
import { mediaBuyerScope } from "../db/queries/media-buyer-scope";
import { listSpend } from "../db/queries/tiktok";
import type { AppEnv } from "../env";
import { formatCents } from "../lib/money";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { dateRangeQuery } from "../schemas/performance";

export const tiktokRoutes = new Hono<AppEnv>()
  /** TikTok spend per campaign and day over startDate..endDate (inclusive, the advertiser's days). */
  .get("/spend", validate("query", dateRangeQuery), async (c) => {
    const { startDate, endDate } = c.req.valid("query");
    const rows = await listSpend(c.get("db"), { start: startDate, end: endDate }, mediaBuyerScope(c.get("user")!));
    return c.json(
      rows.map(({ spendCents, syncedAt, ...row }) => ({ ...row, spend: formatCents(spendCents), syncedAt: iso(syncedAt) })),
      200,
    );
  });
