import type { DayRange } from "../db/queries/cake";
import { upsertTikTokDays } from "../db/queries/tiktok";
import type { Db } from "../env";
import { ExternalApiError, type HttpOptions } from "../integrations/http";
import { createTikTokClient, type TikTokCampaignDay, type TikTokConfig } from "../integrations/tiktok";

/** Token problems are the same for every advertiser: asking for the next one only repeats them. */
const TOKEN_ERRORS = new Set(["40102", "40104", "40105"]);

export interface TikTokSyncInput {
  db: Db;
  config: { client: TikTokConfig; advertiserIds: string[] };
  http: HttpOptions;
  now: number;
  days: DayRange;
}

/**
 * Pulls every configured advertiser's campaign days and upserts them. One advertiser failing
 * (say, no permission) does not stop the others: their rows are saved and the run reports the
 * failure. Throws ExternalApiError only when nothing could be read.
 */
export async function syncTikTok({ db, config, http, now, days }: TikTokSyncInput) {
  const client = createTikTokClient(config.client, http);
  const rows = new Map<string, TikTokCampaignDay>();
  const failures: string[] = [];
  let fetched = 0;
  for (const advertiserId of config.advertiserIds) {
    try {
      const list = await client.campaignDays(advertiserId, days.start, days.end);
      fetched += list.length;
      for (const row of list) rows.set(`${row.date} ${row.campaignId}`, row);
    } catch (err) {
      if (!(err instanceof ExternalApiError) || TOKEN_ERRORS.has(err.code ?? "")) throw err;
      if (config.advertiserIds.length === 1) throw err;
      failures.push(`advertiser ${advertiserId}: ${err.message}`);
    }
  }
  if (failures.length === config.advertiserIds.length) {
    throw new ExternalApiError("TikTok", `Every advertiser failed — ${failures.join("; ")}`);
  }
  const rowsUpserted = await upsertTikTokDays(db, [...rows.values()], now);
  return { rowsFetched: fetched, rowsUpserted, error: failures.length ? `Some advertisers failed — ${failures.join("; ")}` : null };
}
