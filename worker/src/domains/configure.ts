/**
 * Putting a bought domain on Cloudflare and this Worker, and the actions on it afterwards.
 *
 * Configure DNS (and Retry Configuration, and the cron for rows waiting on Cloudflare) runs one
 * idempotent pipeline, so running it again after any failure or crash is safe:
 *   1. the zone: the recorded one if Cloudflare still has it, else created (an existing zone of
 *      this account is found and reused);
 *   2. the nameservers at Namecheap, pushed only when they are not the zone's already;
 *   3. zone still pending: ask Cloudflare to re-check (at most once an hour: the Free plan's
 *      limit) and wait; the cron looks again every 15 minutes;
 *   4. zone active: attach `sub.domain` to this Worker as a Custom Domain (already attached is
 *      success) → active.
 * Only the tracking subdomain is ever touched, never the apex or other records.
 */
import { ExternalApiError } from "../integrations/http";
import { ApiError, conflict } from "../lib/errors";
import { activeTrackingDomains, getDomain, type DomainRow } from "../db/queries/domains";
import type { DomainStatus } from "../db/schema";
import { CloudflareError, CODES, type Cloudflare, type WorkerDomain } from "./cloudflare";
import { cloudflareFor, namecheapFor, nowOf, type DomainDeps } from "./context";
import { machine, STATUS_LABELS } from "./machine";
import { stepLog, type StepLog } from "./step-log";
import { asSentence } from "./text";
import { NamecheapError, type Namecheap } from "./namecheap";
import { emitWebhookEvents, webhookEvent } from "../webhooks/emit";

/** Cloudflare allows one activation re-check an hour on the Free plan (every 5 minutes on paid plans). */
export const ACTIVATION_CHECK_INTERVAL_MS = 60 * 60 * 1000;

export const hostOf = (row: Pick<DomainRow, "domain" | "subdomain">) => (row.subdomain ? `${row.subdomain}.${row.domain}` : null);

const sameSet = (a: readonly string[] | null, b: readonly string[]) =>
  a !== null && a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");

export interface StepAnswer {
  success: boolean;
  message: string;
  domain: DomainRow | null;
}

/** The failures of the external services; anything else is our bug and propagates. */
const isExternal = (err: unknown): err is ExternalApiError => err instanceof ExternalApiError;

/**
 * The hostname as this Worker's custom domain. Already ours: nothing to do. Attached to another
 * Worker, or blocked by a DNS record of its own: a clear error, unless `replace` (Migrate to
 * Workers) allows taking it over: then that Worker's attachment or the A/AAAA/CNAME records of
 * this one hostname are removed first.
 */
async function ensureAttached(
  cf: Cloudflare,
  log: StepLog,
  hostname: string,
  zoneId: string,
  replace: boolean,
): Promise<{ domain: WorkerDomain; note: string }> {
  const existing = await cf.workerDomains({ hostname });
  const mine = existing.find((d) => d.service === cf.workerName);
  if (mine) return { domain: mine, note: "it was already attached" };
  const others = existing.filter((d) => d.service !== cf.workerName);
  if (others.length && !replace) {
    throw new CloudflareError(
      `${hostname} is a custom domain of another Worker (${others.map((d) => d.service).join(", ")}). Detach it there (Workers & Pages → Settings → Domains & Routes) or choose another subdomain.`,
      409,
      [],
    );
  }
  for (const other of others) {
    await log.before("domain.worker_detach", `Detaching ${hostname} from the Worker ${other.service} (Migrate to Workers)`);
    await cf.detachWorkerDomain(other);
    log.did(`${hostname} detached from the Worker ${other.service}`);
  }
  let replaced = others.length ? `it was moved from the Worker ${others.map((d) => d.service).join(", ")}` : "";
  const attach = async () => {
    await log.before("domain.worker_attach", `Attaching ${hostname} to this Worker as a Custom Domain`);
    const domain = await cf.attachWorkerDomain(hostname, zoneId);
    log.did(`${hostname} attached to this Worker`);
    return domain;
  };
  try {
    return { domain: await attach(), note: replaced };
  } catch (err) {
    if (!(err instanceof CloudflareError && err.has(CODES.hostnameHasRecord))) throw err;
    const records = (await cf.recordsFor(zoneId, hostname)).filter((r) => ["A", "AAAA", "CNAME"].includes(r.type.toUpperCase()));
    const described = records.map((r) => `${r.type} → ${r.content}`).join(", ") || "a record";
    if (!replace) {
      throw new CloudflareError(
        `${hostname} already has a DNS record in Cloudflare (${described}), so it cannot be attached to this Worker. Delete that record in Cloudflare → DNS, or Retry Configuration with another subdomain.`,
        err.status,
        err.codes,
      );
    }
    for (const record of records) {
      await log.before("domain.dns_record_delete", `Deleting the DNS record ${record.type} → ${record.content} of ${hostname} (Migrate to Workers)`);
      await cf.deleteRecord(zoneId, record);
      log.did(`DNS record ${record.type} → ${record.content} deleted`);
    }
    replaced = `replacing ${described}`;
    return { domain: await attach(), note: replaced };
  }
}

type Trigger = "admin" | "cron";

/**
 * Steps 1–4 on a row held in configuring_dns. Transient trouble (timeouts, 5xx, rate limits) from
 * the cron leaves the row waiting for the next run; from an admin it also keeps the row in
 * configuring_dns, with the message, so the cron carries on. A definite refusal (a permission,
 * a conflict) is dns_failed with the message.
 *
 * Audit (step-log.ts): each Cloudflare or Namecheap change is announced before its call, and the
 * outcome, with what was done, joins the transition that ends the step whenever something was
 * called or the status or subdomain changed since `before` (the row as it was before the step).
 */
async function runPipeline(deps: DomainDeps, nc: Namecheap, cf: Cloudflare, held: DomainRow, before: DomainRow, trigger: Trigger): Promise<StepAnswer> {
  const { db } = deps;
  const host = hostOf(held)!;
  const from: DomainStatus[] = ["configuring_dns"];
  const log = stepLog(deps, held.id);
  const outcome = (status: DomainStatus, message: string) =>
    log.calledOut || status !== before.status || held.subdomain !== before.subdomain
      ? log.outcome("domain.configure", `${host} → ${STATUS_LABELS[status]}${log.done ? `: ${log.done}` : ""}. ${message}`)
      : undefined;
  let row = held;
  try {
    let zone = row.cloudflareZoneId ? await cf.getZone(row.cloudflareZoneId) : null;
    let reused = false;
    if (!zone) {
      await log.before("domain.zone_create", `Creating the Cloudflare zone of ${row.domain} (or reusing this account's)`);
      ({ zone, reused } = await cf.createZone(row.domain));
      log.did(reused ? `the account's Cloudflare zone ${zone.id} reused` : `Cloudflare zone ${zone.id} created`);
    }
    row = (await machine.record(db, row.id, from, { cloudflareZoneId: zone.id, zoneStatus: zone.status }, nowOf(deps))) ?? row;

    if (zone.nameServers.length >= 2 && !sameSet(row.nameservers, zone.nameServers)) {
      const ns = zone.nameServers.join(", ");
      await log.before("domain.nameservers_set", `Setting the nameservers of ${row.domain} at Namecheap to ${ns}`);
      await nc.setNameservers(row.domain, zone.nameServers);
      log.did(`nameservers set at Namecheap to ${ns}`);
      row = (await machine.record(db, row.id, from, { nameservers: zone.nameServers }, nowOf(deps))) ?? row;
    }

    if (zone.status !== "active") {
      const now = nowOf(deps);
      let checkAsked = false;
      if (row.activationCheckedAt === null || now - row.activationCheckedAt >= ACTIVATION_CHECK_INTERVAL_MS) {
        try {
          await cf.activationCheck(zone.id);
          checkAsked = true;
        } catch (err) {
          // Only a nudge: Cloudflare checks pending zones by itself as well.
          if (!isExternal(err)) throw err;
          console.warn(`activation check for ${row.domain} refused: ${err.message}`);
        }
      }
      const ns = (row.nameservers ?? zone.nameServers).join(", ");
      const message = `${reused ? "The existing Cloudflare zone" : "The Cloudflare zone"} of ${row.domain} is ${zone.status}, and its nameservers (${ns}) are set at Namecheap. Cloudflare activates the zone once it sees them: usually within minutes, at most 48 hours. Trackyard checks every 15 minutes and then attaches ${host} to this Worker.`;
      const entry = outcome("configuring_dns", `The zone is ${zone.status}: waiting for Cloudflare to activate it.`);
      const waiting = await machine.waitForZone(db, row.id, checkAsked ? { activationCheckedAt: now } : {}, now, entry);
      return { success: true, message, domain: waiting };
    }

    const { domain } = await ensureAttached(cf, log, host, zone.id, false);
    const message = `${host} is live on this Worker: tracking links can use https://${host}.`;
    const active = await machine.activate(
      db,
      row.id,
      { workerDomainId: domain.id, zoneStatus: zone.status },
      nowOf(deps),
      outcome("active", "Live on this Worker."),
    );
    // It was configuring_dns until now (this step holds only such rows): it just became active.
    if (active) {
      await emitWebhookEvents(deps.env, [
        {
          event: await webhookEvent("domain.active", `${active.id}:${active.configuredAt ?? nowOf(deps)}`, nowOf(deps), {
            domain_id: active.id,
            domain: active.domain,
            host,
            configured_at: active.configuredAt === null ? null : new Date(active.configuredAt).toISOString(),
          }),
          mediaBuyer: null,
        },
      ]);
    }
    return { success: true, message, domain: active };
  } catch (err) {
    if (!isExternal(err)) {
      await machine.release(
        db,
        row.id,
        from,
        {},
        nowOf(deps),
        outcome("configuring_dns", `Stopped by an error: ${err instanceof Error ? err.message : String(err)}`),
      );
      throw err;
    }
    // Worth another try: Cloudflare's retryable failures, and Namecheap calls whose outcome is unknown
    // (setting nameservers twice is harmless).
    const transient = err.retryable || (err instanceof NamecheapError && !err.details.answered);
    if (transient) {
      const note = `${asSentence(err.message)} Nothing is half done: Trackyard tries again every 15 minutes, or use Retry Configuration.`;
      const kept = await machine.release(db, row.id, from, trigger === "admin" ? { errorMessage: note } : {}, nowOf(deps), outcome("configuring_dns", note));
      if (trigger === "cron") return { success: false, message: err.message, domain: kept };
      throw new ApiError(502, note);
    }
    const failed = await machine.failConfigure(db, row.id, err.message, nowOf(deps), outcome("dns_failed", err.message));
    if (trigger === "cron") return { success: false, message: err.message, domain: failed };
    throw new ApiError(502, err.message);
  }
}

/** POST /api/domains/:id/configure (Configure DNS and Retry Configuration). */
export async function configureDomain(deps: DomainDeps, id: number, subdomain: string): Promise<StepAnswer> {
  // Both sides must be set up before the row changes at all.
  const cf = cloudflareFor(deps);
  const nc = namecheapFor(deps);
  const before = await getDomain(deps.db, id);
  const held = await machine.startConfigure(deps.db, id, subdomain, nowOf(deps));
  return runPipeline(deps, nc, cf, held, before ?? held, "admin");
}

/** The cron's step for a row waiting in configuring_dns. */
export async function advanceConfiguration(deps: DomainDeps, nc: Namecheap, cf: Cloudflare, id: number): Promise<StepAnswer | null> {
  let held: DomainRow;
  try {
    held = await machine.hold(deps.db, id, ["configuring_dns"], "checking the zone", nowOf(deps));
  } catch (err) {
    if (err instanceof ApiError) return null; // gone, moved on, or another step holds it
    throw err;
  }
  if (!held.subdomain) {
    const message = "No tracking subdomain is recorded: use Retry Configuration to choose one.";
    await machine.failConfigure(deps.db, id, message, nowOf(deps), stepLog(deps, id).outcome("domain.configure", `${held.domain} → DNS Failed. ${message}`));
    return null;
  }
  return runPipeline(deps, nc, cf, held, held, "cron");
}

/**
 * Runs `step` on a row held for it, releasing it with what the step reports and, in the same
 * batch, its audit outcome (`auditAction`) once the step called out to change something (a
 * Migrate to Workers that found the host attached already changed nothing, and logs nothing).
 */
async function withHeld(
  deps: DomainDeps,
  id: number,
  from: readonly DomainStatus[],
  action: string,
  auditAction: string,
  step: (row: DomainRow, log: StepLog) => Promise<{ set: Parameters<typeof machine.release>[3]; message: string }>,
): Promise<StepAnswer> {
  const row = await machine.hold(deps.db, id, from, action, nowOf(deps));
  const log = stepLog(deps, id);
  const summary = (text: string) => `${row.domain}${log.done ? `: ${log.done}` : ""}. ${text}`;
  try {
    const { set, message } = await step(row, log);
    const entry = log.calledOut ? log.outcome(auditAction, summary(message)) : undefined;
    const released = await machine.release(deps.db, id, from, { ...set, errorMessage: null }, nowOf(deps), entry);
    return { success: true, message, domain: released };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const failure = `${action} failed: ${asSentence(message)}`;
    const entry = log.calledOut ? log.outcome(auditAction, summary(failure)) : undefined;
    await machine.release(deps.db, id, from, isExternal(err) ? { errorMessage: failure } : {}, nowOf(deps), entry);
    if (isExternal(err)) throw new ApiError(502, message);
    throw err;
  }
}

async function requireRow(deps: DomainDeps, id: number) {
  const row = await getDomain(deps.db, id);
  if (!row) throw new ApiError(404, "Domain not found");
  return row;
}

/** POST /api/domains/:id/migrate-to-workers: (re)attach `sub.domain` here, replacing what points elsewhere. */
export async function migrateToWorkers(deps: DomainDeps, id: number): Promise<StepAnswer> {
  const row = await requireRow(deps, id);
  const host = hostOf(row);
  if (row.status !== "active" || !host || !row.cloudflareZoneId) {
    throw conflict(
      `${row.domain} must be Active with a tracking subdomain to migrate it to Workers (it is ${row.status.replace("_", " ")}${host ? "" : ", with no subdomain"}).`,
    );
  }
  const cf = cloudflareFor(deps);
  return withHeld(deps, id, ["active"], "Migrate to Workers", "domain.migrate_to_workers", async (held, log) => {
    const { domain, note } = await ensureAttached(cf, log, host, held.cloudflareZoneId!, true);
    return { set: { workerDomainId: domain.id }, message: `${host} now runs on this Worker as a Custom Domain${note ? ` (${note})` : ""}.` };
  });
}

const HAS_ZONE: DomainStatus[] = ["purchased", "configuring_dns", "dns_failed", "active"];

/** POST /api/domains/:id/update-nameservers: push the zone's nameservers to Namecheap again. */
export async function updateNameservers(deps: DomainDeps, id: number): Promise<StepAnswer> {
  const row = await requireRow(deps, id);
  if (!row.cloudflareZoneId) throw conflict(`${row.domain} has no Cloudflare zone yet: use Configure DNS first.`);
  const cf = cloudflareFor(deps);
  const nc = namecheapFor(deps);
  return withHeld(deps, id, HAS_ZONE, "Update NS", "domain.update_nameservers", async (held, log) => {
    const zone = await cf.getZone(held.cloudflareZoneId!);
    if (!zone) throw conflict(`The Cloudflare zone of ${held.domain} no longer exists: use Retry Configuration to create it again.`);
    if (zone.nameServers.length < 2) throw conflict(`Cloudflare lists no nameservers for ${held.domain} yet: try again in a minute.`);
    const ns = zone.nameServers.join(", ");
    await log.before("domain.nameservers_set", `Setting the nameservers of ${held.domain} at Namecheap to ${ns} (Update NS)`);
    await nc.setNameservers(held.domain, zone.nameServers);
    log.did(`nameservers set at Namecheap to ${ns}`);
    const now = nowOf(deps);
    let activationCheckedAt = held.activationCheckedAt;
    if (zone.status !== "active" && (activationCheckedAt === null || now - activationCheckedAt >= ACTIVATION_CHECK_INTERVAL_MS)) {
      await cf.activationCheck(zone.id).then(
        () => (activationCheckedAt = now),
        (err: unknown) => console.warn(`activation check for ${held.domain} refused: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
    return {
      set: { nameservers: zone.nameServers, zoneStatus: zone.status, activationCheckedAt },
      message: `Nameservers updated at Namecheap: ${zone.nameServers.join(", ")}.${zone.status === "active" ? "" : " Cloudflare activates the zone once it sees them (up to 48 hours)."}`,
    };
  });
}

/**
 * DELETE /api/domains/:id: detach the custom domain from this Worker, then forget the row. The
 * registration at Namecheap and the Cloudflare zone stay the owner's: nothing is deleted there.
 */
export async function deleteDomain(deps: DomainDeps, id: number): Promise<{ message: string }> {
  const row = await requireRow(deps, id);
  if (row.status === "purchasing") throw conflict(`A purchase of ${row.domain} is still being confirmed: delete it once it is Purchased or Failed.`);
  const host = hostOf(row);
  const mayBeAttached = host !== null && (row.workerDomainId !== null || row.status === "active" || row.cloudflareZoneId !== null);
  const cf = mayBeAttached ? cloudflareFor(deps) : null;
  const from: DomainStatus[] = ["pending", "purchased", "configuring_dns", "dns_failed", "active", "failed"];
  const held = await machine.hold(deps.db, id, from, "deleting it", nowOf(deps));
  const log = stepLog(deps, id);
  let detached = false;
  if (cf && host) {
    try {
      for (const d of await cf.workerDomains({ hostname: host })) {
        if (d.service !== cf.workerName) continue;
        await log.before("domain.worker_detach", `Detaching ${host} from this Worker (Delete)`);
        await cf.detachWorkerDomain(d);
        log.did(`${host} detached from this Worker`);
        detached = true;
      }
    } catch (err) {
      const message = `${asSentence(err instanceof Error ? err.message : String(err))} Nothing was deleted.`;
      await machine.release(
        deps.db,
        id,
        from,
        {},
        nowOf(deps),
        log.calledOut ? log.outcome("domain.delete", `${held.domain}: ${log.done || "nothing detached"}. ${message}`) : undefined,
      );
      if (isExternal(err)) throw new ApiError(502, message);
      throw err;
    }
  }
  const detachNote = detached ? ` and ${host} is detached from this Worker` : "";
  const zoneNote = held.cloudflareZoneId ? " and the Cloudflare zone" : "";
  const message = `${held.domain} is removed from Trackyard${detachNote}. The registration at Namecheap${zoneNote} remain yours; campaigns that used it now use the default domain.`;
  await machine.forget(deps.db, held.id, log.outcome("domain.delete", message));
  return { message };
}

export interface RedeployAnswer {
  message: string;
  attached: string[];
  alreadyAttached: string[];
  /** This Worker's custom domains that no active domain here accounts for: left as they are. */
  unknown: string[];
  failed: string[];
}

/**
 * POST /api/redeploy-worker: every active tracking domain attached to this Worker again. Attaches
 * what is missing, reports what was already there and what is attached but unknown here; deletes
 * nothing.
 */
export async function redeployWorker(deps: DomainDeps): Promise<RedeployAnswer> {
  const cf = cloudflareFor(deps);
  let attachedNow: WorkerDomain[];
  try {
    attachedNow = await cf.workerDomains({ service: cf.workerName });
  } catch (err) {
    if (isExternal(err)) throw new ApiError(502, err.message);
    throw err;
  }
  const known = new Set(attachedNow.map((d) => d.hostname.toLowerCase()));
  const answer: RedeployAnswer = { message: "", attached: [], alreadyAttached: [], unknown: [], failed: [] };
  const wanted = new Set<string>();
  for (const row of await activeTrackingDomains(deps.db)) {
    const host = hostOf(row)!;
    wanted.add(host);
    if (known.has(host)) {
      answer.alreadyAttached.push(host);
      continue;
    }
    if (!row.cloudflareZoneId) {
      answer.failed.push(`${host}: no Cloudflare zone is recorded (use Update NS or Retry Configuration)`);
      continue;
    }
    try {
      const { domain } = await ensureAttached(cf, stepLog(deps, row.id), host, row.cloudflareZoneId, false);
      await machine.record(deps.db, row.id, ["active"], { workerDomainId: domain.id }, nowOf(deps));
      answer.attached.push(host);
    } catch (err) {
      if (!isExternal(err)) throw err;
      answer.failed.push(`${host}: ${err.message}`);
    }
  }
  answer.unknown = attachedNow.map((d) => d.hostname.toLowerCase()).filter((h) => !wanted.has(h));
  const parts = [
    answer.attached.length ? `Attached ${answer.attached.length}: ${answer.attached.join(", ")}.` : "",
    answer.alreadyAttached.length ? `Already attached: ${answer.alreadyAttached.join(", ")}.` : "",
    answer.unknown.length ? `Attached to this Worker but not in Domains (left as they are): ${answer.unknown.join(", ")}.` : "",
    answer.failed.length ? `Failed: ${answer.failed.join("; ")}.` : "",
  ].filter(Boolean);
  answer.message = parts.join(" ") || "No active tracking domains to attach.";
  return answer;
}
