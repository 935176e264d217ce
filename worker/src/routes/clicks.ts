import { Hono } from "hono";
import { clickCountsByCampaign, clickLogPage, clickRowsAfter, type ClickFilter, type ClickLogRow } from "../db/queries/clicks";
import { reportTimeZone } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { dayIn, shiftDay } from "../integrations/day-windows";
import { csvRow, pagedCsv } from "../lib/csv";
import { badRequest } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { zoneDayRange } from "../lib/zone-days";
import { clickExportQuery, clickLogQuery, dateRangeQuery } from "../schemas/clicks";

const DEFAULT_DAYS = 7;
const EXPORT_PAGE_ROWS = 1000;

/** The requested days, defaulting to the last 7 (today included); endDate is inclusive. */
async function resolveRange(db: Db, q: { startDate?: string; endDate?: string }, now = Date.now()) {
  const timeZone = await reportTimeZone(db);
  const today = dayIn(now, timeZone);
  const endDate = q.endDate ?? (q.startDate && q.startDate > today ? q.startDate : today);
  const startDate = q.startDate ?? shiftDay(endDate, -(DEFAULT_DAYS - 1));
  if (startDate > endDate) throw badRequest("startDate must not be after endDate");
  return { startDate, endDate, timeZone, ...zoneDayRange(startDate, endDate, timeZone) };
}

/** Lander CTR: exits / redirect clicks x 100, two decimals (decisions.md). */
export const ctrPercent = (exits: number, total: number) => (total === 0 ? 0 : Math.round((exits / total) * 10_000) / 100);

const clickJson = (r: ClickLogRow) => ({ ...r, clickedAt: iso(r.clickedAt), exitedAt: isoOrNull(r.exitedAt) });

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

export const clickRoutes = new Hono<AppEnv>()
  /** The Click Log: one page newest first, with the totals of everything the filter matches. */
  .get("/", validate("query", clickLogQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const filter: ClickFilter = { startMs: range.startMs, endMs: range.endMs, campaignId: q.campaignId };
    const { total, exits, rows } = await clickLogPage(db, filter, q.page, q.pageSize);
    return c.json(
      {
        startDate: range.startDate,
        endDate: range.endDate,
        timeZone: range.timeZone,
        total,
        exitClicks: exits,
        ctr: ctrPercent(exits, total),
        page: q.page,
        pageSize: q.pageSize,
        totalPages: Math.max(1, Math.ceil(total / q.pageSize)),
        clicks: rows.map(clickJson),
      },
      200,
    );
  })

  .get("/by-campaign", validate("query", dateRangeQuery), async (c) => {
    const db = c.get("db");
    const range = await resolveRange(db, c.req.valid("query"));
    const rows = await clickCountsByCampaign(db, { startMs: range.startMs, endMs: range.endMs });
    return c.json(
      rows.map((r) => ({ ...r, ctr: ctrPercent(r.exitClicks, r.totalClicks) })),
      200,
    );
  })

  /** The Click Log as CSV, every matching click newest first, streamed a page at a time (keyset paging). */
  .get("/export", validate("query", clickExportQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const filter: ClickFilter = { startMs: range.startMs, endMs: range.endMs, campaignId: q.campaignId };
    const first = await clickRowsAfter(db, filter, null, EXPORT_PAGE_ROWS);
    const body = pagedCsv(
      CLICK_CSV_COLUMNS,
      first,
      EXPORT_PAGE_ROWS,
      (last) => clickRowsAfter(db, filter, { clickedAt: last.clickedAt, id: last.id }, EXPORT_PAGE_ROWS),
      clickCsvRow,
    );
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="click-log-${dayIn(Date.now(), range.timeZone)}.csv"`,
    });
  });
