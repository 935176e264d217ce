/**
 * The audit log's one write: an insert to put inside the change's own `db.batch`, so a change and
 * its entry are stored together or not at all. Adding audit to a route is one call:
 *
 *   await db.batch([
 *     db.update(landers).set(values).where(eq(landers.id, id)),
 *     ...unlessUnchanged(diff(before, values, LABELS), (summary) =>
 *       audit(c, { action: "lander.update", kind: "lander", id, summary }, { ifChanged: true })),
 *   ]);
 */
import { and, sql, type SQL } from "drizzle-orm";
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
  /** Write the entry only if this SQL condition holds when the batch runs (a lockout starting, say). */
  onlyIf?: SQL;
}

export const MAX_SUMMARY_LENGTH = 500;

function entityIdSql(id: AuditEntry["id"]): SQL {
  if (id === undefined || id === null) return sql`null`;
  if (typeof id === "object") return sql`cast((${id}) as text)`;
  return sql`${String(id)}`;
}

/** The insert for one entry, for callers without a request context (the request's `audit` is the usual way in). */
export function auditStatement(db: Db, actor: Actor, ip: string | null, entry: AuditEntry, { ifChanged = false, onlyIf }: Omit<AuditOptions, "actor"> = {}) {
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
      .where(and(ifChanged ? sql`changes() > 0` : undefined, onlyIf)),
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

/** A value as `diff` compares it: whole (a change past what `shown` keeps still counts), nothing as "". */
const comparable = (value: unknown) =>
  value === null || value === undefined ? "" : Array.isArray(value) ? (value.length ? JSON.stringify(value.map(String)) : "") : String(value);

/** "Name: A; URL: B" for the fields `labels` names. */
export function fields(values: Record<string, unknown>, labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([key]) => values[key] !== undefined)
    .map(([key, label]) => `${label}: ${shown(values[key])}`)
    .join("; ");
}

/**
 * "Name: A → B; BH Toggle: off → on" for the labelled fields `after` sets to something new; null
 * when it changes none of them (a save of the same values), which `unlessUnchanged` turns into no entry.
 */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>, labels: Record<string, string>): string | null {
  const changed = Object.entries(labels)
    .filter(([key]) => after[key] !== undefined && comparable(before[key]) !== comparable(after[key]))
    .map(([key, label]) => `${label}: ${shown(before[key])} → ${shown(after[key])}`);
  return changed.length ? changed.join("; ") : null;
}

/** "added a, b; removed c" between two lists; null when they hold the same values. */
export function listChange(before: readonly string[], after: readonly string[]): string | null {
  const added = after.filter((v) => !before.includes(v));
  const removed = before.filter((v) => !after.includes(v));
  const parts = [added.length ? `added ${shown(added)}` : "", removed.length ? `removed ${shown(removed)}` : ""].filter(Boolean);
  return parts.length ? parts.join("; ") : null;
}

/**
 * The entry of a change whose summary is a `diff` or `listChange`, as a list to spread into the
 * change's batch: empty when nothing changed, so a save of the same values logs nothing (README
 * "Audit log": only real changes are recorded).
 */
export function unlessUnchanged<T>(change: string | null, entry: (summary: string) => T): [] | [T] {
  return change === null ? [] : [entry(change)];
}

/** An entity as a summary names it: its name with its id, "Spring LP (#1)"; null (shown as (none)) without an id. */
export function named(name: string | null | undefined, id: number | string): string;
export function named(name: string | null | undefined, id: number | string | null | undefined): string | null;
export function named(name: string | null | undefined, id: number | string | null | undefined): string | null {
  return id === null || id === undefined ? null : `${name ?? "deleted"} (#${id})`;
}
