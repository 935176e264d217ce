import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { isoOrNull } from "../../lib/time";

/** One campaign a deletion takes with it, and its recorded clicks. */
export interface DoomedCampaign {
  id: number;
  name: string;
  clicks: number;
}

export interface DeletionImpact {
  campaigns: DoomedCampaign[];
  /** Clicks of those campaigns; their exits and their days in the click rollup go with them. */
  clicks: number;
  /** The first and last of those clicks (ISO), or null without clicks: the stats history lost. */
  firstClickAt: string | null;
  lastClickAt: string | null;
}

/**
 * What deleting the campaigns `where` selects (a condition on campaigns `c`) also deletes through
 * the model's cascade: their clicks, with their exits and the rollup's rows. Counted on the
 * (campaign_id, clicked_at) index, so it reads no click row.
 */
async function impactOf(db: Db, where: SQL): Promise<DeletionImpact> {
  const rows = await db.all<{ id: number; name: string; clicks: number; first: number | null; last: number | null }>(sql`
    select c.id, c.name, count(k.campaign_id) as clicks, min(k.clicked_at) as first, max(k.clicked_at) as last
    from campaigns c left join clicks k on k.campaign_id = c.id
    where ${where}
    group by c.id
    order by c.name collate nocase, c.id`);
  const times = rows.flatMap((r) => (r.first === null || r.last === null ? [] : [r.first, r.last]));
  return {
    campaigns: rows.map(({ id, name, clicks }) => ({ id, name, clicks })),
    clicks: rows.reduce((sum, r) => sum + r.clicks, 0),
    firstClickAt: isoOrNull(times.length ? Math.min(...times) : null),
    lastClickAt: isoOrNull(times.length ? Math.max(...times) : null),
  };
}

/** Deleting a lander deletes the campaigns that use it, and theirs. */
export const landerDeletionImpact = (db: Db, landerId: number) => impactOf(db, sql`c.lander_id = ${landerId}`);

/**
 * Deleting an offer deletes no campaign: the campaigns using it keep running without an exit
 * destination (their offer is set null). Same answer, so the confirmation names them the same way.
 */
export const offerDeletionImpact = (db: Db, offerId: number) => impactOf(db, sql`c.offer_id = ${offerId}`);

export const campaignDeletionImpact = (db: Db, campaignId: number) => impactOf(db, sql`c.id = ${campaignId}`);
