/**
 * The Click Log's CSV columns, defined once: the export (GET /api/clicks/export) and anything
 * else that writes clicks out as the Click Log does use this list. The spec's columns first, in
 * its order, then what we learned about each click since.
 */
import type { ClickLogRow } from "../db/queries/clicks";
import { csvRow } from "../lib/csv";
import { iso, isoOrNull } from "../lib/time";

export const CLICK_CSV_COLUMNS: readonly { header: string; cell(row: ClickLogRow): string | number | null }[] = [
  { header: "Click ID", cell: (r) => r.clickId },
  { header: "Campaign", cell: (r) => r.campaign },
  { header: "Clicked At", cell: (r) => iso(r.clickedAt) },
  { header: "Exited", cell: (r) => (r.exitedAt === null ? "No" : "Yes") },
  { header: "Exit Time", cell: (r) => isoOrNull(r.exitedAt) },
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

export const clickCsvHeader = () => csvRow(CLICK_CSV_COLUMNS.map((c) => c.header));
export const clickCsvLine = (row: ClickLogRow) => csvRow(CLICK_CSV_COLUMNS.map((c) => c.cell(row)));
