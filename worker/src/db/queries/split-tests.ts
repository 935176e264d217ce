import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { landers, offers, pathLanders, pathOffers } from "../schema";
import { DAY_MS } from "../../lib/calendar-days";

/**
 * What a path's variants did over a period
 * (docs/traffic-distribution.md "Split tests and auto-optimisation"): per lander and per offer the
 * clicks the path sent it (visits), their exits, and the counted CAKE conversions and revenue of
 * those clicks. A conversion is joined to its click by CAKE's sub2 (the click id) whenever it
 * arrives, so one reported days later is credited to the variant that click got, not to the day it
 * came in. Flagged bots are left out of the figures (they got the same path and variant as anyone:
 * the flag only keeps them out of what is learnt).
 */
export interface VariantRow {
  id: number | null;
  visits: number;
  exits: number;
  conversions: number;
  revenueCents: number;
}

export async function pathVariantFigures(db: Db, campaignId: number, pathId: number, from: number, to: number) {
  // CAKE's dates are report-zone days: a day either side of the UTC one covers every zone.
  const fromDate = new Date(from - DAY_MS).toISOString().slice(0, 10);
  const figures = (column: "lander_id" | "offer_id") =>
    db.all<VariantRow>(sql`
    with k as (
      select click_id, ${sql.raw(column)} as variant, exited_at is not null as exited from clicks
      where campaign_id = ${campaignId} and clicked_at >= ${from} and clicked_at < ${to} and path_id = ${pathId} and bot = 0
    ), cv as (
      select subid2, count(*) as n, sum(revenue_cents) as cents from cake_conversions
      where counted = 1 and date >= ${fromDate} and subid2 in (select click_id from k) group by subid2
    )
    select k.variant as id, count(*) as visits, coalesce(sum(k.exited), 0) as exits,
      coalesce(sum(cv.n), 0) as conversions, coalesce(sum(cv.cents), 0) as revenueCents
    from k left join cv on cv.subid2 = k.click_id group by k.variant`);
  const [landers, offers] = await Promise.all([figures("lander_id"), figures("offer_id")]);
  return { landers, offers };
}

/** A shard-day's visits and exits of a path per lander and offer, or the conversions of its clicks copied into D1. */
export interface VariantPairRow {
  landerId: number | null;
  offerId: number | null;
  visits: number;
  exits: number;
  conversions: number;
  revenueCents: number;
}

/** The path's visits and exits per lander and offer in a store of raw clicks (a shard-day runs it on its own clicks). */
export const pairVisitsQuery = (campaignId: number, pathId: number, from: number, to: number, maxId?: number) => sql`
  select lander_id as landerId, offer_id as offerId, count(*) as visits, count(exited_at) as exits, 0 as conversions, 0 as revenueCents
  from clicks where campaign_id = ${campaignId} and clicked_at >= ${from} and clicked_at < ${to} and path_id = ${pathId} and bot = 0
    ${maxId === undefined ? sql`` : sql`and id <= ${maxId}`}
  group by 1, 2`;

/**
 * The counted conversions of the path's shard-day clicks, per lander and offer: those clicks are
 * in D1 only as the copies CAKE's reports made (attributed_clicks: tracking/attributed-clicks.ts).
 */
export function copiedPairConversions(db: Db, campaignId: number, pathId: number, from: number, to: number) {
  const fromDate = new Date(from - DAY_MS).toISOString().slice(0, 10);
  return db.all<VariantPairRow>(sql`
    select k.lander_id as landerId, k.offer_id as offerId, 0 as visits, 0 as exits, count(*) as conversions,
      coalesce(sum(c.revenue_cents), 0) as revenueCents
    from cake_conversions c join attributed_clicks k on k.click_id = c.subid2
    where c.counted = 1 and c.date >= ${fromDate} and k.campaign_id = ${campaignId} and k.clicked_at >= ${from}
      and k.clicked_at < ${to} and k.path_id = ${pathId} and k.bot = 0
    group by 1, 2`);
}

/** A path's landers and offers in their order, with their names and settings (the split test and the optimiser). */
export async function pathVariants(db: Db, pathId: number) {
  const [landerRows, offerRows] = await Promise.all([
    db
      .select({ id: pathLanders.landerId, name: landers.name, weight: pathLanders.weight, paused: pathLanders.paused, pinned: pathLanders.pinned })
      .from(pathLanders)
      .innerJoin(landers, eq(landers.id, pathLanders.landerId))
      .where(eq(pathLanders.pathId, pathId))
      .orderBy(asc(pathLanders.position)),
    db
      .select({ id: pathOffers.offerId, name: offers.name, weight: pathOffers.weight, paused: pathOffers.paused, pinned: pathOffers.pinned })
      .from(pathOffers)
      .innerJoin(offers, eq(offers.id, pathOffers.offerId))
      .where(eq(pathOffers.pathId, pathId))
      .orderBy(asc(pathOffers.position)),
  ]);
  return { landers: landerRows, offers: offerRows };
}
