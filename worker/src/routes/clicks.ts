import { Hono } from "hono";
import type { z } from "zod";
import type { ClickFilter, ClickLogRow } from "../db/queries/clicks";
import { archivedFrontier, archiveOfDay, archivesOverlapping } from "../db/queries/click-archives";
import { refusedByDay } from "../db/queries/refused-clicks";
import { reportTimeZone } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { badRequest, notFound } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { clickCsv } from "../tracking/click-csv";
import { clickCountsByCampaignAcross, clickFacetsAcross, clickLogPageAcross } from "../tracking/click-log";
import { validate } from "../lib/validate";
import { zoneDayRange } from "../lib/calendar-days";
import { archiveDayParam, clickExportQuery, clickLogQuery, dateRangeQuery, UNKNOWN_VALUE } from "../schemas/clicks";
import { clicksRetention } from "../retention/config";
import { builtinAlertStates } from "../db/queries/builtin-alerts";
import { CLICKS_DELAY_THRESHOLD_SECONDS } from "../schemas/builtin-alerts";
import { clicksPipelineState } from "../tracking/click-backlog";

const DEFAULT_DAYS = 7;

/** The requested days, defaulting to the last 7 (today included); endDate is inclusive. */
async function resolveRange(db: Db, q: { startDate?: string; endDate?: string }, now = Date.now()) {
  const timeZone = await reportTimeZone(db);
  const today = dayIn(now, timeZone);
  const endDate = q.endDate ?? (q.startDate && q.startDate > today ? q.startDate : today);
  const startDate = q.startDate ?? shiftDay(endDate, -(DEFAULT_DAYS - 1));
  if (startDate > endDate) throw badRequest("startDate must not be after endDate");
  return { startDate, endDate, timeZone, ...zoneDayRange(startDate, endDate, timeZone) };
}

/** Lander CTR: exits / redirect clicks x 100, two decimals (docs/product-rules.md). */
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
    // Days whose clicks are in shard-day objects are read there too (tracking/click-log.ts).
    const { total, exits, bots, rows } = await clickLogPageAcross({ db, shards: c.env.CLICK_SHARDS }, clickFilter(range, q), q.page, q.pageSize, range);
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
    const rows = await clickCountsByCampaignAcross({ db, shards: c.env.CLICK_SHARDS }, { startMs: range.startMs, endMs: range.endMs }, range);
    return c.json(
      rows.map((r) => ({ ...r, ctr: ctrPercent(r.exitClicks, r.totalClicks) })),
      200,
    );
  })

  /** The visitor values of the days' clicks, for the Click Log's filters, most clicks first. */
  .get("/facets", validate("query", dateRangeQuery), async (c) => {
    const db = c.get("db");
    const range = await resolveRange(db, c.req.valid("query"));
    const facets = await clickFacetsAcross({ db, shards: c.env.CLICK_SHARDS }, range);
    const of = (dim: string) => facets.filter((f) => f.dim === dim).map(({ value, clicks }) => ({ value, clicks }));
    return c.json({ countries: of("country"), devices: of("device"), oses: of("os"), browsers: of("browser") }, 200);
  })

  /** The Click Log as CSV, every matching click newest first, streamed (tracking/click-csv.ts). */
  .get("/export", validate("query", clickExportQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const { body } = await clickCsv(db, clickFilter(range, q), undefined, c.env.CLICK_SHARDS);
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="click-log-${dayIn(Date.now(), range.timeZone)}.csv"`,
    });
  })

  /**
   * How far back raw clicks go (CLICKS_RETENTION_DAYS), whether the days reach past it, and the
   * archived days among them (docs/data.md "Retention and archives").
   */
  .get("/retention", validate("query", dateRangeQuery), async (c) => {
    const db = c.get("db");
    const range = await resolveRange(db, c.req.valid("query"));
    const retention = clicksRetention(c.env.CLICKS_RETENTION_DAYS);
    const now = Date.now();
    const [frontier, archives] = await Promise.all([archivedFrontier(db), archivesOverlapping(db, range.startMs, range.endMs)]);
    const policyFrom = now - retention.days * 86_400_000;
    return c.json(
      {
        retentionDays: retention.days,
        retentionProblem: retention.problem,
        /** Raw clicks before this instant are archived (null: none archived yet). */
        archivedBefore: isoOrNull(frontier?.endMs),
        reachesPastRetention: range.startMs < policyFrom || (frontier !== null && range.startMs < frontier.endMs),
        archives: archives.map((a) => ({ day: a.day, rows: a.rows, bytes: a.bytes, from: iso(a.startMs), to: iso(a.endMs) })),
      },
      200,
    );
  })

  /** An archived day's clicks: the gzipped Click Log CSV, streamed from R2 as stored. */
  .get("/archives/:day", validate("param", archiveDayParam), async (c) => {
    const { day } = c.req.valid("param");
    const archive = await archiveOfDay(c.get("db"), day);
    const object = archive ? await c.env.ARCHIVE.get(archive.objectKey) : null;
    if (!object) throw notFound(`No archive of ${day}: only days older than the retention that had clicks are archived`);
    return c.body(object.body, 200, {
      "Content-Type": "application/gzip",
      "Content-Length": String(object.size),
      "Content-Disposition": `attachment; filename="clicks-${day}.csv.gz"`,
    });
  })

  /**
   * Whether new clicks are delayed on their way through the clicks queue (tracking/click-backlog.ts),
   * past the backlog alert's number of seconds (docs/tracking.md "Clicks through a queue").
   */
  .get("/pipeline", async (c) => {
    const db = c.get("db");
    const alert = (await builtinAlertStates(db)).find((a) => a.key === "clicks-queue-backlog");
    const thresholdSeconds = alert?.threshold ?? CLICKS_DELAY_THRESHOLD_SECONDS;
    const state = await clicksPipelineState({ db, shards: c.env.CLICK_SHARDS }, Date.now(), thresholdSeconds * 1000);
    return c.json(
      {
        delayed: state.delayed,
        reason: state.reason,
        delaySeconds: Math.round(state.delayMs / 1000),
        thresholdSeconds,
        lastStoredAt: isoOrNull(state.lastStoredAt),
        clicksPerMinuteBefore: state.clicksPerMinuteBefore,
      },
      200,
    );
  })

  /** Clicks and exits the per-IP rate limit refused, per report day and campaign (docs/tracking.md "Rate limits"). */
  .get("/refused", validate("query", clickExportQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const range = await resolveRange(db, q);
    const days = await refusedByDay(db, range, q.campaignId);
    const sum = (key: "clicks" | "exits") => days.reduce((s, d) => s + d[key], 0);
    return c.json({ clicks: sum("clicks"), exits: sum("exits"), days }, 200);
  });
