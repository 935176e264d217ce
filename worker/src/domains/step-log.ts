/**
 * The audit trail of a domain step (docs/accounts-security.md "Audit log"). A step's outside effects (a zone
 * created, nameservers changed, a domain bought, a hostname attached) cannot share a D1 batch with
 * their entry, so the trail is written in two parts:
 * - `before`: an entry written on its own right before each call that changes something at
 *   Namecheap or Cloudflare, so the call is on record even if the Worker or D1 fails after it;
 * - `outcome`: the step's result (what it did, the status it left), in the batch of the step's
 *   last transition (`ifChanged`: only when that transition happened).
 * A step that called nothing and changed no status (the cron finding a zone still pending) writes
 * nothing, so a waiting domain does not fill the log every 15 minutes.
 */
import type { SQL } from "drizzle-orm";
import { auditStatement, type Actor, type AuditEntry } from "../audit/record";
import type { DomainDeps } from "./context";

/** The actor of the cron's steps. */
export const CRON_ACTOR: Actor = { id: null, username: "cron" };

export type AuditStatement = ReturnType<typeof auditStatement>;

export function domainAudit(deps: DomainDeps, entry: Omit<AuditEntry, "kind">, options: { ifChanged?: boolean } = {}): AuditStatement {
  const { actor, ip } = deps.actor ?? { actor: CRON_ACTOR, ip: null };
  return auditStatement(deps.db, actor, ip, { kind: "domain", ...entry }, options);
}

export interface StepLog {
  /** Written now, on its own, before the outside call it names. */
  before(action: string, summary: string): Promise<void>;
  /** An outside effect that happened, for the outcome. */
  did(what: string): void;
  /** What the step did so far ("Cloudflare zone created; nameservers set at Namecheap"), or "". */
  readonly done: string;
  /** Whether the step called out to change something (an entry was written before a call). */
  readonly calledOut: boolean;
  /** The step's outcome entry, for its last transition's batch. */
  outcome(action: string, summary: string): AuditStatement;
}

export function stepLog(deps: DomainDeps, id: number | SQL): StepLog {
  const effects: string[] = [];
  let calledOut = false;
  return {
    async before(action, summary) {
      calledOut = true;
      await deps.db.batch([domainAudit(deps, { action, id, summary })]);
    },
    did(what) {
      effects.push(what);
    },
    get done() {
      return effects.join("; ");
    },
    get calledOut() {
      return calledOut;
    },
    outcome: (action, summary) => domainAudit(deps, { action, id, summary }, { ifChanged: true }),
  };
}
