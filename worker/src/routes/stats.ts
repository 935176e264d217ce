import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { mediaBuyerScope } from "../db/queries/media-buyer-scope";
import { reportTimeZone } from "../db/queries/settings";
import { mediaBuyerChoices, readReport, type ReportQuery } from "../db/queries/stats";
import type { AppEnv } from "../env";
import { validate } from "../lib/validate";
import { zoneDayRange } from "../lib/calendar-days";
import { statsFiltersQuery, statsReportQuery, type StatsFilters } from "../schemas/stats";
import { buildReport } from "../stats/report";
import { shardTail } from "../stats/shard-tail";

export const statsRoutes = new Hono<AppEnv>()
  /**
   * The grouped report (docs/screens.md §2 Stats screen) over report-time-zone days startDate..endDate.
   * Members see only their media buyers' rows and the spend linked to them (docs/product-rules.md).
   */
  .get("/report", validate("query", statsReportQuery), async (c) => {
    const db = c.get("db");
    const user = c.get("user")!;
    const { startDate, endDate, groupBy, includeBots, ...filters } = c.req.valid("query");
    const timeZone = await reportTimeZone(db);
    const query: ReportQuery = {
      range: { startDate, endDate, timeZone, ...zoneDayRange(startDate, endDate, timeZone) },
      groupBy,
      filters,
      includeBots,
      buyerScope: mediaBuyerScope(user, sql.raw("r.subid1")),
    };
    // The shard-day objects' newest clicks, live as D1's are (stats/shard-tail.ts). An object
    // failing to answer leaves them to the cron's next count rather than failing the report.
    query.shardTail = await shardTail(db, c.env.CLICK_SHARDS, query).catch((err: unknown) => {
      console.error(`stats: the shard-day objects' newest clicks are left out: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    });
    const report = buildReport(query, await readReport(db, query), { member: user.role !== "admin" });
    return c.json(report, 200);
  })

  /** The media buyers the caller can filter by: with stats in the days, or a member's own. */
  .get("/filters", validate("query", statsFiltersQuery), async (c) => {
    const user = c.get("user")!;
    const { startDate, endDate } = c.req.valid("query");
    const mediaBuyers = await mediaBuyerChoices(c.get("db"), { startDate, endDate }, user.role === "admin" ? undefined : user.id);
    const body: StatsFilters = { mediaBuyers };
    return c.json(body, 200);
  });
