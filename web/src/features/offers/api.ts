import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { DayRange } from "@/lib/date-ranges";
import { parseCents } from "../../../../worker/src/lib/money";

export type OfferPerformance = InferResponseType<typeof api.cake.offers.$get, 200>[number];

/** Offer performance over a day range (CAKE's days, both ends included), best revenue first. */
export const offerPerformanceQuery = (range: DayRange) =>
  queryOptions({
    queryKey: ["offer-performance", range.startDate, range.endDate],
    queryFn: () => unwrap(api.cake.offers.$get({ query: range })),
    // Switching 7 / 30 / 90 days keeps the old figures on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });

/** Cents from the API's decimal text ("12.34"): totals are added in whole cents, never floats (the Worker's own parser). */
const toCents = (amount: string) => parseCents(amount) ?? 0;

/** The three cards' figures from the per-offer rows (one row per offer: a handful, not raw data). */
export function offerTotals(rows: OfferPerformance[]) {
  return rows.reduce(
    (t, r) => ({ revenueCents: t.revenueCents + toCents(r.revenue), clicks: t.clicks + r.clicks, conversions: t.conversions + r.conversions }),
    { revenueCents: 0, clicks: 0, conversions: 0 },
  );
}
