import { Hono } from "hono";
import { cakeStatsByDay, offerPerformance } from "../db/queries/cake";
import { mediaBuyerScope } from "../db/queries/media-buyer-scope";
import type { AppEnv } from "../env";
import { formatCents, perVisit } from "../lib/money";
import { validate } from "../lib/validate";
import { dateRangeQuery } from "../schemas/performance";

export const cakeRoutes = new Hono<AppEnv>()
  /** Offer performance over CAKE days startDate..endDate (inclusive), best revenue first. */
  .get("/offers", validate("query", dateRangeQuery), async (c) => {
    const { startDate, endDate } = c.req.valid("query");
    const rows = await offerPerformance(c.get("db"), { start: startDate, end: endDate }, mediaBuyerScope(c.get("user")!));
    return c.json(
      rows.map((r) => ({
        offerId: r.offerId,
        offerName: r.offerName,
        clicks: r.clicks,
        conversions: r.conversions,
        revenue: formatCents(r.revenueCents),
        // Earnings per CAKE click: the Stats screen's EPV of the offer, three decimals like it (docs/screens.md §9).
        epc: perVisit(r.revenueCents, r.clicks),
      })),
      200,
    );
  })

  /** CAKE's figures per day, offer, media buyer (sub1) and spark (sub3): aggregated, never per click. */
  .get("/stats", validate("query", dateRangeQuery), async (c) => {
    const { startDate, endDate } = c.req.valid("query");
    const rows = await cakeStatsByDay(c.get("db"), { start: startDate, end: endDate }, mediaBuyerScope(c.get("user")!));
    return c.json(
      rows.map(({ revenueCents, ...row }) => ({ ...row, revenue: formatCents(revenueCents) })),
      200,
    );
  });
