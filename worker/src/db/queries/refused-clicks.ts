/** Counts of the clicks and exits the per-IP rate limit refused (tracking/refusals.ts). */
import { sql } from "drizzle-orm";
import type { Db } from "../../env";
import { jsonChunks } from "../../lib/json-chunks";
import { localDaySql, offsetSpans } from "../../lib/calendar-days";
import { rawBatch } from "../raw-batch";

export interface RefusalCount {
  campaignId: number;
  periodStart: number;
  clicks: number;
  exits: number;
}

/**
 * Adds counts in one round trip (one JSON parameter per statement). A campaign deleted meanwhile
 * is skipped rather than failing the rest: its counts went with it.
 */
export async function addRefusals(db: Db, counts: RefusalCount[]) {
  const chunks = jsonChunks(counts.map((c) => [c.campaignId, c.periodStart, c.clicks, c.exits]));
  if (!chunks.length) return;
  await rawBatch(
    db,
    chunks.map(
      (chunk) => sql`
        insert into refused_clicks (campaign_id, period_start, clicks, exits)
        select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]')
        from json_each(${chunk})
        where json_extract(value, '$[0]') in (select id from campaigns)
        on conflict (campaign_id, period_start) do update set
          clicks = refused_clicks.clicks + excluded.clicks, exits = refused_clicks.exits + excluded.exits`,
    ),
  );
}

export async function deleteRefusedBefore(db: Db, ms: number) {
  await db.run(sql`delete from refused_clicks where period_start < ${ms}`);
}

export interface RefusedDay {
  date: string;
  campaignId: number;
  campaignName: string | null;
  clicks: number;
  exits: number;
}

/** Refusals per report day and campaign in [startMs, endMs), newest day first. */
export async function refusedByDay(db: Db, range: { startMs: number; endMs: number; timeZone: string }, campaignId?: number): Promise<RefusedDay[]> {
  const day = localDaySql(sql.raw("r.period_start"), offsetSpans(range.startMs, range.endMs, range.timeZone));
  return db.all<RefusedDay>(sql`
    select ${day} as date, r.campaign_id as campaignId, c.name as campaignName, sum(r.clicks) as clicks, sum(r.exits) as exits
    from refused_clicks r left join campaigns c on c.id = r.campaign_id
    where r.period_start >= ${range.startMs} and r.period_start < ${range.endMs}
      ${campaignId === undefined ? sql`` : sql`and r.campaign_id = ${campaignId}`}
    group by 1, 2 order by 1 desc, 2`);
}
