/**
 * The conversions that leave D1 for R2 (retention/conversions.ts): reading a CAKE day's ledger
 * rows a chunk at a time with their TikTok sends, and recording a chunk written to R2 in the same
 * batch that deletes its rows (db/schema.ts `conversionArchives`).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { CakeRowKey } from "../../integrations/cake";
import { jsonChunks } from "../../lib/json-chunks";
import { rawBatch } from "../raw-batch";

/** A ledger row with one of its TikTok sends (or none: the send columns are null). */
export interface LedgerSendRow extends CakeRowKey {
  id: number;
  conversionId: string;
  source: string;
  revenueCents: number;
  disposition: string;
  counted: number;
  postbackAt: number | null;
  pulledAt: number | null;
  retiredAt: number | null;
  retiredReason: string | null;
  webhookAt: number | null;
  sendId: number | null;
  event: string | null;
  status: string | null;
  skipReason: string | null;
  failureKind: string | null;
  attempts: number | null;
  code: number | null;
  message: string | null;
  eventAt: number | null;
  sentAt: number | null;
  clickId: string | null;
  ttclid: string | null;
  valueCents: number | null;
  currency: string | null;
}

export interface LedgerChunk {
  /** This chunk's number within its day: the day's recorded chunks plus one. */
  chunk: number;
  rows: LedgerSendRow[];
}

/**
 * The oldest CAKE day up to `lastDay` that still has ledger rows in D1 (one step down the date
 * index), or null.
 */
export async function oldestLedgerDay(db: Db, lastDay: string): Promise<string | null> {
  const [row] = await db.all<{ date: string | null }>(
    sql`select min(date) as date from cake_conversions indexed by cake_conversions_date_idx where date <= ${lastDay}`,
  );
  return row?.date ?? null;
}

/**
 * Up to `limit` of the day's ledger rows, each with its TikTok sends (a row per send), and the
 * chunk's number, read in one batch: D1 runs it as one transaction, so the number and the rows
 * are of the same moment (a chunk recorded meanwhile is in both or in neither). The rows are taken
 * in the date index's order, so a run that reads the day again before anything changed takes the
 * same rows under the same number.
 */
export async function readLedgerChunk(db: Db, date: string, limit: number): Promise<LedgerChunk> {
  const [count, rows] = await rawBatch(db, [
    sql`select count(*) as n from conversion_archives where date = ${date}`,
    sql`
      select c.id, c.conversion_id as conversionId, c.source, c.date, c.offer_id as offerId, c.offer_name as offerName,
        c.subid1, c.subid2, c.subid3, c.revenue_cents as revenueCents, c.disposition, c.counted, c.postback_at as postbackAt,
        c.pulled_at as pulledAt, c.retired_at as retiredAt, c.retired_reason as retiredReason, c.webhook_at as webhookAt,
        s.id as sendId, s.event, s.status, s.skip_reason as skipReason, s.failure_kind as failureKind, s.attempts, s.code,
        s.message, s.event_at as eventAt, s.sent_at as sentAt, s.click_id as clickId, s.ttclid, s.value_cents as valueCents,
        s.currency
      from (select * from cake_conversions indexed by cake_conversions_date_idx where date = ${date} limit ${limit}) c
      left join tiktok_event_sends s on s.conversion_id = c.conversion_id
      order by c.id, s.event`,
  ]);
  const n = (count?.results[0] as { n?: number } | undefined)?.n ?? 0;
  return { chunk: n + 1, rows: (rows?.results ?? []) as LedgerSendRow[] };
}

export interface ChunkRecord {
  date: string;
  chunk: number;
  objectKey: string;
  bytes: number;
  archivedAt: number;
  /** The ledger rows and sends written to the object: exactly these are deleted. */
  conversionIds: number[];
  sendIds: number[];
  lastPostbackAt: number | null;
}

/**
 * Records the chunk and deletes its rows from D1 in one batch: all of it or none. A chunk another
 * run recorded first fails the insert (the day and number are unique) and the batch with it, so
 * nothing is deleted twice or under another object.
 */
export async function recordLedgerChunk(db: Db, r: ChunkRecord): Promise<void> {
  const ids = (list: number[]) => jsonChunks(list.map((id) => [id]));
  await rawBatch(db, [
    sql`insert into conversion_archives (date, chunk, object_key, conversions, sends, bytes, last_postback_at, archived_at)
        values (${r.date}, ${r.chunk}, ${r.objectKey}, ${r.conversionIds.length}, ${r.sendIds.length}, ${r.bytes},
          ${r.lastPostbackAt}, ${r.archivedAt})`,
    ...ids(r.sendIds).map((chunk) => sql`delete from tiktok_event_sends where id in (select json_extract(value, '$[0]') from json_each(${chunk}))`),
    ...ids(r.conversionIds).map((chunk) => sql`delete from cake_conversions where id in (select json_extract(value, '$[0]') from json_each(${chunk}))`),
  ]);
}

/**
 * The latest CAKE day whose conversions have begun leaving D1 (some of its chunks recorded), or
 * null: a postback for a click of that day or before may repeat a conversion D1 no longer holds.
 */
export async function conversionsArchivedThrough(db: Db): Promise<string | null> {
  const [row] = await db.all<{ date: string | null }>(sql`select max(date) as date from conversion_archives indexed by conversion_archives_date_chunk_unique`);
  return row?.date ?? null;
}

/** The latest postback among the conversions that left D1. */
export const archivedLastPostback = sql`(select max(last_postback_at) from conversion_archives)`;
