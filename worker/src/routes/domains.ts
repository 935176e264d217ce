import { Hono } from "hono";
import { listDomains, type DomainRow } from "../db/queries/domains";
import { cloudflareSetup, describeRoute, NAMECHEAP_SANDBOX_URL, namecheapSetup } from "../domains/config";
import { configureDomain, deleteDomain, hostOf, migrateToWorkers, updateNameservers } from "../domains/configure";
import { maxPriceCents, requestDeps } from "../domains/context";
import { testProxy } from "../domains/proxy-test";
import { checkDomain, purchaseDomain } from "../domains/purchase";
import type { AppEnv } from "../env";
import { formatCents, formatCentsOrNull, parseCents } from "../lib/money";
import { iso, isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { configureBodySchema, domainBodySchema, purchaseBodySchema } from "../schemas/domains";

/** What the screen says under a status while nothing is wrong. */
function noteFor(row: DomainRow, busy: boolean): string | null {
  if (row.errorMessage) return null;
  if (row.status === "purchasing") return "Buying at Namecheap…";
  if (row.status === "configuring_dns" && busy) return "Setting up Cloudflare…";
  if (row.status === "configuring_dns") return "Waiting for Cloudflare to activate the zone (checked every 15 minutes).";
  return null;
}

/** A domain row as the screens use it (the product's fields, plus the host and what is going on). */
export function domainJson(row: DomainRow, now = Date.now()) {
  const busy = row.leaseUntil !== null && row.leaseUntil >= now;
  return {
    id: row.id,
    domain: row.domain,
    subdomain: row.subdomain,
    host: hostOf(row),
    status: row.status,
    createdAt: iso(row.createdAt),
    purchasedAt: isoOrNull(row.purchasedAt),
    configuredAt: isoOrNull(row.configuredAt),
    purchaseOrderId: row.purchaseOrderId,
    purchaseAmount: formatCentsOrNull(row.purchaseAmountCents),
    errorMessage: row.errorMessage,
    cloudflareZoneId: row.cloudflareZoneId,
    zoneStatus: row.zoneStatus,
    nameservers: row.nameservers ?? [],
    busy,
    note: noteFor(row, busy),
  };
}

const rowJson = (row: DomainRow | null) => (row ? domainJson(row) : null);

export const domainRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const now = Date.now();
    return c.json(
      (await listDomains(c.get("db"))).map((row) => domainJson(row, now)),
      200,
    );
  })

  /** What is set up and what is missing, for the screen to say once. */
  .get("/setup", async (c) => {
    const nc = namecheapSetup(c.env);
    const cf = cloudflareSetup(c.env);
    return c.json(
      {
        namecheap: {
          configured: nc.config !== null,
          problems: nc.problems,
          route: describeRoute(nc.config?.route),
          mode: nc.config?.route.mode ?? null,
          apiHost: nc.config?.apiUrl.host ?? null,
          sandbox: nc.config?.apiUrl.toString() === NAMECHEAP_SANDBOX_URL,
        },
        cloudflare: { configured: cf.config !== null, problems: cf.problems, workerName: cf.config?.workerName ?? null },
        maxPrice: formatCents(await maxPriceCents(c.get("db"))),
      },
      200,
    );
  })

  .post("/check", validate("json", domainBodySchema), async (c) => {
    return c.json(await checkDomain(requestDeps(c), c.req.valid("json").domain), 200);
  })

  .post("/purchase", validate("json", purchaseBodySchema), async (c) => {
    const { domain, price } = c.req.valid("json");
    const answer = await purchaseDomain(requestDeps(c), domain, parseCents(price)!);
    // 202: not confirmed yet (the row stays Purchasing until the Namecheap account says).
    return c.json({ ...answer, domain: rowJson(answer.domain) }, answer.pending ? 202 : 200);
  })

  .post("/test-proxy", async (c) => c.json(await testProxy(requestDeps(c)), 200))

  .post("/:id/configure", validate("param", idParam), validate("json", configureBodySchema), async (c) => {
    const answer = await configureDomain(requestDeps(c), c.req.valid("param").id, c.req.valid("json").subdomain);
    return c.json({ ...answer, domain: rowJson(answer.domain) }, 200);
  })

  .post("/:id/update-nameservers", validate("param", idParam), async (c) => {
    const answer = await updateNameservers(requestDeps(c), c.req.valid("param").id);
    return c.json({ ...answer, domain: rowJson(answer.domain) }, 200);
  })

  .post("/:id/migrate-to-workers", validate("param", idParam), async (c) => {
    const answer = await migrateToWorkers(requestDeps(c), c.req.valid("param").id);
    return c.json({ ...answer, domain: rowJson(answer.domain) }, 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const answer = await deleteDomain(requestDeps(c), c.req.valid("param").id);
    return c.json({ success: true, ...answer }, 200);
  });
