/**
 * Reads of the domains table. Every write goes through the state machine
 * (worker/src/domains/machine.ts), so each change of a domain is one batch in one place.
 */
import { and, asc, desc, eq, inArray, isNotNull, ne, or, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { domains, type DomainStatus } from "../schema";

export type DomainRow = typeof domains.$inferSelect;

export const listDomains = (db: Db) => db.select().from(domains).orderBy(desc(domains.createdAt), desc(domains.id));

export const getDomain = (db: Db, id: number) => db.select().from(domains).where(eq(domains.id, id)).get();

export const getDomainByName = (db: Db, name: string) => db.select().from(domains).where(eq(domains.domain, name)).get();

/** Rows the cron has work for: purchases to confirm and configurations waiting on Cloudflare, not held by a step. */
export const domainsNeedingWork = (db: Db, now: number, limit: number) =>
  db
    .select()
    .from(domains)
    .where(
      and(inArray(domains.status, ["purchasing", "configuring_dns"] satisfies DomainStatus[]), or(isNull(domains.leaseUntil), lt(domains.leaseUntil, now))),
    )
    .orderBy(asc(domains.id))
    .limit(limit);

/** Active domains with a tracking subdomain: the hostnames that should be this Worker's custom domains. */
export const activeTrackingDomains = (db: Db) =>
  db
    .select()
    .from(domains)
    .where(and(eq(domains.status, "active"), isNotNull(domains.subdomain), ne(domains.subdomain, "")))
    .orderBy(asc(domains.domain));

/**
 * Active tracking domains the domains check has not looked at since `before` (never-checked ones
 * first, then the longest ago): a few per run, as Namecheap takes about 20 calls a minute.
 */
export const domainsDueForHealthCheck = (db: Db, before: number, limit: number) =>
  db
    .select()
    .from(domains)
    .where(
      and(
        eq(domains.status, "active"),
        isNotNull(domains.subdomain),
        ne(domains.subdomain, ""),
        or(isNull(domains.healthCheckedAt), lt(domains.healthCheckedAt, before)),
      ),
    )
    .orderBy(sql`${domains.healthCheckedAt} is not null`, asc(domains.healthCheckedAt), asc(domains.id))
    .limit(limit);
