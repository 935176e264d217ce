/**
 * One day of raw clicks written to R2 as `clicks/YYYY-MM-DD.csv.gz`, a step at a time (the archive
 * Workflow, retention/workflow.ts, runs each function here as one step), and read back before
 * anything may be deleted. The file is the Click Log's CSV export of that day
 * (tracking/click-csv.ts), so it opens in the same spreadsheet as an export and gains every column
 * the export gains.
 *
 * A step cannot hand a gzip stream to the next, so the file is one gzip member made of pieces that
 * need no state between them (as pigz does): each page of rows is deflated on its own and ended
 * with a sync flush (byte-aligned, not final), and the pieces simply follow one another. The file
 * is the gzip header, every piece, an empty final block and the trailer (the CRC-32 and length of
 * the whole CSV, carried from step to step): any gzip reader reads it as one stream.
 *
 * The bytes go to R2 in one multipart upload whose parts all have one size (R2 wants that, and
 * 5 MiB at least but for the last). A step's rows rarely end on a part's edge: what is left over
 * waits in a small object of the run (`archive-work/<run>/carry-<n>`) for the next step.
 */
import { constants, crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { clicksOfSpan, closeRunUpload, recordRunUpload, runWorkPrefix, type ArchiveSpan } from "../db/queries/click-archives";
import { campaignNames, clickRowsAfter, type ClickLogRow } from "../db/queries/clicks";
import type { Db } from "../env";
import { CSV_BOM, csvRow } from "../lib/csv";
import { CLICK_CSV_HEADERS, clickCsvLine } from "../tracking/click-csv";
import { shardName, type ClickPlace } from "../tracking/click-id";
import { ARCHIVE_SIZES, type ArchiveRunParams, type ArchiveSizes } from "./config";
import { shardPlacesOf } from "../tracking/click-log";
import { placeFilter } from "../tracking/click-shards";
import { shardClicksOfSpan, type ClickShards } from "./shard-days";

/** Something about the file or the day does not match: the run fails for good (no retry helps). */
export class ArchiveError extends Error {}

export interface ArchivePart {
  partNumber: number;
  etag: string;
  /** MD5 of the part's bytes (hex): the completed object's ETag is built from these. */
  md5: string;
  size: number;
}

/**
 * A click in the Click Log's order (newest first) within the store being read: the next chunk
 * starts after it. D1's rows are walked by time and rowid, a shard-day object's by time and click
 * id (its rowids are its own).
 */
export interface RowCursor {
  clickedAt: number;
  id: number;
  clickId?: string;
}

/** What the export steps carry from one to the next. */
export interface ExportState {
  /** The next chunk's number (1 is the first). */
  chunk: number;
  /** Bytes of the file written so far. */
  bytes: number;
  /** CRC-32 and length of the CSV written so far: the gzip trailer's. */
  crc: number;
  length: number;
  rows: number;
  /**
   * The store being read: 0 is D1, then each shard-day object of the span in day and shard order
   * (tracking/click-log.ts `shardPlacesOf`), each read whole, newest first, before the next.
   * Absent in the state of a run begun before the objects were archived: D1.
   */
  store?: number;
  last: RowCursor | null;
}

export const EXPORT_START: ExportState = { chunk: 1, bytes: 0, crc: 0, length: 0, rows: 0, store: 0, last: null };

/** One export step's rows, where their bytes lie in the file, and what checks them on reading back. */
export interface ExportedChunk {
  chunk: number;
  rows: number;
  /** Its deflated pieces: `size` bytes from `offset` in the file. */
  offset: number;
  size: number;
  /** CRC-32 and length of its CSV. */
  crc: number;
  length: number;
  store: number;
  last: RowCursor | null;
  /** The parts this step filled (and the last part, when it wrote the file's end). */
  parts: ArchivePart[];
  /** The day's last chunk: the file's end is written. */
  end: boolean;
  /** The file's CRC-32 and length after this chunk, and its size with everything this step wrote. */
  fileCrc: number;
  fileLength: number;
  fileBytes: number;
  ms: number;
}

export const afterChunk = (state: ExportState, c: ExportedChunk): ExportState => ({
  chunk: state.chunk + 1,
  bytes: c.fileBytes,
  crc: c.fileCrc,
  length: c.fileLength,
  rows: state.rows + c.rows,
  store: c.store,
  last: c.last,
});

/** The gzip member's header: deflate, no name or comment, no time, unknown OS. */
const GZIP_HEADER = Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff);
/** An empty final block (fixed Huffman codes, end of block at once): ends the deflate stream. */
const FINAL_BLOCK = Uint8Array.of(0x03, 0x00);
const TAIL_BYTES = FINAL_BLOCK.length + 8;

/** The end of the file: the final block, then the CSV's CRC-32 and length (mod 2^32), little-endian. */
function gzipTail(crc: number, length: number) {
  const tail = new Uint8Array(TAIL_BYTES);
  tail.set(FINAL_BLOCK);
  const view = new DataView(tail.buffer);
  view.setUint32(FINAL_BLOCK.length, crc >>> 0, true);
  view.setUint32(FINAL_BLOCK.length + 4, length % 2 ** 32, true);
  return tail;
}

const encoder = new TextEncoder();
const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export const carryKey = (runId: number, chunk: number) => `${runWorkPrefix(runId)}carry-${chunk}`;

const archiveMetadata = (p: ArchiveRunParams): R2MultipartOptions => ({
  httpMetadata: { contentType: "application/gzip", contentDisposition: `attachment; filename="clicks-${p.day}.csv.gz"` },
  customMetadata: { day: p.day, timeZone: p.timeZone, startMs: String(p.startMs), endMs: String(p.endMs), run: String(p.runId) },
});

/**
 * Opens the run's multipart upload and records its id before anything is written to it, so the
 * cron can abort it if the run fails for good. A retried step finds the id already recorded and
 * keeps that upload (the one it opened again is aborted at once).
 */
export async function openUpload(db: Db, bucket: R2Bucket, p: ArchiveRunParams): Promise<{ uploadId: string }> {
  const upload = await bucket.createMultipartUpload(p.objectKey, archiveMetadata(p));
  let recorded: string | null;
  try {
    recorded = await recordRunUpload(db, p.runId, upload.uploadId);
  } catch (err) {
    await upload.abort().catch(() => undefined);
    throw err;
  }
  if (recorded !== upload.uploadId) await upload.abort().catch(() => undefined);
  if (!recorded) throw new ArchiveError(`${p.day}: run ${p.runId} is gone`);
  return { uploadId: recorded };
}

async function uploadPart(upload: R2MultipartUpload, partNumber: number, bytes: Uint8Array): Promise<ArchivePart> {
  const md5 = hex(await crypto.subtle.digest("MD5", bytes));
  const part = await upload.uploadPart(partNumber, bytes);
  return { partNumber: part.partNumber, etag: part.etag, md5, size: bytes.length };
}

/**
 * One export step: up to `chunkRows` clicks after `state.last`, read a page at a time, written as
 * CSV, deflated a page at a time, and added to the upload's parts (the bytes left over from the
 * previous step first). The day's last chunk (a short one) writes the file's end and uploads the
 * last part; any other keeps what does not fill a part for the next step. Run again after a
 * failure, it writes the same parts over (and the parts it no longer fills are never listed).
 */
export async function exportChunk(
  db: Db,
  bucket: R2Bucket,
  p: ArchiveRunParams & { uploadId: string },
  state: ExportState,
  sizes: ArchiveSizes = ARCHIVE_SIZES,
  shards?: ClickShards,
): Promise<ExportedChunk> {
  const started = Date.now();
  const { partBytes } = sizes;
  const upload = bucket.resumeMultipartUpload(p.objectKey, p.uploadId);
  const parts: ArchivePart[] = [];
  let buffer = new Uint8Array(partBytes);
  let filled = state.bytes % partBytes;
  let partNumber = Math.floor(state.bytes / partBytes) + 1;
  if (filled > 0) {
    const carried = await bucket.get(carryKey(p.runId, state.chunk - 1));
    if (!carried || carried.size !== filled) {
      throw new Error(`${p.day}: the ${filled} bytes kept after chunk ${state.chunk - 1} are not in the bucket`);
    }
    buffer.set(new Uint8Array(await carried.arrayBuffer()));
  }
  let bytes = state.bytes;
  const write = async (data: Uint8Array) => {
    for (let at = 0; at < data.length;) {
      const n = Math.min(partBytes - filled, data.length - at);
      buffer.set(data.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === partBytes) {
        parts.push(await uploadPart(upload, partNumber++, buffer));
        // A fresh buffer: the runtime may still hold the one it was handed.
        buffer = new Uint8Array(partBytes);
        filled = 0;
      }
    }
    bytes += data.length;
  };

  if (state.chunk === 1) await write(GZIP_HEADER);
  const offset = bytes;
  let crc = 0;
  let length = 0;
  let fileCrc = state.crc;
  let rows = 0;
  let read = 0;
  let header = state.chunk === 1;
  const places = shards ? await shardPlacesOf(db, p.startMs, p.endMs) : [];
  let store = state.store ?? 0;
  let last = state.last;
  let end = false;
  while (read < sizes.chunkRows) {
    const want = Math.min(sizes.pageRows, sizes.chunkRows - read);
    const place = store > 0 ? places[store - 1] : undefined;
    const page = place && shards ? await shardPage(db, shards, place, p, last, want) : await d1Page(db, p, last, want);
    const csv = encoder.encode((header ? CSV_BOM + csvRow(CLICK_CSV_HEADERS) : "") + page.rows.map(clickCsvLine).join(""));
    header = false;
    if (csv.length) {
      crc = crc32(csv, crc);
      fileCrc = crc32(csv, fileCrc);
      length += csv.length;
      await write(deflateRawSync(csv, { finishFlush: constants.Z_SYNC_FLUSH }));
    }
    rows += page.rows.length;
    read += page.read;
    if (page.last) last = page.last;
    if (page.read < want) {
      // This store is read to its end: the next one, from its newest click.
      store++;
      last = null;
      if (store > places.length) {
        end = true;
        break;
      }
    }
  }
  const size = bytes - offset;
  const fileLength = state.length + length;
  if (end) {
    await write(gzipTail(fileCrc, fileLength));
    if (filled > 0) parts.push(await uploadPart(upload, partNumber, buffer.subarray(0, filled)));
  } else if (filled > 0) {
    await bucket.put(carryKey(p.runId, state.chunk), buffer.subarray(0, filled));
  }
  return { chunk: state.chunk, rows, offset, size, crc, length, store, last, parts, end, fileCrc, fileLength, fileBytes: bytes, ms: Date.now() - started };
}

/** A page read from one store: the rows for the file, the rows read (deleted campaigns' too), and where the next page starts. */
interface StorePage {
  rows: ClickLogRow[];
  read: number;
  last: RowCursor | null;
}

async function d1Page(db: Db, span: ArchiveSpan, after: RowCursor | null, limit: number): Promise<StorePage> {
  const rows = await clickRowsAfter(db, { startMs: span.startMs, endMs: span.endMs }, after, limit);
  const tail = rows.at(-1);
  return { rows, read: rows.length, last: tail ? { clickedAt: tail.clickedAt, id: tail.id } : null };
}

/** A page of one shard-day object's clicks of the span, with their campaigns' names; a deleted campaign's are read past and left out. */
async function shardPage(db: Db, shards: ClickShards, place: ClickPlace, span: ArchiveSpan, after: RowCursor | null, limit: number): Promise<StorePage> {
  const cursor = after?.clickId === undefined ? null : { clickedAt: after.clickedAt, clickId: after.clickId };
  const read = await shards.getByName(shardName(place)).rowsAfter(placeFilter({ startMs: span.startMs, endMs: span.endMs }, place), cursor, limit);
  const names = await campaignNames(
    db,
    read.map((r) => r.campaignId),
  );
  const rows = read.flatMap((r) => (names.has(r.campaignId) ? [{ ...r, campaign: names.get(r.campaignId) ?? null }] : []));
  const tail = read.at(-1);
  return { rows, read: read.length, last: tail ? { clickedAt: tail.clickedAt, id: tail.id, clickId: tail.clickId } : null };
}

/** The ETag R2 gives a completed multipart object: the MD5 of the parts' MD5s, then the part count. */
export async function multipartEtag(parts: readonly ArchivePart[]) {
  const md5s = new Uint8Array(parts.length * 16);
  parts.forEach((part, i) =>
    md5s.set(
      Uint8Array.from(part.md5.match(/../g)!, (h) => parseInt(h, 16)),
      i * 16,
    ),
  );
  return `${hex(await crypto.subtle.digest("MD5", md5s))}-${parts.length}`;
}

/**
 * Completes the upload and checks the object: its size is every byte written, its ETag the one
 * its parts' MD5s make, and its first and last bytes the gzip header and the trailer written. A
 * step cut off after completing finds the object already there (named after this run).
 */
export async function completeUpload(
  db: Db,
  bucket: R2Bucket,
  p: ArchiveRunParams & { uploadId: string },
  parts: readonly ArchivePart[],
  file: { bytes: number; crc: number; length: number },
): Promise<{ bytes: number; etag: string; ms: number }> {
  const started = Date.now();
  let object: R2Object;
  try {
    object = await bucket.resumeMultipartUpload(p.objectKey, p.uploadId).complete(parts.map(({ partNumber, etag }) => ({ partNumber, etag })));
  } catch (err) {
    const head = await bucket.head(p.objectKey);
    if (head?.customMetadata?.run !== String(p.runId) || head.size !== file.bytes) throw err;
    object = head;
  }
  await closeRunUpload(db, p.runId, Date.now());
  if (object.size !== file.bytes) throw new ArchiveError(`${p.day}: ${file.bytes} bytes written, the object has ${object.size}`);
  // R2 names a multipart object by its parts' MD5s (docs/data.md "Retention and archives"); an ETag of
  // another form (none in R2 today) is left to the reading back below.
  const etag = await multipartEtag(parts);
  if (/-\d+$/.test(object.etag) && object.etag !== etag) throw new ArchiveError(`${p.day}: the object's ETag ${object.etag} is not its parts' ${etag}`);
  const [head, tail] = await Promise.all([
    bucket.get(p.objectKey, { range: { offset: 0, length: GZIP_HEADER.length } }),
    bucket.get(p.objectKey, { range: { suffix: TAIL_BYTES } }),
  ]);
  if (!head || !tail) throw new ArchiveError(`${p.day}: ${p.objectKey} is not in the bucket after completing it`);
  if (
    !sameBytes(new Uint8Array(await head.arrayBuffer()), GZIP_HEADER) ||
    !sameBytes(new Uint8Array(await tail.arrayBuffer()), gzipTail(file.crc, file.length))
  ) {
    throw new ArchiveError(`${p.day}: the object's first or last bytes are not the ones written`);
  }
  return { bytes: object.size, etag: object.etag, ms: Date.now() - started };
}

/** Deletes what a run kept between its steps (nothing of it is needed once the upload is complete). */
export async function deleteRunWork(bucket: R2Bucket, runId: number) {
  for (let cursor: string | undefined; ;) {
    const listed = await bucket.list({ prefix: runWorkPrefix(runId), cursor });
    if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) return;
    cursor = listed.cursor;
  }
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Counts CSV records in bytes as they come: line ends outside quoted cells (a cell with a line
 * break in it is quoted, and `"` and `\n` never occur inside a UTF-8 sequence, so bytes can be
 * scanned as they come). `end()` refuses text that does not end with a line end: it was cut off.
 */
function recordCounter() {
  let records = 0;
  let quoted = false;
  let last = -1;
  return {
    add(bytes: Uint8Array) {
      for (let i = 0; i < bytes.length; i++) {
        const byte = bytes[i];
        if (byte === QUOTE) quoted = !quoted;
        else if (byte === NEWLINE && !quoted) records++;
      }
      if (bytes.length) last = bytes[bytes.length - 1]!;
    },
    end() {
      if (records > 0 && (last !== NEWLINE || quoted)) throw new ArchiveError("the archive ends in the middle of a row");
      return records;
    },
  };
}

export async function countCsvRecords(stream: ReadableStream<Uint8Array>): Promise<number> {
  const counter = recordCounter();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    counter.add(value);
  }
  return counter.end();
}

/**
 * Reads one chunk back from the completed object (its byte range) and inflates it: its CSV must
 * have the length and CRC-32 written, and as many records as rows (the first chunk also holds the
 * header). Together the chunks, the header and the trailer cover every byte of the file.
 */
export async function verifyChunk(bucket: R2Bucket, p: ArchiveSpan, c: ExportedChunk): Promise<{ rows: number; ms: number }> {
  const started = Date.now();
  const expected = c.rows + (c.chunk === 1 ? 1 : 0);
  if (c.size === 0) {
    if (expected !== 0) throw new ArchiveError(`${p.day}: chunk ${c.chunk} has ${c.rows} rows and no bytes`);
    return { rows: 0, ms: 0 };
  }
  const object = await bucket.get(p.objectKey, { range: { offset: c.offset, length: c.size } });
  if (!object) throw new ArchiveError(`${p.day}: ${p.objectKey} is not in the bucket`);
  const csv = inflateRawSync(new Uint8Array(await object.arrayBuffer()), { finishFlush: constants.Z_SYNC_FLUSH });
  if (csv.length !== c.length || crc32(csv) !== c.crc) {
    throw new ArchiveError(`${p.day}: chunk ${c.chunk} reads back as ${csv.length} bytes of CSV, not the ${c.length} written`);
  }
  const counter = recordCounter();
  counter.add(csv);
  const records = counter.end();
  if (records !== expected) throw new ArchiveError(`${p.day}: chunk ${c.chunk}: ${c.rows} clicks written, ${records - (expected - c.rows)} read back`);
  return { rows: c.rows, ms: Date.now() - started };
}

/**
 * After the file: D1 and the span's shard-day objects must still hold exactly the clicks written
 * (a click deleted or added meanwhile, say a campaign deleted, shows as a difference and the day
 * is written again). `maxClickId` is D1's highest (0 when D1 holds none of the day): only D1's
 * clicks up to it are deleted; the objects are emptied whole (retention/shard-days.ts).
 */
export async function checkSpan(db: Db, p: ArchiveSpan, rows: number, shards?: ClickShards): Promise<{ exits: number; maxClickId: number; inObjects: number }> {
  const places = shards ? await shardPlacesOf(db, p.startMs, p.endMs) : [];
  const [held, sharded] = await Promise.all([
    clicksOfSpan(db, p.startMs, p.endMs),
    shards && places.length ? shardClicksOfSpan(db, shards, places, p.startMs, p.endMs) : { rows: 0, exits: 0 },
  ]);
  if (held.rows + sharded.rows !== rows) {
    throw new ArchiveError(
      `${p.day}: ${rows} clicks written, but D1 now holds ${held.rows}${places.length ? ` and its ${places.length} shard-day objects ${sharded.rows}` : ""}`,
    );
  }
  if (rows === 0) throw new ArchiveError(`${p.day}: no clicks written`);
  return { exits: held.exits + sharded.exits, maxClickId: held.maxId ?? 0, inObjects: sharded.rows };
}

/** Aborts a run's upload, whatever became of it (completed or aborted already: nothing to do). */
export async function abortUpload(bucket: R2Bucket, objectKey: string, uploadId: string) {
  try {
    await bucket.resumeMultipartUpload(objectKey, uploadId).abort();
    return true;
  } catch {
    return false;
  }
}
