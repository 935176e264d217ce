/**
 * The Click Log's CSV: its columns and rows, and the stream both the export (routes/clicks.ts) and
 * the daily R2 archives (retention/archive-day.ts) write. One definition, so a column added to
 * the Click Log's CSV is in every archive written after it. The product's columns first, in its
 * order, then what we learned about each click since. Times are ISO-8601 UTC, as the API sends
 * instants (docs/product-rules.md "Data conventions"): a spreadsheet reads them the same from any
 * zone, and their headers say UTC, since the screen shows the report time zone.
 */
import { clickRowsAfter, type ClickFilter, type ClickLogRow } from "../db/queries/clicks";
import type { Db } from "../env";
import { clickRowsAcross, shardPlacesOf } from "./click-log";
import type { Stores } from "./click-queue";
import { csvRow, pagedCsv } from "../lib/csv";
import { iso, isoOrNull } from "../lib/time";

export const CLICK_CSV_COLUMNS: readonly { header: string; cell(row: ClickLogRow): string | number | null }[] = [
  { header: "Click ID", cell: (r) => r.clickId },
  { header: "Campaign", cell: (r) => r.campaign },
  { header: "Clicked At (UTC)", cell: (r) => iso(r.clickedAt) },
  { header: "Exited", cell: (r) => (r.exitedAt === null ? "No" : "Yes") },
  { header: "Exit Time (UTC)", cell: (r) => isoOrNull(r.exitedAt) },
  { header: "TikTok Campaign ID", cell: (r) => r.tiktokCampaignId },
  { header: "TikTok Ad Group ID", cell: (r) => r.tiktokAdGroupId },
  { header: "TikTok Creative ID", cell: (r) => r.tiktokCreativeId },
  { header: "Placement", cell: (r) => r.placement },
  { header: "Campaign Name", cell: (r) => r.campaignName },
  { header: "Ad Group Name", cell: (r) => r.adGroupName },
  { header: "Creative Name", cell: (r) => r.creativeName },
  { header: "IP Address", cell: (r) => r.ipAddress },
  { header: "User Agent", cell: (r) => r.userAgent },
  { header: "TTCLID", cell: (r) => r.ttclid },
  { header: "Country", cell: (r) => r.country },
  { header: "Region", cell: (r) => r.region },
  { header: "City", cell: (r) => r.city },
  { header: "ASN", cell: (r) => r.asn },
  { header: "ISP", cell: (r) => r.asOrganization },
  { header: "Device", cell: (r) => r.deviceType },
  { header: "OS", cell: (r) => r.os },
  { header: "Browser", cell: (r) => r.browser },
  { header: "Bot", cell: (r) => (r.bot ? "Yes" : "No") },
  { header: "Bot Reason", cell: (r) => r.botReason },
];

export const CLICK_CSV_HEADERS = CLICK_CSV_COLUMNS.map((c) => c.header);
/** One click as a line of the CSV (CRLF-terminated). */
export const clickCsvLine = (row: ClickLogRow) => csvRow(CLICK_CSV_COLUMNS.map((c) => c.cell(row)));

export const CLICK_CSV_PAGE_ROWS = 1000;

export interface ClickCsv {
  /** The file: a byte-order mark and the header, then every matching click, newest first. */
  body: ReadableStream<Uint8Array>;
  /** Clicks written so far (the header not counted); final once `body` has ended. */
  written: () => number;
}

/**
 * Every click the filter matches as the Click Log's CSV, read a bounded page at a time (keyset
 * paging), so a month of clicks never sits in memory. The first page is read before this
 * resolves, so a failing database is the caller's error rather than a cut-off file. Given the
 * `shards`, each page merges D1's rows with those of the range's shard-day objects
 * (tracking/click-log.ts).
 */
export async function clickCsv(db: Db, filter: ClickFilter, pageRows = CLICK_CSV_PAGE_ROWS, shards?: Stores["shards"]): Promise<ClickCsv> {
  let written = 0;
  const line = (row: ClickLogRow) => {
    written += 1;
    return clickCsvLine(row);
  };
  const places = shards ? await shardPlacesOf(db, filter.startMs, filter.endMs) : [];
  if (shards && places.length) {
    const stores = { db, shards };
    const page = (after: { clickedAt: number; clickId: string } | null) => clickRowsAcross(stores, places, filter, after, pageRows);
    const first = await page(null);
    return { body: pagedCsv(CLICK_CSV_HEADERS, first, pageRows, (last) => page(last), line), written: () => written };
  }
  const first = await clickRowsAfter(db, filter, null, pageRows);
  const next = (last: ClickLogRow) => clickRowsAfter(db, filter, { clickedAt: last.clickedAt, id: last.id }, pageRows);
  return { body: pagedCsv(CLICK_CSV_HEADERS, first, pageRows, next, line), written: () => written };
}
