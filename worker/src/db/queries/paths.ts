import { and, asc, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { Condition, PathValues, PathWeights } from "../../schemas/paths";
import { campaignPaths, campaigns, landers, offers, pathLanders, pathOffers, pathWeightHistory, users } from "../schema";

/**
 * A campaign's traffic distribution as stored (docs/traffic-distribution.md). A campaign without
 * rows here has one implicit default path: its lander and offer (campaigns.lander_id, offer_id).
 */

const pathColumns = {
  id: campaignPaths.id,
  campaignId: campaignPaths.campaignId,
  name: campaignPaths.name,
  isDefault: campaignPaths.isDefault,
  conditions: campaignPaths.conditions,
  directToOffer: campaignPaths.directToOffer,
  stickyDays: campaignPaths.stickyDays,
  optimiseMode: campaignPaths.optimiseMode,
  optimiseWindowDays: campaignPaths.optimiseWindowDays,
  optimiseFloorPercent: campaignPaths.optimiseFloorPercent,
  optimiseMinVisits: campaignPaths.optimiseMinVisits,
};

const ofCampaign = (db: Db, campaignId: number) => db.select({ id: campaignPaths.id }).from(campaignPaths).where(eq(campaignPaths.campaignId, campaignId));

/**
 * The statements that read a campaign's paths and variants (with the URLs /r/ needs and the names
 * the screens show), for the caller to run in one batch with whatever else it reads.
 */
export const pathReads = (db: Db, campaignId: number) =>
  [
    db.select(pathColumns).from(campaignPaths).where(eq(campaignPaths.campaignId, campaignId)).orderBy(asc(campaignPaths.position)),
    db
      .select({
        pathId: pathLanders.pathId,
        landerId: pathLanders.landerId,
        name: landers.name,
        url: landers.url,
        weight: pathLanders.weight,
        paused: pathLanders.paused,
        pinned: pathLanders.pinned,
      })
      .from(pathLanders)
      .innerJoin(landers, eq(landers.id, pathLanders.landerId))
      .where(inArray(pathLanders.pathId, ofCampaign(db, campaignId)))
      .orderBy(asc(pathLanders.pathId), asc(pathLanders.position)),
    db
      .select({
        pathId: pathOffers.pathId,
        offerId: pathOffers.offerId,
        name: offers.name,
        url: offers.url,
        template: offers.utmTemplate,
        weight: pathOffers.weight,
        paused: pathOffers.paused,
        pinned: pathOffers.pinned,
      })
      .from(pathOffers)
      .innerJoin(offers, eq(offers.id, pathOffers.offerId))
      .where(inArray(pathOffers.pathId, ofCampaign(db, campaignId)))
      .orderBy(asc(pathOffers.pathId), asc(pathOffers.position)),
  ] as const;

type PathReads = ReturnType<typeof pathReads>;
type Rows<I extends number> = Awaited<PathReads[I]>;

/** The batch's rows as paths, each with its variants in order. */
export function assemblePaths([paths, landerRows, offerRows]: [Rows<0>, Rows<1>, Rows<2>]) {
  return paths.map((p) => ({
    ...p,
    conditions: p.conditions as Condition[],
    landers: landerRows.filter((l) => l.pathId === p.id),
    offers: offerRows.filter((o) => o.pathId === p.id),
  }));
}
export type StoredPathRow = ReturnType<typeof assemblePaths>[number];

/** A path as the PUT body gives it (no id: a new one). */
export type PathToStore = PathValues;

/** The variants' weights of a path, as the history keeps them. */
export const weightsOf = (p: Pick<PathValues, "landers" | "offers">): PathWeights => ({
  landers: p.landers.map(({ landerId, weight, paused, pinned }) => ({ landerId, weight, paused, pinned })),
  offers: p.offers.map(({ offerId, weight, paused, pinned }) => ({ offerId, weight, paused, pinned })),
});

/** The id of the campaign's path at the position a json_each row's first value names, inside the batch that writes it. */
const pathAtRow = (campaignId: number) =>
  sql<number>`(select id from campaign_paths where campaign_id = ${campaignId} and position = json_extract(value, '$[0]'))`;
const field = <T>(i: number) => sql<T>`json_extract(value, ${`$[${i}]`})`;

/**
 * The statements that replace a campaign's whole set of paths, unrun, for one atomic batch: kept
 * paths (with an id) are updated in place so clicks and history keep pointing at them, new ones
 * inserted, missing ones deleted with their variants and history. Variants and history rows go in
 * one statement each (json_each), so a full set stays a few dozen statements. `changedWeights`:
 * the positions whose weights differ from before (or are new), each given a history row by `userId`.
 */
export function replacePathStatements(db: Db, campaignId: number, paths: PathToStore[], changedWeights: Set<number>, userId: string | null, now = Date.now()) {
  const keptIds = paths.flatMap((p) => (p.id === undefined ? [] : [p.id]));
  const values = (p: PathToStore, position: number) => ({
    campaignId,
    position,
    name: p.name,
    isDefault: p.isDefault,
    conditions: p.conditions,
    directToOffer: p.directToOffer,
    stickyDays: p.stickyDays,
    optimiseMode: p.optimisation.mode,
    optimiseWindowDays: p.optimisation.windowDays,
    optimiseFloorPercent: p.optimisation.floorPercent,
    optimiseMinVisits: p.optimisation.minVisits,
  });
  const variantRows = (pick: (p: PathToStore) => { id: number; weight: number; paused: boolean; pinned: boolean }[]) =>
    JSON.stringify(paths.flatMap((p, position) => pick(p).map((v, i) => [position, v.id, i, v.weight, v.paused ? 1 : 0, v.pinned ? 1 : 0])));
  // Columns in the tables' order: an insert-select fills them by position.
  const variantColumns = {
    id: sql<number>`null`.as("id"),
    pathId: pathAtRow(campaignId).as("path_id"),
    variantId: field<number>(1).as("variant_id"),
    position: field<number>(2).as("position"),
    weight: field<number>(3).as("weight"),
    paused: field<boolean>(4).as("paused"),
    pinned: field<boolean>(5).as("pinned"),
  };
  const { variantId, ...rest } = variantColumns;
  const landerColumns = {
    id: rest.id,
    pathId: rest.pathId,
    landerId: variantId,
    position: rest.position,
    weight: rest.weight,
    paused: rest.paused,
    pinned: rest.pinned,
  };
  const offerColumns = {
    id: rest.id,
    pathId: rest.pathId,
    offerId: variantId,
    position: rest.position,
    weight: rest.weight,
    paused: rest.paused,
    pinned: rest.pinned,
  };
  const landerRows = variantRows((p) => p.landers.map((l) => ({ ...l, id: l.landerId })));
  const offerRows = variantRows((p) => p.offers.map((o) => ({ ...o, id: o.offerId })));
  const historyRows = JSON.stringify(
    paths.flatMap((p, position) =>
      changedWeights.has(position) ? [[position, p.id === undefined ? "Path created" : "Set by hand", JSON.stringify(weightsOf(p))]] : [],
    ),
  );
  return [
    db.delete(pathLanders).where(inArray(pathLanders.pathId, ofCampaign(db, campaignId))),
    db.delete(pathOffers).where(inArray(pathOffers.pathId, ofCampaign(db, campaignId))),
    db.delete(campaignPaths).where(and(eq(campaignPaths.campaignId, campaignId), keptIds.length ? notInArray(campaignPaths.id, keptIds) : undefined)),
    // Positions move out of the way first, so the lookups by position below find one path each.
    db
      .update(campaignPaths)
      .set({ position: sql`-1 - ${campaignPaths.position}` })
      .where(eq(campaignPaths.campaignId, campaignId)),
    ...paths.map((p, position) =>
      p.id === undefined
        ? db.insert(campaignPaths).values(values(p, position))
        : db
            .update(campaignPaths)
            .set(values(p, position))
            .where(and(eq(campaignPaths.id, p.id), eq(campaignPaths.campaignId, campaignId))),
    ),
    db.insert(pathLanders).select(db.select(landerColumns).from(sql`json_each(${landerRows})`)),
    db.insert(pathOffers).select(db.select(offerColumns).from(sql`json_each(${offerRows})`)),
    db.insert(pathWeightHistory).select(
      db
        .select({
          id: sql<number>`null`.as("id"),
          pathId: pathAtRow(campaignId).as("path_id"),
          at: sql<number>`${now}`.as("at"),
          userId: sql<string | null>`${userId}`.as("user_id"),
          reason: field<string>(1).as("reason"),
          weights: field<string>(2).as("weights"),
        })
        .from(sql`json_each(${historyRows})`),
    ),
  ];
}

/**
 * The statement that keeps the campaign's own lander and offer (the campaign dialog's, and the
 * campaign list's) in step with its default path: its first lander, if it has one, and its first
 * offer or none.
 */
export function followDefaultPath(db: Db, campaignId: number, defaultPath: Pick<PathValues, "landers" | "offers">) {
  const lander = defaultPath.landers[0]?.landerId;
  return db
    .update(campaigns)
    .set({ ...(lander === undefined ? {} : { landerId: lander }), offerId: defaultPath.offers[0]?.offerId ?? null })
    .where(eq(campaigns.id, campaignId));
}

/** The ids of the campaign's paths now (to refuse a PUT naming another campaign's path). */
export const pathIdsOf = async (db: Db, campaignId: number) => (await ofCampaign(db, campaignId)).map((r) => r.id);

/** The names of these landers and offers, by id; an id missing from a map does not exist. */
export async function existingIds(db: Db, landerIds: number[], offerIds: number[]) {
  const [l, o] = await Promise.all([
    landerIds.length ? db.select({ id: landers.id, name: landers.name }).from(landers).where(inArray(landers.id, landerIds)) : [],
    offerIds.length ? db.select({ id: offers.id, name: offers.name }).from(offers).where(inArray(offers.id, offerIds)) : [],
  ]);
  return { landers: new Map(l.map((r) => [r.id, r.name])), offers: new Map(o.map((r) => [r.id, r.name])) };
}

/** The campaigns and paths whose variants use a lander (or offer), for a refused deletion to name. */
export async function pathsUsing(db: Db, what: { landerId: number } | { offerId: number }) {
  const variants =
    "landerId" in what
      ? db.select({ pathId: pathLanders.pathId }).from(pathLanders).where(eq(pathLanders.landerId, what.landerId))
      : db.select({ pathId: pathOffers.pathId }).from(pathOffers).where(eq(pathOffers.offerId, what.offerId));
  return db
    .select({ campaignId: campaigns.id, campaign: campaigns.name, path: campaignPaths.name })
    .from(campaignPaths)
    .innerJoin(campaigns, eq(campaigns.id, campaignPaths.campaignId))
    .where(inArray(campaignPaths.id, variants))
    .orderBy(campaigns.name, campaignPaths.position);
}

/** A path's weight changes, newest first, with the name of who made each (null: the optimiser). */
export const weightHistory = (db: Db, pathId: number, limit = 200) =>
  db
    .select({
      id: pathWeightHistory.id,
      at: pathWeightHistory.at,
      userId: pathWeightHistory.userId,
      username: users.username,
      reason: pathWeightHistory.reason,
      weights: pathWeightHistory.weights,
    })
    .from(pathWeightHistory)
    .leftJoin(users, eq(users.id, pathWeightHistory.userId))
    .where(eq(pathWeightHistory.pathId, pathId))
    .orderBy(desc(pathWeightHistory.at), desc(pathWeightHistory.id))
    .limit(limit);

export const pathOfCampaign = (db: Db, campaignId: number, pathId: number) =>
  db
    .select({ id: campaignPaths.id, name: campaignPaths.name })
    .from(campaignPaths)
    .where(and(eq(campaignPaths.id, pathId), eq(campaignPaths.campaignId, campaignId)))
    .get();

/** The campaign's default path (the last) with its variants' ids, or undefined for a campaign without paths of its own. */
export async function defaultPathOf(db: Db, campaignId: number) {
  const path = await db
    .select({ id: campaignPaths.id, directToOffer: campaignPaths.directToOffer })
    .from(campaignPaths)
    .where(and(eq(campaignPaths.campaignId, campaignId), eq(campaignPaths.isDefault, true)))
    .get();
  if (!path) return undefined;
  const [l, o] = await db.batch([
    db.select({ id: pathLanders.landerId }).from(pathLanders).where(eq(pathLanders.pathId, path.id)),
    db.select({ id: pathOffers.offerId }).from(pathOffers).where(eq(pathOffers.pathId, path.id)),
  ]);
  return { ...path, landerIds: l.map((r) => r.id), offerIds: o.map((r) => r.id) };
}
export type DefaultPath = NonNullable<Awaited<ReturnType<typeof defaultPathOf>>>;

/**
 * The campaign dialog's lander and offer, on a campaign with paths of its own: the default path's
 * single lander (offer) becomes the chosen one. Returns the statements, or why it cannot be done
 * (the default path rotates several, or sends visitors straight to the offer): that is edited
 * under Paths, never overwritten from the dialog.
 */
export function followCampaignDialog(
  db: Db,
  path: DefaultPath,
  change: { landerId?: number; offerId?: number | null },
): { statements: BatchStatement[] } | { refused: string } {
  const statements: BatchStatement[] = [];
  if (change.landerId !== undefined && !(path.landerIds.length === 1 && path.landerIds[0] === change.landerId)) {
    if (path.directToOffer) return { refused: "The campaign's default path sends visitors straight to the offer: change its landers under Paths" };
    if (path.landerIds.length !== 1) return { refused: `The campaign's default path rotates ${path.landerIds.length} landers: change them under Paths` };
    statements.push(db.update(pathLanders).set({ landerId: change.landerId }).where(eq(pathLanders.pathId, path.id)));
  }
  if (
    change.offerId !== undefined &&
    !(path.offerIds.length === (change.offerId === null ? 0 : 1) && (change.offerId === null || path.offerIds[0] === change.offerId))
  ) {
    if (path.offerIds.length > 1) return { refused: `The campaign's default path rotates ${path.offerIds.length} offers: change them under Paths` };
    if (change.offerId === null) {
      if (path.directToOffer) return { refused: "The campaign's default path sends visitors straight to the offer: it needs one" };
      statements.push(db.delete(pathOffers).where(eq(pathOffers.pathId, path.id)));
    } else if (path.offerIds.length === 1) {
      statements.push(db.update(pathOffers).set({ offerId: change.offerId }).where(eq(pathOffers.pathId, path.id)));
    } else {
      statements.push(db.insert(pathOffers).values({ pathId: path.id, offerId: change.offerId, position: 0, weight: 100 }));
    }
  }
  return { statements };
}
type BatchStatement = Parameters<Db["batch"]>[0][number];
