/**
 * The domains check, run by the cron after the domain steps (job finish-domains): for the active
 * tracking domains, when each registration runs out (Namecheap's own domain list, the
 * `domains.getList` the purchase reconciliation reads) and whether its hostname is still one of
 * this Worker's custom domains (Cloudflare's list, as Redeploy Worker reads it). It only records
 * what it saw on the row; the built-in alert "Tracking domain expiring or detached" reads the rows
 * (docs/alerts.md "Built-in alerts").
 */
import { domainsDueForHealthCheck } from "../db/queries/domains";
import type { Bindings, Db } from "../env";
import { ExternalApiError } from "../integrations/http";
import { createCloudflare } from "./cloudflare";
import { cloudflareSetup, namecheapSetup } from "./config";
import { hostOf } from "./configure";
import type { DomainDeps } from "./context";
import { machine } from "./machine";
import { createNamecheap } from "./namecheap";

/** How often each domain is looked at: an expiry moves once a year, a detachment needs noticing within hours. */
export const HEALTH_EVERY_MS = 6 * 3_600_000;
/** Domains looked at per run: one Namecheap call each, beside finish-domains' own (about 20 a minute allowed). */
const ROWS_PER_RUN = 5;

export interface DomainHealthResult {
  checked: number;
  /** What could not be read this time (the row keeps its last readings). */
  problems: string[];
}

export async function checkDomainHealth(deps: DomainDeps & { db: Db; env: Bindings; now: () => number }): Promise<DomainHealthResult> {
  const now = deps.now();
  const result: DomainHealthResult = { checked: 0, problems: [] };
  const nc = namecheapSetup(deps.env).config;
  const cf = cloudflareSetup(deps.env).config;
  if (!nc && !cf) return result;
  const rows = await domainsDueForHealthCheck(deps.db, now - HEALTH_EVERY_MS, ROWS_PER_RUN);
  if (!rows.length) return result;

  // One list of the Worker's custom domains for all rows; null when it could not be read.
  let attached: Set<string> | null = null;
  if (cf) {
    const cloudflare = createCloudflare(cf, { fetch: deps.fetch, sleep: deps.sleep, timeoutMs: deps.timeoutMs });
    try {
      attached = new Set((await cloudflare.workerDomains({ service: cloudflare.workerName })).map((d) => d.hostname.toLowerCase()));
    } catch (err) {
      if (!(err instanceof ExternalApiError)) throw err;
      result.problems.push(`Cloudflare: ${err.message}`);
    }
  }
  const namecheap = nc ? createNamecheap(nc, { fetch: deps.fetch, connect: deps.connect, timeoutMs: deps.timeoutMs, now: deps.now }) : null;
  for (const row of rows) {
    let expiresAt = row.expiresAt;
    if (namecheap) {
      try {
        expiresAt = (await namecheap.findInAccount(row.domain))?.expiresAt ?? expiresAt;
      } catch (err) {
        if (!(err instanceof ExternalApiError)) throw err;
        result.problems.push(`${row.domain}: ${err.message}`);
      }
    }
    const host = hostOf(row)!.toLowerCase();
    // Detached since the first check that missed it; attached again clears it, so a later detachment is new.
    const detachedAt = attached === null ? row.detachedAt : attached.has(host) ? null : (row.detachedAt ?? now);
    await machine.record(deps.db, row.id, ["active"], { expiresAt, detachedAt, healthCheckedAt: now }, now);
    result.checked++;
  }
  return result;
}
