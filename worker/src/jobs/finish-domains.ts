import { domainsNeedingWork } from "../db/queries/domains";
import type { Db, Bindings } from "../env";
import { createCloudflare } from "../domains/cloudflare";
import { cloudflareSetup, namecheapSetup } from "../domains/config";
import { advanceConfiguration } from "../domains/configure";
import type { DomainDeps } from "../domains/context";
import { checkDomainHealth } from "../domains/health";
import { createNamecheap } from "../domains/namecheap";
import { PURCHASE_IN_FLIGHT_MS, reconcilePurchase } from "../domains/purchase";
import type { Job } from "./index";

/** Rows looked at per run: each costs a few calls, and Namecheap takes about 20 a minute. */
const ROWS_PER_RUN = 10;

export interface FinishDomainsResult {
  purchasesChecked: number;
  zonesChecked: number;
}

/**
 * Finishes what admins started and then left: purchases whose answer was lost are settled from the
 * Namecheap account, and configurations waiting for Cloudflare to activate the zone are attached
 * once it is active. Settings that are missing make it do nothing (the Domains screen says what is
 * missing), so an unconfigured install logs nothing every 15 minutes.
 */
export async function finishDomains(deps: DomainDeps & { db: Db; env: Bindings; now: () => number }): Promise<FinishDomainsResult> {
  const result: FinishDomainsResult = { purchasesChecked: 0, zonesChecked: 0 };
  const now = deps.now();
  const rows = await domainsNeedingWork(deps.db, now, ROWS_PER_RUN);
  if (!rows.length) return result;
  const nc = namecheapSetup(deps.env).config;
  const cf = cloudflareSetup(deps.env).config;
  if (!nc) return result;
  const namecheap = createNamecheap(nc, { fetch: deps.fetch, connect: deps.connect, timeoutMs: deps.timeoutMs, now: deps.now });
  const cloudflare = cf ? createCloudflare(cf, { fetch: deps.fetch, sleep: deps.sleep, timeoutMs: deps.timeoutMs }) : null;
  for (const row of rows) {
    if (row.status === "purchasing") {
      // A purchase this young still belongs to the request sending it.
      if (now - (row.purchaseStartedAt ?? row.createdAt) < PURCHASE_IN_FLIGHT_MS) continue;
      await reconcilePurchase(deps, namecheap, row.id);
      result.purchasesChecked++;
    } else if (cloudflare) {
      const step = await advanceConfiguration(deps, namecheap, cloudflare, row.id);
      if (step) result.zonesChecked++;
      if (step && !step.success) console.warn(`finish-domains: ${row.domain}: ${step.message}`);
    }
  }
  return result;
}

export const finishDomainsJob: Job = {
  name: "finish-domains",
  async run({ db, env, now }) {
    await finishDomains({ db, env, now: () => now });
    // Then the active domains' expiry and attachment, which the built-in alerts read (docs/alerts.md).
    const health = await checkDomainHealth({ db, env, now: () => now });
    if (health.problems.length) console.warn(`finish-domains: domains check: ${health.problems.join("; ")}`);
  },
};
