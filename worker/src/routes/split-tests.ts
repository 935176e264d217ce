import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { pathVariants, type VariantRow } from "../db/queries/split-tests";
import { variantFigures } from "../tracking/variant-figures";
import { campaignPaths } from "../db/schema";
import { splitTestVerdict, type SplitTestResult } from "../distribution/split-test";
import { mulberry32, seedFrom } from "../distribution/random";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { DAY_MS } from "../lib/calendar-days";

const splitTestQuery = z.object({
  /** The last N days; absent: the path's optimisation window. */
  days: z.coerce
    .number({ error: "days must be a number of days" })
    .int("days must be a whole number")
    .min(1, "days must be 1-90")
    .max(90, "days must be 1-90")
    .optional(),
  /** The metric the verdict is about; absent: the path's optimisation metric (conversion rate when off). */
  metric: z.enum(["cr", "epv"], { error: 'metric must be "cr" or "epv"' }).optional(),
});

/** One kind of variant's split test: its figures (with exits and CTR) and the verdict on them. */
function splitTest(variants: { id: number; name: string; paused: boolean }[], figures: VariantRow[], metric: "cr" | "epv", seed: string) {
  if (variants.length === 0) return null;
  const byId = new Map(figures.map((f) => [f.id, f]));
  const rows = variants.map((v) => {
    const f = byId.get(v.id);
    return {
      id: String(v.id),
      name: v.name,
      paused: v.paused,
      visits: f?.visits ?? 0,
      exits: f?.exits ?? 0,
      conversions: Math.min(f?.conversions ?? 0, f?.visits ?? 0),
      revenue: Math.max(0, f?.revenueCents ?? 0),
    };
  });
  const result: SplitTestResult = splitTestVerdict(rows, { metric, rng: mulberry32(seedFrom(seed)) });
  return {
    method: result.method,
    verdict: result.verdict,
    winner: result.winner === null ? null : Number(result.winner),
    moreVisitsEach: result.moreVisitsEach,
    variants: result.variants.map((r, i) => ({
      id: Number(r.id),
      name: r.name,
      paused: rows[i]!.paused,
      visits: r.visits,
      exits: rows[i]!.exits,
      /** Exits per visit (the lander's click-through rate). */
      ctr: r.visits > 0 ? rows[i]!.exits / r.visits : 0,
      conversions: r.conversions,
      revenueCents: r.revenue,
      cr: r.cr,
      /** Revenue per visit in cents, with its 95% interval. */
      epvCents: r.epv,
      probabilityBest: r.probabilityBest,
    })),
  };
}

/**
 * A path's split test (docs/traffic-distribution.md "Split tests and auto-optimisation"): for its
 * landers and for its offers, what each variant did over the period and the verdict
 * (distribution/split-test.ts), with the method named. Mounted under /api/campaigns.
 */
export const splitTestRoutes = new Hono<AppEnv>().get(
  "/:id/paths/:pathId/split-test",
  validate("param", z.object({ id: idParam.shape.id, pathId: idParam.shape.id })),
  validate("query", splitTestQuery),
  async (c) => {
    const db = c.get("db");
    const { id, pathId } = c.req.valid("param");
    const query = c.req.valid("query");
    const path = await db.select().from(campaignPaths).where(eq(campaignPaths.id, pathId)).get();
    if (!path || path.campaignId !== id) throw notFound("Path not found");
    const days = query.days ?? path.optimiseWindowDays;
    const metric = query.metric ?? (path.optimiseMode === "epv" ? "epv" : "cr");
    const to = Date.now();
    const from = to - days * DAY_MS;
    const [variants, figures] = await Promise.all([pathVariants(db, pathId), variantFigures({ db, shards: c.env.CLICK_SHARDS }, id, pathId, from, to)]);
    // Seeded by the path and the minute: the same page read twice in a minute shows the same figures.
    const seed = `${pathId}:${Math.floor(to / 60_000)}`;
    return c.json(
      {
        pathId,
        name: path.name,
        from: iso(from),
        to: iso(to),
        days,
        metric,
        landers: splitTest(variants.landers, figures.landers, metric, `${seed}:landers`),
        offers: splitTest(variants.offers, figures.offers, metric, `${seed}:offers`),
      },
      200,
    );
  },
);
