/**
 * The Click Log's CSV: its columns and rows, and the stream both the export (routes/clicks.ts) and
 * the daily R2 archives (retention/archive-day.ts) write. One definition, so a column added to
 * the Click Log's CSV is in every archive written after it.
 */
import { clickRowsAfter, type ClickFilter, type ClickLogRow } from "../db/queries/clicks";
import type { Db } from "../env";
import { CSV_BOM, csvRow } from "../lib/csv";
import { iso, isoOrNull } from "../lib/time";

export const CLICK_CSV_COLUMNS = [
  "Click ID",
  "Campaign",
  "Clicked At",
  "Exited",
  "Exit Time",
  "TikTok Campaign ID",
  "TikTok Ad Group ID",
  "TikTok Creative ID",
  "Placement",
  "Campaign Name",
  "Ad Group Name",
  "Creative Name",
  "IP Address",
  "User Agent",
] as const;

const clickCsvRow = (r: ClickLogRow) =>
  csvRow([
    r.clickId,
    r.campaign,
    iso(r.clickedAt),
    r.exitedAt === null ? "No" : "Yes",
    isoOrNull(r.exitedAt),
    r.tiktokCampaignId,
    r.tiktokAdGroupId,
    r.tiktokCreativeId,
    r.placement,
    r.campaignName,
    r.adGroupName,
    r.creativeName,
    r.ipAddress,
    r.userAgent,
  ]);

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
 * resolves, so a failing database is the caller's error rather than a cut-off file.
 */
export async function clickCsv(db: Db, filter: ClickFilter, pageRows = CLICK_CSV_PAGE_ROWS): Promise<ClickCsv> {
  const encoder = new TextEncoder();
  let rows = await clickRowsAfter(db, filter, null, pageRows);
  let written = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(CSV_BOM + csvRow(CLICK_CSV_COLUMNS)));
    },
    async pull(controller) {
      if (rows.length) controller.enqueue(encoder.encode(rows.map(clickCsvRow).join("")));
      written += rows.length;
      const last = rows.at(-1);
      if (rows.length < pageRows || !last) {
        controller.close();
        return;
      }
      rows = await clickRowsAfter(db, filter, { clickedAt: last.clickedAt, id: last.id }, pageRows);
    },
  });
  return { body, written: () => written };
}
