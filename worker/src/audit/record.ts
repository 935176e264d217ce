/**
 * The audit log's one write: an insert to put inside the change's own `db.batch`, so a change and
 * its entry are stored together or not at all. Adding audit to a route is one call:
 *
 *   await db.batch([
 *     db.update(landers).set(values).where(eq(landers.id, id)),
 *     audit(c, { action: "lander.update", kind: "lander", id, summary: diff(before, values, LABELS) }, { ifChanged: true }),
 *   ]);
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { auditLog } from "../db/schema";
import type { AppEnv, Db } from "../env";
import { clientIp } from "../lib/request";
import type { AuditKind } from "../schemas/audit";

export interface Actor {
  id: string | null;
  username: string;
}

export interface AuditEntry {
  /** What happened, as `<kind>.<verb>`: "campaign.update", "user.password_reset". */
  action: string;
  kind: AuditKind;
  /** The entity's id; SQL for an id known only inside the batch, e.g. sql`last_insert_rowid()`. */
  id?: string | number | SQL | null;
  /** A short before → after (see `diff`); never a password, secret or code. */
  summary?: string;
}

export interface AuditOptions {
  /** Who did it, when that is not the signed-in caller (a sign-in, before its session exists). */
  actor?: Actor;
  /**
   * Write the entry only if the statement just before it in the batch changed a row: an update or
   * delete by id that may match nothing leaves no entry then.
   */
  ifChanged?: boolean;
}

export const MAX_SUMMARY_LENGTH = 500;

function entityIdSql(id: AuditEntry["id"]): SQL {
  if (id === undefined || id === null) return sql`null`;
  if (typeof id === "object") return sql`cast((${id}) as text)`;
  return sql`${String(id)}`;
}

/** The insert for one entry, for callers without a request context (the request's `audit` is the usual way in). */
export function auditStatement(db: Db, actor: Actor, ip: string | null, entry: AuditEntry, { ifChanged = false }: Pick<AuditOptions, "ifChanged"> = {}) {
  const summary = cut(entry.summary ?? "", MAX_SUMMARY_LENGTH);
  return db.insert(auditLog).select(
    db
      .select({
        id: sql<number>`null`.as("id"),
        at: sql<number>`${Date.now()}`.as("at"),
        actorId: sql<string | null>`${actor.id}`.as("actor_id"),
        actorName: sql<string>`${actor.username}`.as("actor_name"),
        action: sql<string>`${entry.action}`.as("action"),
        entityKind: sql<string>`${entry.kind}`.as("entity_kind"),
        entityId: sql<string | null>`${entityIdSql(entry.id)}`.as("entity_id"),
        summary: sql<string>`${summary}`.as("summary"),
        ip: sql<string | null>`${ip}`.as("ip"),
      })
      .from(sql`(select 1)`)
      .where(ifChanged ? sql`changes() > 0` : undefined),
  );
}

/** The audit entry of a change the caller of this request makes: put it in the change's `db.batch`. */
export function audit(c: Context<AppEnv>, entry: AuditEntry, options: AuditOptions = {}) {
  const user = c.get("user");
  const actor = options.actor ?? (user ? { id: user.id, username: user.username } : { id: null, username: "anonymous" });
  return auditStatement(c.get("db"), actor, clientIp(c.req.raw), entry, options);
}

// ---- summaries -------------------------------------------------------------------------------

/** Cuts on code points, so a cut never leaves half a surrogate pair. */
function cut(text: string, max: number) {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join("")}…`;
}

/** A value as an entry shows it: booleans as on/off, nothing as (none), long text cut. */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === "") return "(none)";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.length ? cut(value.map(String).join(", "), 120) : "(none)";
  return cut(String(value), 80);
}

/** "Name: A; URL: B" for the fields `labels` names. */
export function fields(values: Record<string, unknown>, labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([key]) => values[key] !== undefined)
    .map(([key, label]) => `${label}: ${shown(values[key])}`)
    .join("; ");
}

/** "Name: A → B; BH Toggle: off → on" for the labelled fields `after` sets to something new. */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>, labels: Record<string, string>): string {
  const changed = Object.entries(labels)
    .filter(([key]) => after[key] !== undefined && shown(before[key]) !== shown(after[key]))
    .map(([key, label]) => `${label}: ${shown(before[key])} → ${shown(after[key])}`);
  return changed.length ? changed.join("; ") : "no change";
}

/** "added a, b; removed c" between two lists. */
export function listChange(before: readonly string[], after: readonly string[]): string {
  const added = after.filter((v) => !before.includes(v));
  const removed = before.filter((v) => !after.includes(v));
  const parts = [added.length ? `added ${shown(added)}` : "", removed.length ? `removed ${shown(removed)}` : ""].filter(Boolean);
  return parts.length ? parts.join("; ") : "no change";
}
