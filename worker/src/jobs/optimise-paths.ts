import { and, eq, ne } from "drizzle-orm";
import { campaignPaths, pathLanders, pathOffers, pathWeightHistory } from "../db/schema";
import { pathVariants, type VariantRow } from "../db/queries/split-tests";
import { variantFigures } from "../tracking/variant-figures";
import { thompsonWeights, type BanditResult } from "../distribution/bandit";
import { mulberry32, seedFrom } from "../distribution/random";
import type { Bindings, Db } from "../env";
import { effectivePercents, type PathWeights } from "../schemas/paths";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";
import type { Job } from "./index";
import { DAY_MS } from "../lib/calendar-days";

interface StoredVariant {
  id: number;
  name: string;
  weight: number;
  paused: boolean;
  pinned: boolean;
}

/** One kind of variant (landers or offers) of a path, through Thompson sampling. Null: fewer than two, nothing to weigh. */
function reweigh(variants: StoredVariant[], figures: VariantRow[], path: OptimisedPath, seed: string): BanditResult | null {
  if (variants.length < 2) return null;
  const percents = effectivePercents(variants);
  const byId = new Map(figures.map((f) => [f.id, f]));
  return thompsonWeights(
    variants.map((v, i) => {
      const f = byId.get(v.id);
      return {
        id: String(v.id),
        name: v.name,
        visits: f?.visits ?? 0,
        conversions: Math.min(f?.conversions ?? 0, f?.visits ?? 0),
        revenue: Math.max(0, f?.revenueCents ?? 0),
        paused: v.paused,
        pinnedWeight: v.pinned && !v.paused ? percents[i]! : null,
        weight: v.paused ? 0 : Math.round(percents[i]!),
      };
    }),
    {
      mode: path.optimiseMode === "epv" ? "epv" : "cr",
      floorPercent: Math.round(path.optimiseFloorPercent),
      minVisits: path.optimiseMinVisits,
      rng: mulberry32(seedFrom(seed)),
    },
  );
}

const percent = (p: number | null) => (p === null ? "–" : `${Math.round(p * 100)}%`);

/** The history's sentence for one kind of variant: the method, then each variant's figures and its move. */
function explain(kind: string, variants: StoredVariant[], result: BanditResult, windowDays: number) {
  const before = effectivePercents(variants);
  const lines = result.reason.perVariant.map((r, i) => {
    const v = variants[i]!;
    const money = `$${(r.revenue / 100).toFixed(2)}`;
    const state = r.paused ? " (paused)" : r.pinned ? " (pinned)" : "";
    return `${v.name}${state}: ${r.visits.toLocaleString("en-US")} visits, ${r.conversions.toLocaleString("en-US")} conversions, ${money}, best with ${percent(r.probabilityBest)}; ${before[i]}% → ${result.weights[i]!.percent}%`;
  });
  return `${kind}, last ${windowDays} days. ${result.reason.method}${result.reason.pinsScaled ? ` ${result.reason.pinsScaled}` : ""} ${lines.join("; ")}.`;
}

/**
 * The updates of the variants whose weight moved, each only while the variant is as it was read
 * (weight, paused, pinned): a person's edit made meanwhile stands.
 */
function weightUpdates(
  db: Db,
  table: typeof pathLanders | typeof pathOffers,
  variantColumn: typeof pathLanders.landerId | typeof pathOffers.offerId,
  pathId: number,
  before: StoredVariant[],
  after: StoredVariant[],
) {
  return before.flatMap((v, i) => {
    const weight = after[i]!.weight;
    if (weight === v.weight) return [];
    return [
      db
        .update(table)
        .set({ weight })
        .where(and(eq(table.pathId, pathId), eq(variantColumn, v.id), eq(table.weight, v.weight), eq(table.paused, v.paused), eq(table.pinned, v.pinned))),
    ];
  });
}

type OptimisedPath = Awaited<ReturnType<typeof optimisedPaths>>[number];
const optimisedPaths = (db: Db) =>
  db
    .select({
      id: campaignPaths.id,
      campaignId: campaignPaths.campaignId,
      optimiseMode: campaignPaths.optimiseMode,
      optimiseWindowDays: campaignPaths.optimiseWindowDays,
      optimiseFloorPercent: campaignPaths.optimiseFloorPercent,
      optimiseMinVisits: campaignPaths.optimiseMinVisits,
    })
    .from(campaignPaths)
    .where(ne(campaignPaths.optimiseMode, "off"));

/**
 * Auto-optimisation (docs/traffic-distribution.md "Split tests and auto-optimisation"): every path
 * with it on gets its lander and offer weights recomputed by Thompson sampling over its window
 * (distribution/bandit.ts). A change is written with a history row by the optimiser (no user) whose
 * reason has the figures it used. Each variant's new weight is written only where the variant is
 * still as it was read, so a person's edit made meanwhile (a pin, a pause, a weight) stands.
 * Returns the paths whose weights moved.
 */
export async function optimisePaths(db: Db, now: number, shards: Bindings["CLICK_SHARDS"]): Promise<number[]> {
  const moved: number[] = [];
  for (const path of await optimisedPaths(db)) {
    const { landers: landerRows, offers: offerRows } = await pathVariants(db, path.id);
    const figures = await variantFigures({ db, shards }, path.campaignId, path.id, now - path.optimiseWindowDays * DAY_MS, now);
    const forLanders = reweigh(landerRows, figures.landers, path, `${path.id}:landers:${now}`);
    const forOffers = reweigh(offerRows, figures.offers, path, `${path.id}:offers:${now}`);
    if (!forLanders?.moved && !forOffers?.moved) continue;

    const after = (rows: StoredVariant[], result: BanditResult | null) =>
      rows.map((v, i) => ({ ...v, weight: result?.moved ? result.weights[i]!.percent : v.weight }));
    const newLanders = after(landerRows, forLanders);
    const newOffers = after(offerRows, forOffers);
    const weights: PathWeights = {
      landers: newLanders.map(({ id, weight, paused, pinned }) => ({ landerId: id, weight, paused, pinned })),
      offers: newOffers.map(({ id, weight, paused, pinned }) => ({ offerId: id, weight, paused, pinned })),
    };
    const reason = [
      forLanders?.moved ? explain("Landers", landerRows, forLanders, path.optimiseWindowDays) : null,
      forOffers?.moved ? explain("Offers", offerRows, forOffers, path.optimiseWindowDays) : null,
    ]
      .filter(Boolean)
      .join(" ");
    await db.batch([
      db.insert(pathWeightHistory).values({ pathId: path.id, at: now, userId: null, reason, weights }),
      ...weightUpdates(db, pathLanders, pathLanders.landerId, path.id, landerRows, newLanders),
      ...weightUpdates(db, pathOffers, pathOffers.offerId, path.id, offerRows, newOffers),
    ]);
    moved.push(path.id);
  }
  // This isolate's /r/ follows at once; the others within the campaign cache's TTL.
  if (moved.length) invalidateTrackedCampaigns();
  return moved;
}

export const optimisePathsJob: Job = {
  name: "optimise-paths",
  async run({ db, env, now }) {
    await optimisePaths(db, now, env.CLICK_SHARDS);
  },
};
