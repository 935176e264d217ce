import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import { isoOrNull } from "../../lib/time";
import type { KeptCampaign } from "./campaigns";

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

/** A campaign's clicks in one store: how many, the first's and the last's time. */
export interface CampaignClickSpan {
  campaignId: number;
  clicks: number;
  first: number | null;
  last: number | null;
}

/**
 * The campaigns' clicks in the stores other than D1 (the shard-day and legacy objects:
 * tracking/click-log.ts `objectClickSpans`), given the campaigns and when each was made.
 */
export type OtherClickSpans = (campaigns: KeptCampaign[]) => Promise<CampaignClickSpan[]>;

/**
 * The statement a shard-day object runs for `objectClickSpans`: its clicks of each campaign made
 * since the campaign was (db/queries/campaigns.ts `KeptCampaign`), ids up to `upTo` if given (a
 * legacy object: tracking/click-id.ts `ClickPlace.upTo`). One walk of the (campaign_id,
 * clicked_at) index per campaign.
 */
export function campaignSpansQuery(campaigns: KeptCampaign[], upTo?: number): SQL {
  return sql`
    select k.campaign_id as campaignId, count(*) as clicks, min(k.clicked_at) as first, max(k.clicked_at) as last
    from json_each(${JSON.stringify(campaigns)}) c
      join clicks k on k.campaign_id = json_extract(c.value, '$[0]') and k.clicked_at >= json_extract(c.value, '$[1]')
    ${upTo === undefined ? sql`` : sql`where k.id <= ${upTo}`}
    group by k.campaign_id`;
}

/**
 * What deleting the campaigns `where` selects (a condition on campaigns `c`) also deletes through
 * the model's cascade: their clicks, with their exits and the rollup's rows. D1's are counted on
 * the (campaign_id, clicked_at) index, so it reads no click row; with `others`, the clicks the
 * shard-day objects keep are added (they are never read again once the campaign is deleted).
 */
async function impactOf(db: Db, where: SQL, others?: OtherClickSpans): Promise<DeletionImpact> {
  const found = await db.all<{ id: number; name: string; createdAt: number; clicks: number; first: number | null; last: number | null }>(sql`
    select c.id, c.name, c.created_at as createdAt, count(k.campaign_id) as clicks, min(k.clicked_at) as first, max(k.clicked_at) as last
    from campaigns c left join clicks k on k.campaign_id = c.id
    where ${where}
    group by c.id
    order by c.name collate nocase, c.id`);
  const spans = others && found.length ? await others(found.map((r): KeptCampaign => [r.id, r.createdAt])) : [];
  const rows = found.map((r) => {
    const more = spans.filter((s) => s.campaignId === r.id);
    const times = (pick: "first" | "last") => [r[pick], ...more.map((s) => s[pick])].filter((t): t is number => t !== null);
    const firsts = times("first");
    const lasts = times("last");
    return {
      ...r,
      clicks: r.clicks + more.reduce((n, s) => n + s.clicks, 0),
      first: firsts.length ? Math.min(...firsts) : null,
      last: lasts.length ? Math.max(...lasts) : null,
    };
  });
  const times = rows.flatMap((r) => (r.first === null || r.last === null ? [] : [r.first, r.last]));
  return {
    campaigns: rows.map(({ id, name, clicks }) => ({ id, name, clicks })),
    clicks: rows.reduce((sum, r) => sum + r.clicks, 0),
    firstClickAt: isoOrNull(times.length ? Math.min(...times) : null),
    lastClickAt: isoOrNull(times.length ? Math.max(...times) : null),
  };
}

/** Deleting a lander deletes the campaigns that use it, and theirs. */
export const landerDeletionImpact = (db: Db, landerId: number, others?: OtherClickSpans) => impactOf(db, sql`c.lander_id = ${landerId}`, others);

/**
 * Deleting an offer deletes no campaign: the campaigns using it keep running without an exit
 * destination (their offer is set null). Same answer, so the confirmation names them the same way.
 */
export const offerDeletionImpact = (db: Db, offerId: number, others?: OtherClickSpans) => impactOf(db, sql`c.offer_id = ${offerId}`, others);

export const campaignDeletionImpact = (db: Db, campaignId: number, others?: OtherClickSpans) => impactOf(db, sql`c.id = ${campaignId}`, others);
