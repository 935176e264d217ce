/**
 * The conversions leave D1 (docs/data.md "Retention and archives"): a CAKE day's conversion ledger
 * rows (cake_conversions) and their TikTok sends (tiktok_event_sends) go to R2 once nothing reads
 * them any more, a chunk at a time, as `conversions/<date>/<chunk>.csv.gz`. Kept for ever they
 * would fill D1 at a few hundred thousand conversions a day, as measured in
 * docs/click-storage.md "At a million clicks a day, with the CAKE pull".
 *
 * A day leaves once both hold:
 * - its raw clicks are archived (the retention's frontier): the CAKE pull never asks for an
 *   archived day again (sync/cake-sync.ts), and the split tests read a conversion only with its
 *   click (db/queries/split-tests.ts);
 * - it is `CONVERSIONS_KEPT_DAYS` old: TikTok's 28 days for its sends, with a week to spare for a
 *   send still failing or decided again by the cron's sweep. A day with a send still queued or
 *   being sent waits.
 *
 * Each chunk is written to R2 (R2 checks the bytes against their MD5), then recorded in the same
 * D1 batch that deletes its rows: a run cut off in between leaves the rows in D1 and the object is
 * written over by the next run, which reads the same rows under the same number. What leaves is
 * still in the reports: cake_attributed_daily and cake_audience_daily keep each day's figures.
 */
import { gzipSync } from "node:zlib";
import { oldestLedgerDay, readLedgerChunk, recordLedgerChunk, type LedgerSendRow } from "../db/queries/conversion-archives";
import type { Db } from "../env";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { CSV_BOM, csvRow } from "../lib/csv";
import { formatCents, formatCentsOrNull } from "../lib/money";
import { isoOrNull } from "../lib/time";

/** Days a conversion stays in D1 at least (see above). */
export const CONVERSIONS_KEPT_DAYS = 35;

export interface ConversionArchiveSizes {
  /** Ledger rows per object: about 6 MB of CSV, 1 MB gzipped. */
  chunkRows: number;
  /** Objects per cron run: 200,000 conversions every 15 minutes, far above any day's. */
  chunksPerRun: number;
}

export const CONVERSION_ARCHIVE_SIZES: ConversionArchiveSizes = { chunkRows: 20_000, chunksPerRun: 10 };

export const conversionArchiveKey = (date: string, chunk: number) => `conversions/${date}/${String(chunk).padStart(4, "0")}.csv.gz`;

export interface ConversionsRun {
  /** The last CAKE day that may leave now (null: no day of clicks is archived yet). */
  through: string | null;
  archived: { date: string; chunk: number; conversions: number; sends: number; bytes: number }[];
  /** Why conversions that may leave are still in D1. */
  waiting: string | null;
}

/** The file's columns: the ledger's, then TikTok's send of the conversion (a line per send). */
const COLUMNS: { header: string; cell: (r: LedgerSendRow) => string | number | null }[] = [
  { header: "Conversion ID", cell: (r) => r.conversionId },
  { header: "Source", cell: (r) => r.source },
  { header: "Date", cell: (r) => r.date },
  { header: "Offer ID", cell: (r) => r.offerId },
  { header: "Offer", cell: (r) => r.offerName },
  { header: "Sub 1", cell: (r) => r.subid1 },
  { header: "Sub 2", cell: (r) => r.subid2 },
  { header: "Sub 3", cell: (r) => r.subid3 },
  { header: "Revenue", cell: (r) => formatCents(r.revenueCents) },
  { header: "Disposition", cell: (r) => r.disposition },
  { header: "Counted", cell: (r) => (r.counted ? "Yes" : "No") },
  { header: "Postback At", cell: (r) => isoOrNull(r.postbackAt) },
  { header: "Pulled At", cell: (r) => isoOrNull(r.pulledAt) },
  { header: "Retired At", cell: (r) => isoOrNull(r.retiredAt) },
  { header: "Retired Because", cell: (r) => r.retiredReason },
  { header: "Webhook Sent At", cell: (r) => isoOrNull(r.webhookAt) },
  { header: "TikTok Event", cell: (r) => r.event },
  { header: "TikTok Status", cell: (r) => r.status },
  { header: "TikTok Skip Reason", cell: (r) => r.skipReason },
  { header: "TikTok Failure", cell: (r) => r.failureKind },
  { header: "TikTok Attempts", cell: (r) => r.attempts },
  { header: "TikTok Code", cell: (r) => r.code },
  { header: "TikTok Message", cell: (r) => r.message },
  { header: "TikTok Event Time", cell: (r) => isoOrNull(r.eventAt) },
  { header: "TikTok Sent At", cell: (r) => isoOrNull(r.sentAt) },
  { header: "TikTok Click ID", cell: (r) => r.clickId },
  { header: "TTCLID", cell: (r) => r.ttclid },
  { header: "TikTok Value", cell: (r) => formatCentsOrNull(r.valueCents) },
  { header: "TikTok Currency", cell: (r) => r.currency },
];
export const CONVERSION_CSV_HEADERS = COLUMNS.map((c) => c.header);

const encoder = new TextEncoder();

/** The chunk's file: the CSV (with a byte-order mark, as the click archive's) gzipped. */
const chunkFile = (rows: LedgerSendRow[]) =>
  gzipSync(encoder.encode(CSV_BOM + csvRow(CONVERSION_CSV_HEADERS) + rows.map((r) => csvRow(COLUMNS.map((c) => c.cell(r)))).join("")));

const isUniqueFailure = (err: unknown) => err instanceof Error && /UNIQUE constraint failed/.test(err.message);

/**
 * One cron run's share: up to `chunksPerRun` chunks of the oldest days that may leave, each
 * written, checked and recorded before the next is read.
 */
export async function archiveConversions(
  db: Db,
  bucket: R2Bucket,
  options: { now: number; clicksArchivedThrough: string | null; timeZone: string; sizes?: Partial<ConversionArchiveSizes> },
): Promise<ConversionsRun> {
  const { chunkRows, chunksPerRun } = { ...CONVERSION_ARCHIVE_SIZES, ...options.sizes };
  const run: ConversionsRun = { through: null, archived: [], waiting: null };
  if (options.clicksArchivedThrough === null) return run;
  const oldEnough = shiftDay(dayIn(options.now, options.timeZone), -CONVERSIONS_KEPT_DAYS);
  const through = options.clicksArchivedThrough < oldEnough ? options.clicksArchivedThrough : oldEnough;
  run.through = through;
  let date: string | null = null;
  try {
    for (let i = 0; i < chunksPerRun; i++) {
      date = await oldestLedgerDay(db, through);
      if (date === null) break;
      const archived = await archiveChunk(db, bucket, date, chunkRows, options.now);
      if ("waiting" in archived) return { ...run, waiting: archived.waiting };
      run.archived.push(archived);
    }
  } catch (err) {
    // R2 or D1 failing: nothing of the chunk is deleted, and the next cron run tries it again.
    // The clicks' retention goes on regardless.
    const message = err instanceof Error ? err.message : String(err);
    console.error(`conversion archive: ${date ?? through}:`, err);
    return { ...run, waiting: `${date ?? through}: failed: ${message}` };
  }
  return run;
}

/** One chunk of the day: read, written to R2 and checked, then recorded with its rows deleted. */
async function archiveChunk(
  db: Db,
  bucket: R2Bucket,
  date: string,
  chunkRows: number,
  now: number,
): Promise<ConversionsRun["archived"][number] | { waiting: string }> {
  const { chunk, rows } = await readLedgerChunk(db, date, chunkRows);
  const busy = rows.find((r) => r.status === "queued" || r.status === "sending");
  if (busy) return { waiting: `${date}: conversion ${busy.conversionId} is still being sent to TikTok` };
  const objectKey = conversionArchiveKey(date, chunk);
  const file = chunkFile(rows);
  const md5 = await crypto.subtle.digest("MD5", file);
  await bucket.put(objectKey, file, {
    md5,
    httpMetadata: { contentType: "application/gzip", contentDisposition: `attachment; filename="conversions-${date}-${chunk}.csv.gz"` },
    customMetadata: { date, chunk: String(chunk) },
  });
  const conversionIds = [...new Set(rows.map((r) => r.id))];
  const sendIds = rows.flatMap((r) => (r.sendId === null ? [] : [r.sendId]));
  const lastPostbackAt = rows.reduce<number | null>((at, r) => (r.postbackAt !== null && (at === null || r.postbackAt > at) ? r.postbackAt : at), null);
  try {
    await recordLedgerChunk(db, {
      date,
      chunk,
      objectKey,
      bytes: file.length,
      archivedAt: now,
      conversionIds,
      sendIds,
      lastPostbackAt,
    });
  } catch (err) {
    if (!isUniqueFailure(err)) throw err;
    // Another cron run recorded this chunk first, with the same rows: it goes on from there.
    return { waiting: `${date}: chunk ${chunk} was recorded by another run` };
  }
  return { date, chunk, conversions: conversionIds.length, sends: sendIds.length, bytes: file.length };
}
