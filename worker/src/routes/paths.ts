import { Hono } from "hono";
import { z } from "zod";
import { audit, shown } from "../audit/record";
import { findTrackedCampaign, getCampaign } from "../db/queries/campaigns";
import {
  existingIds,
  followDefaultPath,
  pathIdsOf,
  pathOfCampaign,
  pathsUsing,
  replacePathStatements,
  weightHistory,
  weightsOf,
  type StoredPathRow,
} from "../db/queries/paths";
import type { AppEnv, Db } from "../env";
import { isForeignKeyViolation } from "../lib/db-errors";
import { ApiError, badRequest, conflict, notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { effectivePercents, MAX_PATHS, previewSchema, putPathsSchema, type PathValues, type PathWeights } from "../schemas/paths";
import { CAMPAIGN_CACHE_TTL_MS, invalidateTrackedCampaigns } from "../tracking/campaign-cache";
import { choosePath, liveCampaign, visitOf, type Visit } from "../tracking/distribution";

/** How long an edit takes at most to reach every isolate's /r/ (the campaign cache's TTL; docs/traffic-distribution.md). */
const EDIT_REACHES_TRACKING_SECONDS = CAMPAIGN_CACHE_TTL_MS / 1000;

const DEFAULT_OPTIMISATION = { mode: "off", windowDays: 7, floorPercent: 5, minVisits: 200 } as const;

/** A stored path as the screens read it: its variants with names and the share of visitors each gets. */
function pathJson(p: StoredPathRow) {
  const landerPercents = effectivePercents(p.landers);
  const offerPercents = effectivePercents(p.offers);
  return {
    id: p.id as number | null,
    name: p.name,
    isDefault: p.isDefault,
    conditions: p.conditions,
    directToOffer: p.directToOffer,
    stickyDays: p.stickyDays,
    optimisation: { mode: p.optimiseMode, windowDays: p.optimiseWindowDays, floorPercent: p.optimiseFloorPercent, minVisits: p.optimiseMinVisits },
    landers: p.landers.map((l, i) => ({
      landerId: l.landerId,
      name: l.name,
      weight: l.weight,
      paused: l.paused,
      pinned: l.pinned,
      percent: landerPercents[i]!,
    })),
    offers: p.offers.map((o, i) => ({ offerId: o.offerId, name: o.name, weight: o.weight, paused: o.paused, pinned: o.pinned, percent: offerPercents[i]! })),
  };
}
type PathJson = ReturnType<typeof pathJson>;

/**
 * The campaign's paths; for a campaign without paths of its own, the one it runs on: a default
 * path (id null) with its lander and offer at 100%.
 */
async function campaignPaths(db: Db, campaignId: number): Promise<{ explicit: boolean; paths: PathJson[] } | null> {
  const tracked = await findTrackedCampaign(db, campaignId);
  if (!tracked) return null;
  if (tracked.paths.length) return { explicit: true, paths: tracked.paths.map(pathJson) };
  const names = await existingIds(db, [tracked.landerId], tracked.offer ? [tracked.offer.id] : []);
  const implicit = {
    id: null,
    name: "Default",
    isDefault: true,
    conditions: [],
    directToOffer: false,
    stickyDays: null,
    optimisation: { ...DEFAULT_OPTIMISATION },
    landers: [{ landerId: tracked.landerId, name: names.landers.get(tracked.landerId) ?? "", weight: 100, paused: false, pinned: false, percent: 100 }],
    offers: tracked.offer
      ? [{ offerId: tracked.offer.id, name: names.offers.get(tracked.offer.id) ?? "", weight: 100, paused: false, pinned: false, percent: 100 }]
      : [],
  };
  return { explicit: false, paths: [implicit] };
}

/** "US mobile: Spring LP 50%, Summer LP 50% → Offer A 100%" per path, for the audit entry. */
type Described = { name: string; percent: number };
function describe(paths: { name: string; directToOffer: boolean; landers: Described[]; offers: Described[] }[]) {
  return paths
    .map((p) => {
      const list = (vs: Described[]) => shown(vs.map((v) => `${v.name} ${v.percent}%`));
      return `${p.name}: ${p.directToOffer ? "straight to offer" : list(p.landers)} → ${list(p.offers)}`;
    })
    .join("; ");
}

/** Refuses paths of another campaign and landers or offers that do not exist, naming each. */
async function checkReferences(db: Db, campaignId: number, paths: PathValues[]) {
  const [ownIds, found] = await Promise.all([
    pathIdsOf(db, campaignId),
    existingIds(db, [...new Set(paths.flatMap((p) => p.landers.map((l) => l.landerId)))], [...new Set(paths.flatMap((p) => p.offers.map((o) => o.offerId)))]),
  ]);
  const problems: string[] = [];
  for (const p of paths) {
    if (p.id !== undefined && !ownIds.includes(p.id))
      problems.push(`Path "${p.name}": path ${p.id} is not a path of this campaign (leave the id out for a new path)`);
    for (const l of p.landers) if (!found.landers.has(l.landerId)) problems.push(`Path "${p.name}": lander ${l.landerId} does not exist (deleted?)`);
    for (const o of p.offers) if (!found.offers.has(o.offerId)) problems.push(`Path "${p.name}": offer ${o.offerId} does not exist (deleted?)`);
  }
  const ids = paths.flatMap((p) => (p.id === undefined ? [] : [p.id]));
  if (new Set(ids).size !== ids.length) problems.push("The same path id is given twice");
  if (problems.length) throw new ApiError(400, problems.length === 1 ? problems[0]! : "Some paths cannot be saved", problems);
  return found;
}

/**
 * Deleting a lander or offer a path uses is refused (409), naming the campaigns and paths, so a
 * rotation never loses a variant behind its owner's back.
 */
export async function refuseIfInPaths(db: Db, what: { landerId: number } | { offerId: number }, label: string) {
  const uses = await pathsUsing(db, what);
  if (!uses.length) return;
  const list = uses.map((u) => `campaign "${u.campaign}" (path "${u.path}")`);
  throw new ApiError(409, `${label} is used by ${list.join(", ")}: take it out of those paths first`, list);
}

/** A path that took the lander or offer up between the check and the delete: the foreign key refuses, still a 409. */
export async function inPathsMeanwhile<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isForeignKeyViolation(err)) throw conflict("It was just added to a campaign's path: take it out of that path first");
    throw err;
  }
}

const pathParam = z.object({
  id: idParam.shape.id,
  pathId: idParam.shape.id,
});

/** Traffic distribution (docs/traffic-distribution.md): a campaign's paths, mounted under /api/campaigns. */
export const pathRoutes = new Hono<AppEnv>()
  .get("/:id/paths", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    const found = await campaignPaths(c.get("db"), id);
    if (!found) throw notFound("Campaign not found");
    return c.json({ campaignId: id, ...found, maxPaths: MAX_PATHS, editsReachTrackingWithinSeconds: EDIT_REACHES_TRACKING_SECONDS }, 200);
  })

  /** The whole set, in evaluation order, replaced atomically. */
  .put("/:id/paths", validate("param", idParam), validate("json", putPathsSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { paths } = c.req.valid("json");
    const campaign = await getCampaign(db, id);
    if (!campaign) throw notFound("Campaign not found");
    const [found, before] = await Promise.all([checkReferences(db, id, paths), campaignPaths(db, id)]);
    const named = paths.map((p) => {
      const landerPercents = effectivePercents(p.landers);
      const offerPercents = effectivePercents(p.offers);
      return {
        ...p,
        landers: p.landers.map((l, i) => ({ name: found.landers.get(l.landerId) ?? "", percent: landerPercents[i]! })),
        offers: p.offers.map((o, i) => ({ name: found.offers.get(o.offerId) ?? "", percent: offerPercents[i]! })),
      };
    });
    // A history row for each path whose weights are new or changed.
    const beforeWeights = new Map(
      (before?.explicit ? before.paths : []).map((p) => [p.id, JSON.stringify(weightsOf({ landers: p.landers, offers: p.offers }))]),
    );
    const changed = new Set(paths.flatMap((p, i) => (p.id === undefined || beforeWeights.get(p.id) !== JSON.stringify(weightsOf(p)) ? [i] : [])));
    const summaryBefore = before ? describe(before.paths) : "";
    const summaryAfter = describe(named);
    try {
      await db.batch([
        followDefaultPath(db, id, paths[paths.length - 1]!),
        ...replacePathStatements(db, id, paths, changed, c.get("user")?.id ?? null),
        audit(c, {
          action: "campaign.paths",
          kind: "campaign",
          id,
          summary: summaryBefore === summaryAfter ? `${campaign.name}: paths saved unchanged` : `${campaign.name}: paths ${summaryBefore} ⇒ ${summaryAfter}`,
        }),
      ]);
    } catch (err) {
      // Deleted between the check and the write: still a clear 400, never a 500.
      if (isForeignKeyViolation(err)) throw badRequest("A chosen lander or offer was deleted meanwhile; reload and try again");
      throw err;
    }
    invalidateTrackedCampaigns();
    const saved = await campaignPaths(db, id);
    return c.json({ campaignId: id, ...saved!, maxPaths: MAX_PATHS, editsReachTrackingWithinSeconds: EDIT_REACHES_TRACKING_SECONDS }, 200);
  })

  /**
   * "Which path would this visitor get?" The stored paths (not the tracking cache), the visitor's
   * path and the share each of its landers and offers would get.
   */
  .post("/:id/paths/preview", validate("param", idParam), validate("json", previewSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const tracked = await findTrackedCampaign(db, id);
    if (!tracked) throw notFound("Campaign not found");
    const view = await campaignPaths(db, id);
    const live = liveCampaign(tracked);
    const at = input.at ? Date.parse(input.at) : Date.now();
    const agent = { deviceType: input.deviceType ?? null, os: input.os ?? null, browser: input.browser ?? null };
    const visit = (place: Pick<Visit, "country" | "region" | "city" | "asn">) =>
      visitOf(
        { ...place, acceptLanguage: input.language ?? null, query: new URLSearchParams(input.query ?? ""), userAgent: null, at },
        tracked.timeZone,
        () => agent,
      );
    const withCf = { country: input.country?.toUpperCase() || null, region: input.region || null, city: input.city || null, asn: input.asn ?? null };
    const noCf = { country: null, region: null, city: null, asn: null };
    const pathIndex = (place: typeof withCf) => {
      if (!live.distribution) return 0;
      const chosen = choosePath(live.distribution, visit(place));
      return live.distribution.paths.indexOf(chosen);
    };
    const index = pathIndex(withCf);
    const chosen = view!.paths[index]!;
    const withoutCf = view!.paths[pathIndex(noCf)]!;
    const hasCf = withCf.country !== null || withCf.region !== null || withCf.city !== null || withCf.asn !== null;
    const notes: string[] = [];
    if (!hasCf) {
      notes.push(
        "No country, region, city or ISP given: that is what a request without Cloudflare's data (a local run) looks like, and such a visitor gets " +
          (withoutCf.isDefault ? "the default path." : `path "${withoutCf.name}".`),
      );
    }
    if (!view!.explicit) notes.push("This campaign has no paths of its own: every visitor gets its lander and offer.");
    if (chosen.stickyDays !== null) notes.push(`Sticky: a returning visitor keeps the lander and offer they got for up to ${chosen.stickyDays} days.`);
    return c.json(
      {
        path: { id: chosen.id, name: chosen.name, isDefault: chosen.isDefault, position: index },
        directToOffer: chosen.directToOffer,
        landers: chosen.landers.map(({ landerId, name, percent, paused }) => ({ landerId, name, percent, paused })),
        offers: chosen.offers.map(({ offerId, name, percent, paused }) => ({ offerId, name, percent, paused })),
        stickyDays: chosen.stickyDays,
        timeZone: tracked.timeZone,
        at: iso(at),
        withoutCloudflareData: { id: withoutCf.id, name: withoutCf.name, isDefault: withoutCf.isDefault },
        notes,
      },
      200,
    );
  })

  /** A path's weight changes, newest first: by whom (null: the optimiser), why, and the weights after. */
  .get("/:id/paths/:pathId/history", validate("param", pathParam), async (c) => {
    const db = c.get("db");
    const { id, pathId } = c.req.valid("param");
    const path = await pathOfCampaign(db, id, pathId);
    if (!path) throw notFound("Path not found");
    const rows = await weightHistory(db, pathId);
    return c.json(
      {
        pathId,
        name: path.name,
        entries: rows.map((r) => ({
          id: r.id,
          at: iso(r.at),
          by: r.userId === null ? null : { id: r.userId, username: r.username ?? "deleted user" },
          reason: r.reason,
          weights: r.weights as PathWeights,
        })),
      },
      200,
    );
  });
