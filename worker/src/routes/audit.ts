import { Hono } from "hono";
import { auditPage, auditRowsAfter, type AuditFilter, type AuditRow } from "../db/queries/audit";
import { reportTimeZone } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { csvRow, pagedCsv } from "../lib/csv";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { dayStartMs } from "../lib/calendar-days";
import { AUDIT_PAGE_SIZE, auditExportQuery, auditListQuery } from "../schemas/audit";

const EXPORT_PAGE_ROWS = 1000;

/** The filter as instants: the days are the report time zone's, like every other screen's. */
async function filterOf(db: Db, q: { userId?: string; entityKind?: AuditFilter["entityKind"]; startDate?: string; endDate?: string }): Promise<AuditFilter> {
  const timeZone = q.startDate || q.endDate ? await reportTimeZone(db) : "UTC";
  return {
    actorId: q.userId,
    entityKind: q.entityKind,
    startMs: q.startDate ? dayStartMs(q.startDate, timeZone) : undefined,
    endMs: q.endDate ? dayStartMs(shiftDay(q.endDate, 1), timeZone) : undefined,
  };
}

const entryJson = (r: AuditRow) => ({ ...r, at: iso(r.at) });

/** The time is ISO-8601 UTC like every instant the API sends; the header says so (the screen shows the report time zone). */
export const AUDIT_CSV_COLUMNS = ["Time (UTC)", "User", "Action", "Entity", "Entity ID", "Change", "IP Address"] as const;
const auditCsvRow = (r: AuditRow) => csvRow([iso(r.at), r.actorName, r.action, r.entityKind, r.entityId, r.summary, r.ip]);

/** The audit log (admins): who changed what, newest first. */
export const auditRoutes = new Hono<AppEnv>()
  .get("/", validate("query", auditListQuery), async (c) => {
    const db = c.get("db");
    const q = c.req.valid("query");
    const { rows, total } = await auditPage(db, await filterOf(db, q), q.page, AUDIT_PAGE_SIZE);
    return c.json(
      {
        entries: rows.map(entryJson),
        page: q.page,
        pageSize: AUDIT_PAGE_SIZE,
        total,
        totalPages: Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE)),
      },
      200,
    );
  })

  /** Every matching entry as CSV, streamed a page at a time (keyset paging), newest first. */
  .get("/export", validate("query", auditExportQuery), async (c) => {
    const db = c.get("db");
    const filter = await filterOf(db, c.req.valid("query"));
    const first = await auditRowsAfter(db, filter, null, EXPORT_PAGE_ROWS);
    const body = pagedCsv(
      AUDIT_CSV_COLUMNS,
      first,
      EXPORT_PAGE_ROWS,
      (last) => auditRowsAfter(db, filter, { at: last.at, id: last.id }, EXPORT_PAGE_ROWS),
      auditCsvRow,
    );
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log-${dayIn(Date.now(), "UTC")}.csv"`,
    });
  });
