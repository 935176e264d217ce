import { Hono } from "hono";
import { clickCountsByCampaign, clickFacets, clickLogPage, clickRowsAfter, type ClickFilter, type ClickLogRow } from "../db/queries/clicks";
import { reportTimeZone } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { dayIn, shiftDay } from "../integrations/day-windows";
import type { z } from "zod";
import { pagedCsv } from "../lib/csv";
import { badRequest } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { CLICK_CSV_COLUMNS, clickCsvLine } from "../tracking/click-csv";
import { validate } from "../lib/validate";
import { zoneDayRange } from "../lib/zone-days";
import { clickExportQuery, clickLogQuery, dateRangeQuery, UNKNOWN_VALUE } from "../schemas/clicks";

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

/** The request's filter: its days, campaign, people or bots, and visitor values ("(unknown)": not known). */
function clickFilter(range: { startMs: number; endMs: number }, q: z.output<typeof clickExportQuery>): ClickFilter {
  const value = (v: string | undefined) => (v === undefined ? undefined : v === UNKNOWN_VALUE ? null : v);
  return {
    startMs: range.startMs,
    endMs: range.endMs,
    campaignId: q.campaignId,
    bot: q.bot === "all" ? undefined : q.bot === "bot",
    country: value(q.country),
    deviceType: value(q.device),
    os: value(q.os),
    browser: value(q.browser),
  };
}

export const clickRoutes = new Hono<AppEnv>()
  /** The Click Log: one page newest first, with the totals of everything the filter matches. */
  .get("/", validate("query", clickLogQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const { total, exits, bots, rows } = await clickLogPage(db, clickFilter(range, q), q.page, q.pageSize);
    return c.json(
      {
        startDate: range.startDate,
        endDate: range.endDate,
        timeZone: range.timeZone,
        total,
        exitClicks: exits,
        ctr: ctrPercent(exits, total),
        botClicks: bots,
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

  /** The visitor values of the days' clicks, for the Click Log's filters, most clicks first. */
  .get("/facets", validate("query", dateRangeQuery), async (c) => {
    const db = c.get("db");
    const range = await resolveRange(db, c.req.valid("query"));
    const facets = await clickFacets(db, range);
    const of = (dim: string) => facets.filter((f) => f.dim === dim).map(({ value, clicks }) => ({ value, clicks }));
    return c.json({ countries: of("country"), devices: of("device"), oses: of("os"), browsers: of("browser") }, 200);
  })

  /**
   * The Click Log as CSV, every matching click newest first. Streamed a page at a time (keyset
   * paging), so a month of clicks never sits in memory. The first page is read before answering,
   * so a failing database is still a JSON error rather than a cut-off file.
   */
  .get("/export", validate("query", clickExportQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const filter = clickFilter(range, q);
    const first = await clickRowsAfter(db, filter, null, EXPORT_PAGE_ROWS);
    const body = pagedCsv(
      CLICK_CSV_COLUMNS.map((column) => column.header),
      first,
      EXPORT_PAGE_ROWS,
      (last) => clickRowsAfter(db, filter, { clickedAt: last.clickedAt, id: last.id }, EXPORT_PAGE_ROWS),
      clickCsvLine,
    );
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="click-log-${dayIn(Date.now(), range.timeZone)}.csv"`,
    });
  });
