import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import type { TikTokCampaignDay } from "../../integrations/tiktok";
import { jsonAt, jsonChunks } from "../../lib/json-chunks";
import { changed, rawBatch } from "../raw-batch";
import type { DayRange } from "./cake";

/**
 * Upserts report rows into tiktok_spend per (date, campaign), atomically. A row whose figures did
 * not change is left alone (its syncedAt says when it last changed), so a re-run writes nothing.
 * Returns how many rows were inserted or changed.
 */
export async function upsertTikTokDays(db: Db, rows: TikTokCampaignDay[], now: number): Promise<number> {
  const chunks = jsonChunks(rows.map((r) => [r.date, r.campaignId, r.campaignName, r.spendCents, r.impressions, r.clicks, r.conversions]));
  if (!chunks.length) return 0;
  // An empty name in the report ("-") never erases a name we already know.
  const name = sql.raw("case when excluded.campaign_name <> '' then excluded.campaign_name else tiktok_spend.campaign_name end");
  const results = await rawBatch(
    db,
    chunks.map(
      (chunk) => sql`
      insert into tiktok_spend (date, tiktok_campaign_id, campaign_name, spend_cents, impressions, clicks, conversions, synced_at)
      select ${jsonAt(0)}, ${jsonAt(1)}, ${jsonAt(2)}, ${jsonAt(3)}, ${jsonAt(4)}, ${jsonAt(5)}, ${jsonAt(6)}, ${now} from json_each(${chunk}) where true
      on conflict (date, tiktok_campaign_id) do update set
        campaign_name = ${name}, spend_cents = excluded.spend_cents, impressions = excluded.impressions,
        clicks = excluded.clicks, conversions = excluded.conversions, synced_at = excluded.synced_at
      where tiktok_spend.campaign_name <> ${name} or tiktok_spend.spend_cents <> excluded.spend_cents
        or tiktok_spend.impressions <> excluded.impressions or tiktok_spend.clicks <> excluded.clicks
        or tiktok_spend.conversions <> excluded.conversions`,
    ),
  );
  return results.reduce((sum, res) => sum + changed(res), 0);
}

export interface SpendRow {
  date: string;
  tiktokCampaignId: string;
  campaignName: string;
  spendCents: number;
  impressions: number;
  clicks: number;
  conversions: number;
  syncedAt: number;
}

/**
 * Spend rows of the days (inclusive). `buyerScope` (a condition on subid1) limits them to the ad
 * campaigns whose clicks reached CAKE under those media buyers in the same days: spend has no
 * media buyer of its own, so a member sees the campaigns that carried their traffic.
 */
export async function listSpend(db: Db, days: DayRange, buyerScope?: SQL): Promise<SpendRow[]> {
  const scoped = buyerScope
    ? sql`and tiktok_campaign_id in (
        select tiktok_campaign_id from cake_attributed_daily
        where date between ${days.start} and ${days.end} and tiktok_campaign_id <> '' and ${buyerScope})`
    : sql``;
  return db.all<SpendRow>(sql`
    select date, tiktok_campaign_id as tiktokCampaignId, campaign_name as campaignName, spend_cents as spendCents,
      impressions, clicks, conversions, synced_at as syncedAt
    from tiktok_spend
    where date between ${days.start} and ${days.end} ${scoped}
    order by date, tiktok_campaign_id`);
}
