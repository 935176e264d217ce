/**
 * What every domain step needs: the database, the Worker's settings, and the Namecheap and
 * Cloudflare clients built from them. Tests put the fakes and short waits in `fetch`, `connect`,
 * `sleep` and `timeoutMs`; routes and the cron use the runtime's own.
 */
import type { Actor } from "../audit/record";
import type { Context } from "hono";
import type { AppEnv, Bindings, Db } from "../env";
import { clientIp } from "../lib/request";
import { ApiError } from "../lib/errors";
import type { FetchFn } from "../integrations/http";
import { parseCents } from "../lib/money";
import { readSettings } from "../db/queries/settings";
import { DEFAULT_MAX_DOMAIN_PRICE } from "../schemas/settings";
import { createCloudflare, type Cloudflare } from "./cloudflare";
import { cloudflareSetup, namecheapSetup } from "./config";
import { createNamecheap, type Namecheap } from "./namecheap";
import type { ConnectFn } from "./socks5";

export interface DomainDeps {
  db: Db;
  env: Bindings;
  /** Who runs the step, for its audit entries: the admin of the request; the cron when omitted. */
  actor?: { actor: Actor; ip: string | null };
  now?: () => number;
  fetch?: FetchFn;
  connect?: ConnectFn;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

export const nowOf = (deps: DomainDeps) => (deps.now ?? Date.now)();

/**
 * A request's deps, with its admin as the actor of the steps' audit entries. The steps write those
 * entries themselves (step-log.ts): before each outside change, and with the transition that ends
 * the step, so a failure half-way still leaves what was done on record.
 */
export function requestDeps(c: Context<AppEnv>): DomainDeps {
  const user = c.get("user");
  const actor = user ? { id: user.id, username: user.username } : { id: null, username: "anonymous" };
  return { db: c.get("db"), env: c.env, actor: { actor, ip: clientIp(c.req.raw) } };
}

const notSetUp = (what: string, problems: string[]) =>
  new ApiError(409, `${what} is not set up: ${problems.join("; ")}. See the README, "Domain automation".`, problems);

/** The Namecheap client; 409 naming what is missing when it is not configured. */
export function namecheapFor(deps: DomainDeps): Namecheap {
  const { config, problems } = namecheapSetup(deps.env);
  if (!config) throw notSetUp("Namecheap", problems);
  return createNamecheap(config, { fetch: deps.fetch, connect: deps.connect, timeoutMs: deps.timeoutMs, now: deps.now });
}

/** The Cloudflare client; 409 naming what is missing when it is not configured. */
export function cloudflareFor(deps: DomainDeps): Cloudflare {
  const { config, problems } = cloudflareSetup(deps.env);
  if (!config) throw notSetUp("Cloudflare", problems);
  return createCloudflare(config, { fetch: deps.fetch, sleep: deps.sleep, timeoutMs: deps.timeoutMs });
}

/** The Maximum Domain Price setting in cents (default 5.00). */
export async function maxPriceCents(db: Db): Promise<number> {
  const { max_domain_price } = await readSettings(db);
  return parseCents(max_domain_price) ?? parseCents(DEFAULT_MAX_DOMAIN_PRICE)!;
}
