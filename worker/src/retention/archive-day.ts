/**
 * One day of raw clicks written to R2 as `clicks/YYYY-MM-DD.csv.gz` and read back before anything
 * may be deleted. The file is the Click Log's CSV export of that day (tracking/click-csv.ts), so it
 * opens in the same spreadsheet as an export and gains every column the export gains.
 *
 * Nothing holds the day whole: rows are read from D1 a page at a time, gzipped as they stream
 * (CompressionStream), and sent to R2 in fixed-size parts of a multipart upload; the check reads
 * the object back through DecompressionStream and counts its records as they pass.
 */
import { clicksOfSpan, type ArchiveSpan, type NewArchive } from "../db/queries/click-archives";
import type { Db } from "../env";
import { clickCsv } from "../tracking/click-csv";

/**
 * R2 wants every part of a multipart upload but the last to be at least 5 MiB and of one size.
 * A day that compresses to less goes up in one put.
 */
export const ARCHIVE_PART_BYTES = 8 * 1024 * 1024;
/** Rows per D1 read while archiving: fewer round trips than the export's pages, still ~2 MB. */
export const ARCHIVE_PAGE_ROWS = 5000;

export class ArchiveError extends Error {}

/**
 * Writes a stream of unknown length to R2 in fixed-size parts (or one put when it is small) and
 * returns the object's size. On failure the upload is aborted and the error thrown.
 */
export async function putStream(
  bucket: R2Bucket,
  key: string,
  stream: ReadableStream<Uint8Array>,
  options: R2PutOptions = {},
  partBytes = ARCHIVE_PART_BYTES,
): Promise<number> {
  const reader = stream.getReader();
  let buffer = new Uint8Array(partBytes);
  let filled = 0;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let offset = 0; offset < value.length;) {
        const n = Math.min(partBytes - filled, value.length - offset);
        buffer.set(value.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === partBytes) {
          upload ??= await bucket.createMultipartUpload(key, options);
          parts.push(await upload.uploadPart(parts.length + 1, buffer));
          // A fresh buffer: the runtime may still be reading the one it was handed.
          buffer = new Uint8Array(partBytes);
          filled = 0;
        }
      }
    }
    if (!upload) return (await bucket.put(key, buffer.subarray(0, filled), options)).size;
    if (filled > 0) parts.push(await upload.uploadPart(parts.length + 1, buffer.subarray(0, filled)));
    return (await upload.complete(parts)).size;
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    await upload?.abort().catch(() => undefined);
    throw err;
  }
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * The records of a CSV stream: line ends outside quoted cells (a cell with a line break in it is
 * quoted, and `"` and `\n` never occur inside a UTF-8 sequence, so bytes can be scanned as they
 * come). A file that does not end with a line end is refused: it was cut off.
 */
export async function countCsvRecords(stream: ReadableStream<Uint8Array>): Promise<number> {
  let records = 0;
  let quoted = false;
  let last = -1;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const byte of value) {
      if (byte === QUOTE) quoted = !quoted;
      else if (byte === NEWLINE && !quoted) records++;
    }
    if (value.length) last = value[value.length - 1]!;
  }
  if (records > 0 && (last !== NEWLINE || quoted)) throw new ArchiveError("the archive ends in the middle of a row");
  return records;
}

/**
 * Archives one day: streams its clicks into R2, checks that D1 still holds exactly the clicks
 * written, reads the object back and counts its rows. Throws (ArchiveError, or R2's or D1's own
 * error) when anything does not match; the caller then records nothing and deletes nothing.
 */
export async function archiveDay(db: Db, bucket: R2Bucket, span: ArchiveSpan, now: number): Promise<NewArchive> {
  const { objectKey } = span;
  const csv = await clickCsv(db, { startMs: span.startMs, endMs: span.endMs }, ARCHIVE_PAGE_ROWS);
  const bytes = await putStream(bucket, objectKey, csv.body.pipeThrough(new CompressionStream("gzip")), {
    httpMetadata: { contentType: "application/gzip", contentDisposition: `attachment; filename="clicks-${span.day}.csv.gz"` },
    customMetadata: { day: span.day, timeZone: span.timeZone, startMs: String(span.startMs), endMs: String(span.endMs), rows: String(csv.written()) },
  });
  const rows = csv.written();
  // Taken after the file: a click deleted or added meanwhile (a campaign deleted) shows as a
  // difference, and the day is tried again next run.
  const held = await clicksOfSpan(db, span.startMs, span.endMs);
  if (held.rows !== rows || held.maxId === null) {
    throw new ArchiveError(`${span.day}: ${rows} clicks written, but D1 now holds ${held.rows}; tried again next run`);
  }
  const object = await bucket.get(objectKey);
  if (!object) throw new ArchiveError(`${span.day}: ${objectKey} is not in the bucket after writing it`);
  const readBack = (await countCsvRecords(object.body.pipeThrough(new DecompressionStream("gzip")))) - 1;
  if (readBack !== rows || object.size !== bytes) {
    throw new ArchiveError(`${span.day}: ${rows} clicks written (${bytes} bytes), ${readBack} read back (${object.size} bytes)`);
  }
  return { ...span, rows, exits: held.exits, bytes, maxClickId: held.maxId, archivedAt: now };
}
