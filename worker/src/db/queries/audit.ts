import { and, count, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "../../env";
import type { AuditKind } from "../../schemas/audit";
import { auditLog } from "../schema";

export interface AuditFilter {
  actorId?: string;
  entityKind?: AuditKind;
  /** Instants: startMs <= at < endMs. */
  startMs?: number;
  endMs?: number;
}

const columns = {
  id: auditLog.id,
  at: auditLog.at,
  actorId: auditLog.actorId,
  actorName: auditLog.actorName,
  action: auditLog.action,
  entityKind: auditLog.entityKind,
  entityId: auditLog.entityId,
  summary: auditLog.summary,
  ip: auditLog.ip,
};

function matching(f: AuditFilter): SQL | undefined {
  return and(
    f.actorId ? eq(auditLog.actorId, f.actorId) : undefined,
    f.entityKind ? eq(auditLog.entityKind, f.entityKind) : undefined,
    f.startMs !== undefined ? gte(auditLog.at, f.startMs) : undefined,
    f.endMs !== undefined ? lt(auditLog.at, f.endMs) : undefined,
  );
}

// Same-millisecond entries keep the order they were written in.
const newestFirst = [desc(auditLog.at), desc(auditLog.id)];

/** One page, newest first, and how many entries match in all. */
export async function auditPage(db: Db, filter: AuditFilter, page: number, pageSize: number) {
  const [rows, [total]] = await db.batch([
    db
      .select(columns)
      .from(auditLog)
      .where(matching(filter))
      .orderBy(...newestFirst)
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(auditLog).where(matching(filter)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The entries after `after` (keyset paging for the CSV export), newest first. */
export const auditRowsAfter = (db: Db, filter: AuditFilter, after: { at: number; id: number } | null, limit: number) =>
  db
    .select(columns)
    .from(auditLog)
    .where(and(matching(filter), after === null ? undefined : or(lt(auditLog.at, after.at), and(eq(auditLog.at, after.at), lt(auditLog.id, after.id)))))
    .orderBy(...newestFirst)
    .limit(limit);

/** Deletes entries older than `beforeMs` (the cron keeps 400 days). */
export const purgeAuditBefore = (db: Db, beforeMs: number) => db.delete(auditLog).where(lt(auditLog.at, beforeMs));

export type AuditRow = Awaited<ReturnType<typeof auditRowsAfter>>[number];
