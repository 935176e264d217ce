import { and, desc, eq, isNotNull, max, ne, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { canonicalTimeZone, DEFAULT_REPORT_TIMEZONE } from "../../schemas/settings";
import { campaigns, domains, landers, offers, settings, sparks } from "../schema";
import { assemblePaths, pathReads, type StoredPathRow } from "./paths";

const viewColumns = {
  id: campaigns.id,
  name: campaigns.name,
  landerId: campaigns.landerId,
  landerName: landers.name,
  offerId: campaigns.offerId,
  offerName: offers.name,
  domainId: campaigns.domainId,
  domain: domains.domain,
  subdomain: domains.subdomain,
  domainStatus: domains.status,
  bhToggle: campaigns.bhToggle,
  mediaBuyer: campaigns.mediaBuyer,
  sparkId: campaigns.sparkId,
  createdAt: campaigns.createdAt,
};

/** Campaign rows with the names and domain the screens show, in one query. */
const campaignView = (db: Db) =>
  db
    .select(viewColumns)
    .from(campaigns)
    .leftJoin(landers, eq(landers.id, campaigns.landerId))
    .leftJoin(offers, eq(offers.id, campaigns.offerId))
    .leftJoin(domains, eq(domains.id, campaigns.domainId));

export type CampaignViewRow = Awaited<ReturnType<typeof listCampaigns>>[number];

export const listCampaigns = (db: Db) => campaignView(db).orderBy(desc(campaigns.createdAt), desc(campaigns.id));

export const getCampaignView = (db: Db, id: number) => campaignView(db).where(eq(campaigns.id, id)).get();

export interface CampaignValues {
  name: string;
  landerId: number;
  offerId: number | null;
  domainId: number | null;
  bhToggle: boolean;
  /** Left out: none (the columns default to null). */
  mediaBuyer?: string | null;
  sparkId?: number | null;
}

/** The stored fields, for the audit's before → after. */
export const getCampaign = (db: Db, id: number) =>
  db
    .select({
      name: campaigns.name,
      landerId: campaigns.landerId,
      offerId: campaigns.offerId,
      domainId: campaigns.domainId,
      bhToggle: campaigns.bhToggle,
      mediaBuyer: campaigns.mediaBuyer,
      sparkId: campaigns.sparkId,
    })
    .from(campaigns)
    .where(eq(campaigns.id, id))
    .get();

/**
 * A campaign that exists, and when it was made: [id, created_at]. A shard-day object keeps a deleted
 * campaign's clicks until the retention empties it; a reader that asks it for a campaign's clicks
 * takes only the clicks made since the campaign was (an id given again before migration 0024, which
 * keeps ids from reuse, is then not the deleted campaign's).
 */
export type KeptCampaign = [number, number];

export const keptCampaigns = async (db: Db): Promise<KeptCampaign[]> =>
  (await db.select({ id: campaigns.id, createdAt: campaigns.createdAt }).from(campaigns)).map((c): KeptCampaign => [c.id, c.createdAt]);

// The writes are returned unrun, so a route can batch them with their audit entry.

/** Past every id a campaign has had, deleted ones included (db/schema.ts `retiredIds`): no click of a deleted campaign reads as the new one's. */
const NEXT_CAMPAIGN_ID = sql<number>`(select max(coalesce((select max(id) from campaigns), 0),
  coalesce((select last_id from retired_ids where table_name = 'campaigns'), 0)) + 1)`;

export const insertCampaign = (db: Db, values: CampaignValues) =>
  db
    .insert(campaigns)
    .values({ ...values, id: NEXT_CAMPAIGN_ID, createdAt: Date.now() })
    .returning({ id: campaigns.id });

/** No row back when there is no such campaign. */
export const updateCampaign = (db: Db, id: number, values: Partial<CampaignValues>) =>
  db.update(campaigns).set(values).where(eq(campaigns.id, id)).returning({ id: campaigns.id });

/** Deleting a campaign deletes its clicks (the model's cascade). No row back: no such campaign. */
export const deleteCampaign = (db: Db, id: number) => db.delete(campaigns).where(eq(campaigns.id, id)).returning({ id: campaigns.id });

/**
 * Why the referenced lander, offer, domain or spark cannot be used, one per field (empty: all fine).
 * A tracking domain must be active with a subdomain, as the campaign dialog offers them.
 */
export async function referenceProblems(db: Db, refs: { landerId?: number; offerId?: number | null; domainId?: number | null; sparkId?: number | null }) {
  const [lander, offer, domain, spark] = await Promise.all([
    refs.landerId ? db.select({ id: landers.id }).from(landers).where(eq(landers.id, refs.landerId)).get() : undefined,
    refs.offerId ? db.select({ id: offers.id }).from(offers).where(eq(offers.id, refs.offerId)).get() : undefined,
    refs.domainId
      ? db.select({ domain: domains.domain, subdomain: domains.subdomain, status: domains.status }).from(domains).where(eq(domains.id, refs.domainId)).get()
      : undefined,
    refs.sparkId ? db.select({ id: sparks.id }).from(sparks).where(eq(sparks.id, refs.sparkId)).get() : undefined,
  ]);
  const problems: { field: string; message: string }[] = [];
  if (refs.landerId && !lander) problems.push({ field: "landerId", message: `Lander ${refs.landerId} does not exist` });
  if (refs.offerId && !offer) problems.push({ field: "offerId", message: `Offer ${refs.offerId} does not exist` });
  if (refs.sparkId && !spark) problems.push({ field: "sparkId", message: `Spark ${refs.sparkId} does not exist` });
  if (refs.domainId) {
    if (!domain) problems.push({ field: "domainId", message: `Domain ${refs.domainId} does not exist` });
    else if (domain.status !== "active" || !domain.subdomain) {
      problems.push({ field: "domainId", message: `${domain.domain} is not an active domain with a subdomain` });
    }
  }
  return problems;
}

/** The names of a campaign's lander, offer and tracking domain (null for none or a missing one), for its audit summary. */
export async function referenceNames(db: Db, refs: { landerId: number; offerId: number | null; domainId: number | null; sparkId?: number | null }) {
  const [lander, offer, domain, spark] = await Promise.all([
    db.select({ name: landers.name }).from(landers).where(eq(landers.id, refs.landerId)).get(),
    refs.offerId !== null ? db.select({ name: offers.name }).from(offers).where(eq(offers.id, refs.offerId)).get() : undefined,
    refs.domainId !== null
      ? db.select({ domain: domains.domain, subdomain: domains.subdomain }).from(domains).where(eq(domains.id, refs.domainId)).get()
      : undefined,
    refs.sparkId != null ? db.select({ name: sparks.name }).from(sparks).where(eq(sparks.id, refs.sparkId)).get() : undefined,
  ]);
  return {
    lander: lander?.name ?? null,
    offer: offer?.name ?? null,
    domain: domain ? (domain.subdomain ? `${domain.subdomain}.${domain.domain}` : domain.domain) : null,
    spark: spark?.name ?? null,
  };
}

/**
 * What /r/ and /click need to answer for a campaign, {mediaBuyer} and {spark} (the spark's sparkId)
 * included: its own lander and offer (the implicit default path), and its paths when it has any
 * (docs/traffic-distribution.md) with the report time zone their day and hour rules read.
 */
export interface TrackedCampaign {
  id: number;
  bhToggle: boolean;
  landerId: number;
  landerUrl: string;
  mediaBuyer: string | null;
  spark: string | null;
  offer: { id: number; url: string; template: string } | null;
  paths: StoredPathRow[];
  timeZone: string;
}

/** One D1 round trip: the campaign, its paths and variants, and the report time zone. */
export async function findTrackedCampaign(db: Db, id: number): Promise<TrackedCampaign | null> {
  const [rows, paths, landerRows, offerRows, zone] = await db.batch([
    db
      .select({
        id: campaigns.id,
        bhToggle: campaigns.bhToggle,
        landerId: campaigns.landerId,
        landerUrl: landers.url,
        mediaBuyer: campaigns.mediaBuyer,
        spark: sparks.sparkId,
        // Named apart: in a batch D1 answers rows as objects, where a second "id" or "url" would overwrite the first.
        offerId: sql<number | null>`${offers.id}`.as("offer_id_"),
        offerUrl: sql<string | null>`${offers.url}`.as("offer_url"),
        template: offers.utmTemplate,
      })
      .from(campaigns)
      .innerJoin(landers, eq(landers.id, campaigns.landerId))
      .leftJoin(offers, eq(offers.id, campaigns.offerId))
      .leftJoin(sparks, eq(sparks.id, campaigns.sparkId))
      .where(eq(campaigns.id, id)),
    ...pathReads(db, id),
    db.select({ value: settings.value }).from(settings).where(eq(settings.key, "report_timezone")),
  ]);
  const row = rows[0];
  if (!row) return null;
  const { offerId, offerUrl, template, ...rest } = row;
  return {
    ...rest,
    offer: offerId !== null && offerUrl !== null && template !== null ? { id: offerId, url: offerUrl, template } : null,
    paths: assemblePaths([paths, landerRows, offerRows]),
    timeZone: canonicalTimeZone(zone[0]?.value ?? DEFAULT_REPORT_TIMEZONE) ?? "UTC",
  };
}

/** The highest campaign id there is (0 with none): ids are handed out in order (tracking/campaign-cache.ts). */
export async function highestCampaignId(db: Db): Promise<number> {
  const row = await db
    .select({ id: max(campaigns.id) })
    .from(campaigns)
    .get();
  return row?.id ?? 0;
}

/** Domains a campaign can use for tracking: active, with a subdomain. */
export const listTrackingDomains = (db: Db) =>
  db
    .select({ id: domains.id, domain: domains.domain, subdomain: domains.subdomain, status: domains.status })
    .from(domains)
    .where(and(eq(domains.status, "active"), isNotNull(domains.subdomain), ne(domains.subdomain, "")))
    .orderBy(domains.domain);
