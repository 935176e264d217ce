/**
 * A path's split-test figures across both stores of raw clicks (docs/traffic-distribution.md
 * "Split tests and auto-optimisation"): D1's clicks as db/queries/split-tests.ts counts them, plus,
 * for the window's days whose clicks are in shard-day objects, each object's visits and exits per
 * lander and offer and the conversions of those clicks, read from the copies CAKE's reports made
 * in D1 (tracking/attributed-clicks.ts). The split test screen and the optimiser read these.
 */
import { copiedPairConversions, pathVariantFigures, type VariantPairRow, type VariantRow } from "../db/queries/split-tests";
import { shardName } from "./click-id";
import type { Stores } from "./click-queue";
import { shardPlacesOf } from "./click-log";

/** Adds pair rows to per-variant rows, keyed by the variant each pair names. */
function addPairs(rows: VariantRow[], pairs: VariantPairRow[], variantOf: (p: VariantPairRow) => number | null): VariantRow[] {
  const byId = new Map(rows.map((r) => [r.id, { ...r }]));
  for (const pair of pairs) {
    const id = variantOf(pair);
    const row = byId.get(id) ?? { id, visits: 0, exits: 0, conversions: 0, revenueCents: 0 };
    row.visits += pair.visits;
    row.exits += pair.exits;
    row.conversions += pair.conversions;
    row.revenueCents += pair.revenueCents;
    byId.set(id, row);
  }
  return [...byId.values()];
}

export async function variantFigures({ db, shards }: Stores, campaignId: number, pathId: number, from: number, to: number) {
  const places = await shardPlacesOf(db, from, to);
  const own = pathVariantFigures(db, campaignId, pathId, from, to);
  if (!places.length) return own;
  const [figures, converted, ...visits] = await Promise.all([
    own,
    copiedPairConversions(db, campaignId, pathId, from, to),
    ...places.map((place) => shards.getByName(shardName(place)).pathVisits(campaignId, pathId, from, to, place.upTo)),
  ]);
  const pairs = [...converted, ...visits.flat()];
  return { landers: addPairs(figures.landers, pairs, (p) => p.landerId), offers: addPairs(figures.offers, pairs, (p) => p.offerId) };
}
