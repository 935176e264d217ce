/**
 * A tracking domain's life, in one place:
 *
 *   pending → purchasing → purchased → configuring_dns → active
 *                 ↓                        ↓      ↑
 *               failed                  dns_failed┘ (Retry Configuration)
 *
 * - purchasing is also the purchase's lock: a second purchase of the name finds it and buys
 *   nothing. An unclear purchase stays purchasing (with errorMessage) until the Namecheap account
 *   confirms it (→ purchased) or, well after, shows it never happened (→ failed).
 * - configuring_dns covers "a step is running" and "waiting for Cloudflare to activate the zone";
 *   `leaseUntil` tells them apart and keeps two clicks (or a click and the cron) from running the
 *   same step at once. A lease left by a crash runs out by itself.
 * - failed and dns_failed carry errorMessage; failed can be bought again, dns_failed configured again.
 *
 * Every change of a domain row is written here, each as ONE D1 batch whose update is guarded by the
 * statuses it may start from (compare-and-set), so a transition that lost a race changes nothing.
 * Anything that must happen together with a transition (an audit entry) joins that batch in `commit`.
 */
import { and, eq, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../env";
import { getDomain, getDomainByName, type DomainRow } from "../db/queries/domains";
import { domains, type DomainStatus } from "../db/schema";
import { conflict, notFound } from "../lib/errors";
import type { AuditStatement } from "./step-log";

/** How long a step may hold a row; longer than any step's calls with their retries and waits. */
export const LEASE_MS = 5 * 60 * 1000;

/** Which status may follow which. `commit` refuses anything else (a programming error). */
export const TRANSITIONS: Record<DomainStatus, readonly DomainStatus[]> = {
  pending: ["purchasing"],
  purchasing: ["purchasing", "purchased", "failed"],
  purchased: ["configuring_dns"],
  configuring_dns: ["configuring_dns", "active", "dns_failed"],
  dns_failed: ["configuring_dns"],
  active: ["active"],
  failed: ["purchasing"],
};

export const STATUS_LABELS: Record<DomainStatus, string> = {
  pending: "Pending",
  purchasing: "Purchasing",
  purchased: "Purchased",
  configuring_dns: "Configuring DNS",
  active: "Active",
  dns_failed: "DNS Failed",
  failed: "Failed",
};

type Changes = Partial<Omit<typeof domains.$inferInsert, "id" | "domain" | "status" | "createdAt" | "leaseUntil">>;

interface Step {
  /** The statuses the row may be in; anything else loses the compare-and-set. */
  from: readonly DomainStatus[];
  /** The status afterwards (unchanged when omitted). */
  to?: DomainStatus;
  set?: Changes;
  /** take: only if no live lease, then hold it; release: drop it; keep: leave it as is. */
  lease: "take" | "release" | "keep";
  now: number;
  /** The step's audit entry (`ifChanged`), written in the same batch: with the transition or not at all. */
  entry?: AuditStatement;
}

/** One guarded update, as one D1 batch. Null when the row was not in a `from` status (or was held). */
async function commit(db: Db, id: number, step: Step): Promise<DomainRow | null> {
  if (step.to) for (const from of step.from) if (!TRANSITIONS[from].includes(step.to)) throw new Error(`domain transition ${from} → ${step.to} is not allowed`);
  const conditions: (SQL | undefined)[] = [eq(domains.id, id), inArray(domains.status, [...step.from])];
  if (step.lease === "take") conditions.push(or(isNull(domains.leaseUntil), lt(domains.leaseUntil, step.now)));
  const leaseUntil = step.lease === "take" ? step.now + LEASE_MS : step.lease === "release" ? null : undefined;
  const update = db
    .update(domains)
    .set({ ...step.set, ...(step.to && { status: step.to }), ...(leaseUntil !== undefined && { leaseUntil }) })
    .where(and(...conditions))
    .returning();
  const [rows] = await db.batch([update, ...(step.entry ? [step.entry] : [])]);
  return rows[0] ?? null;
}

/** Why a step could not start on this row: 404, or 409 naming its status or the step holding it. */
async function refusal(db: Db, id: number, allowed: readonly DomainStatus[], action: string, now: number): Promise<never> {
  const row = await getDomain(db, id);
  if (!row) throw notFound("Domain not found");
  if (allowed.includes(row.status) && row.leaseUntil !== null && row.leaseUntil >= now) {
    throw conflict(`Another step is already running for ${row.domain}: wait for it to finish.`);
  }
  const allowedText = allowed.map((s) => STATUS_LABELS[s]).join(" or ");
  throw conflict(`${row.domain} is ${STATUS_LABELS[row.status] ?? row.status}: ${action} is only possible when it is ${allowedText}.`);
}

/** 409 when the name is being bought or was bought; a failed (or never tried) name may be bought. */
function refusePurchaseOf(row: DomainRow | undefined) {
  if (!row || row.status === "failed" || row.status === "pending") return;
  if (row.status === "purchasing") throw conflict(`A purchase of ${row.domain} is already running: nothing more was bought.`);
  throw conflict(`${row.domain} is already bought (${STATUS_LABELS[row.status] ?? row.status}): nothing more was bought.`);
}

export const machine = {
  /**
   * The purchase lock: a new row, or a failed / pending one again, as purchasing. Refuses (409)
   * when the name is already being bought or was bought.
   */
  async startPurchase(db: Db, domain: string, now: number, entry?: (id: number | SQL) => AuditStatement): Promise<DomainRow> {
    const existing = await getDomainByName(db, domain);
    if (!existing) {
      const [inserted] = await db.batch([
        db.insert(domains).values({ domain, status: "purchasing", purchaseStartedAt: now, createdAt: now }).onConflictDoNothing().returning(),
        ...(entry ? [entry(sql`last_insert_rowid()`)] : []),
      ]);
      if (inserted[0]) return inserted[0];
    } else {
      const row = await commit(db, existing.id, {
        from: ["failed", "pending"],
        to: "purchasing",
        set: { purchaseStartedAt: now, errorMessage: null, purchaseOrderId: null, purchaseAmountCents: null },
        lease: "keep",
        now,
        entry: entry?.(existing.id),
      });
      if (row) return row;
    }
    refusePurchaseOf(await getDomainByName(db, domain));
    throw conflict(`Another request is buying ${domain}: nothing more was bought.`);
  },

  refusePurchaseOf,

  finishPurchase: (
    db: Db,
    id: number,
    got: { orderId: string | null; chargedCents: number | null; errorMessage?: string | null },
    now: number,
    entry?: AuditStatement,
  ) =>
    commit(db, id, {
      from: ["purchasing"],
      to: "purchased",
      set: { purchaseOrderId: got.orderId, purchaseAmountCents: got.chargedCents, purchasedAt: now, errorMessage: got.errorMessage ?? null },
      lease: "release",
      now,
      entry,
    }),

  failPurchase: (db: Db, id: number, message: string, now: number, entry?: AuditStatement) =>
    commit(db, id, { from: ["purchasing"], to: "failed", set: { errorMessage: message }, lease: "release", now, entry }),

  /** The purchase's outcome is not known yet: it stays purchasing, saying so. */
  notePurchase: (db: Db, id: number, message: string, now: number, entry?: AuditStatement) =>
    commit(db, id, { from: ["purchasing"], set: { errorMessage: message }, lease: "keep", now, entry }),

  /** Configure DNS / Retry Configuration: takes the row for the configuration steps. */
  async startConfigure(db: Db, id: number, subdomain: string, now: number): Promise<DomainRow> {
    const from: DomainStatus[] = ["purchased", "configuring_dns", "dns_failed"];
    const row = await commit(db, id, { from, to: "configuring_dns", set: { subdomain, errorMessage: null }, lease: "take", now });
    return row ?? refusal(db, id, from, "configuring DNS", now);
  },

  /** Takes the row for a step that does not change its status (the cron's check, Update NS, Migrate, Delete). */
  async hold(db: Db, id: number, from: readonly DomainStatus[], action: string, now: number): Promise<DomainRow> {
    const row = await commit(db, id, { from, lease: "take", now });
    return row ?? refusal(db, id, from, action, now);
  },

  /** What a held step learnt (zone, nameservers, ...), recorded as it goes; null when the row is gone. */
  record: (db: Db, id: number, from: readonly DomainStatus[], set: Changes, now: number) => commit(db, id, { from, set, lease: "keep", now }),

  /** Releases a held row, with what the step leaves behind (an error, or none). */
  release: (db: Db, id: number, from: readonly DomainStatus[], set: Changes, now: number, entry?: AuditStatement) =>
    commit(db, id, { from, set, lease: "release", now, entry }),

  activate: (db: Db, id: number, set: Changes, now: number, entry?: AuditStatement) =>
    commit(db, id, { from: ["configuring_dns", "active"], to: "active", set: { ...set, configuredAt: now, errorMessage: null }, lease: "release", now, entry }),

  /** The zone is not active yet: the row waits in configuring_dns for the cron. */
  waitForZone: (db: Db, id: number, set: Changes, now: number, entry?: AuditStatement) =>
    commit(db, id, { from: ["configuring_dns"], set: { ...set, errorMessage: null }, lease: "release", now, entry }),

  failConfigure: (db: Db, id: number, message: string, now: number, entry?: AuditStatement) =>
    commit(db, id, { from: ["configuring_dns"], to: "dns_failed", set: { errorMessage: message }, lease: "release", now, entry }),

  /** Forgets a row held for Delete. Campaigns using it fall back to the default domain (set null). */
  async forget(db: Db, id: number, entry?: AuditStatement): Promise<boolean> {
    const [deleted] = await db.batch([db.delete(domains).where(eq(domains.id, id)).returning({ id: domains.id }), ...(entry ? [entry] : [])]);
    return deleted.length === 1;
  },
};
