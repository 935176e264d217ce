/**
 * The Cloudflare v4 API calls domain automation makes: zones (create or reuse, status, activation
 * re-check), DNS records of the tracking hostname (only ever that one: never the apex), and Workers
 * Custom Domains (attach, list, detach).
 *
 * - Envelope `{ success, errors: [{code, message}], result, result_info }`, bearer token.
 * - 429 waits as long as Retry-After says (bounded) and tries again; 5xx, Cloudflare's internal
 *   error 10013 and network failures are retried twice. Every call made here is safe to repeat:
 *   creating an existing zone answers 1061 and the zone is reused, attaching an attached hostname
 *   is a no-op, detaching a detached one is success.
 * - A 403 / code 10000 names the token permission the refused call needs.
 */
import { ExternalApiError, isRecord, type FetchFn } from "../integrations/http";
import { sleep as realSleep } from "../lib/retry";
import type { CloudflareConfig } from "./config";

export type Permission = "Zone Read" | "Zone Edit" | "DNS Edit" | "Workers Scripts Edit";

/** Every permission the token needs (README, "Domain automation"). */
export const TOKEN_PERMISSIONS: readonly Permission[] = ["Zone Read", "Zone Edit", "DNS Edit", "Workers Scripts Edit"];

export class CloudflareError extends ExternalApiError {
  constructor(
    message: string,
    readonly status: number,
    readonly codes: number[],
    retryable = false,
  ) {
    super("Cloudflare", message, retryable, codes[0] === undefined ? undefined : String(codes[0]));
    this.name = "CloudflareError";
  }
  has(code: number) {
    return this.codes.includes(code);
  }
}

export interface Zone {
  id: string;
  name: string;
  /** initializing | pending | active | moved | ... */
  status: string;
  nameServers: string[];
}

export interface DnsRecord {
  id: string;
  type: string;
  name: string;
  content: string;
}

export interface WorkerDomain {
  id: string;
  hostname: string;
  service: string;
  zoneId: string;
}

export interface CloudflareDeps {
  fetch?: FetchFn;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
  /** Waits before retrying 5xx, 10013 and network failures. */
  retryDelaysMs?: readonly number[];
}

export const CODES = {
  zoneExists: 1061,
  /** An existing DNS record for the hostname blocks attaching a custom domain. */
  hostnameHasRecord: 100117,
  authentication: 10000,
  internal: 10013,
} as const;

const MAX_RATE_LIMIT_WAITS = 3;
const MAX_RETRY_AFTER_S = 60;
const DEFAULT_RETRY_AFTER_S = 5;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRY_DELAYS_MS = [1_000, 3_000] as const;
const ZONE_NOT_FOUND = [1001, 7003, 10083];
const BAD_TOKEN = [1000, 6003, 6111, 9106, 9109];

interface Call {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  permission: Permission;
  /** "create the zone brightdeals.xyz": finishes "needed to …" and "could not …". */
  purpose: string;
}

interface Envelope {
  status: number;
  success: boolean;
  errors: { code: number; message: string }[];
  result: unknown;
  retryAfter: string | null;
}

/** Retry-After in seconds: a number of seconds or an HTTP date; missing or unreadable: a default. */
function retryAfterSeconds(header: string | null): number {
  if (header === null || header.trim() === "") return DEFAULT_RETRY_AFTER_S;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : DEFAULT_RETRY_AFTER_S;
}

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));

function toZone(v: unknown): Zone {
  const r = isRecord(v) ? v : {};
  return {
    id: str(r.id),
    name: str(r.name),
    status: str(r.status),
    nameServers: Array.isArray(r.name_servers) ? r.name_servers.map((n) => str(n).toLowerCase()) : [],
  };
}

const toRecord = (v: unknown): DnsRecord => {
  const r = isRecord(v) ? v : {};
  return { id: str(r.id), type: str(r.type), name: str(r.name), content: str(r.content) };
};

const toWorkerDomain = (v: unknown): WorkerDomain => {
  const r = isRecord(v) ? v : {};
  return { id: str(r.id), hostname: str(r.hostname), service: str(r.service), zoneId: str(r.zone_id) };
};

const list = <T>(v: unknown, map: (x: unknown) => T) => (Array.isArray(v) ? v.map(map) : []);

export function createCloudflare(config: CloudflareConfig, deps: CloudflareDeps = {}) {
  const fetchFn = deps.fetch ?? ((input, init) => fetch(input, init));
  const wait = deps.sleep ?? realSleep;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryDelays = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const account = `/accounts/${config.accountId}`;

  async function once(c: Call): Promise<Envelope> {
    const url = new URL(`${config.apiUrl}${c.path}`);
    for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await fetchFn(url.toString(), {
        method: c.method,
        headers: { authorization: `Bearer ${config.token}`, "content-type": "application/json", accept: "application/json" },
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const reason =
        err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")
          ? "it did not answer in time"
          : err instanceof Error
            ? err.message
            : String(err);
      throw new CloudflareError(`Could not reach Cloudflare to ${c.purpose}: ${reason}`, 0, [], true);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return {
        status: res.status,
        success: false,
        errors: [{ code: 0, message: `HTTP ${res.status} with a body that is not JSON` }],
        result: null,
        retryAfter: res.headers.get("retry-after"),
      };
    }
    const b = isRecord(body) ? body : {};
    const errors = Array.isArray(b.errors)
      ? b.errors.map((e) => (isRecord(e) ? { code: Number(e.code) || 0, message: str(e.message) } : { code: 0, message: str(e) }))
      : [];
    return { status: res.status, success: b.success === true && res.ok, errors, result: b.result, retryAfter: res.headers.get("retry-after") };
  }

  function failure(c: Call, e: Envelope): CloudflareError {
    const codes = e.errors.map((x) => x.code);
    const said = e.errors.map((x) => `${x.message || "error"}${x.code ? ` (${x.code})` : ""}`).join("; ") || `HTTP ${e.status}`;
    if (e.status === 401 || codes.some((code) => BAD_TOKEN.includes(code))) {
      return new CloudflareError(
        `Cloudflare rejected CLOUDFLARE_API_TOKEN (invalid, expired or rolled): ${said}. Create a token with ${TOKEN_PERMISSIONS.join(", ")}.`,
        e.status,
        codes,
      );
    }
    if (e.status === 403 || codes.includes(CODES.authentication)) {
      const scope = c.permission === "Workers Scripts Edit" ? "for the account" : "for all zones of the account";
      return new CloudflareError(
        `The Cloudflare API token lacks the ${c.permission} permission, needed to ${c.purpose}. Edit the token (Cloudflare → My Profile → API Tokens) and add ${c.permission} ${scope}.`,
        e.status,
        codes,
      );
    }
    const retryable = e.status >= 500 || codes.includes(CODES.internal);
    return new CloudflareError(`Cloudflare could not ${c.purpose}: ${said}`, e.status, codes, retryable);
  }

  async function request(c: Call): Promise<unknown> {
    let rateLimited = 0;
    let retried = 0;
    for (;;) {
      let envelope: Envelope;
      try {
        envelope = await once(c);
      } catch (err) {
        const delay = retryDelays[retried++];
        if (delay === undefined || !(err instanceof CloudflareError)) throw err;
        await wait(delay);
        continue;
      }
      if (envelope.success) return envelope.result;
      if (envelope.status === 429 && rateLimited < MAX_RATE_LIMIT_WAITS) {
        rateLimited++;
        await wait(1000 * Math.min(retryAfterSeconds(envelope.retryAfter), MAX_RETRY_AFTER_S));
        continue;
      }
      if (envelope.status === 429) {
        throw new CloudflareError(
          `Cloudflare is rate limiting this token (about 1,200 calls per 5 minutes); could not ${c.purpose}. Try again in a few minutes.`,
          429,
          envelope.errors.map((x) => x.code),
          true,
        );
      }
      const err = failure(c, envelope);
      const delay = err.retryable ? retryDelays[retried++] : undefined;
      if (delay === undefined) throw err;
      await wait(delay);
    }
  }

  async function findZone(name: string): Promise<Zone | null> {
    const result = await request({
      method: "GET",
      path: "/zones",
      query: { name, "account.id": config.accountId },
      permission: "Zone Read",
      purpose: `look up the zone ${name}`,
    });
    const zone = list(result, toZone).find((z) => z.name.toLowerCase() === name);
    return zone ?? null;
  }

  return {
    workerName: config.workerName,

    findZone,

    /** The zone by id; null when Cloudflare no longer has it. */
    async getZone(id: string): Promise<Zone | null> {
      try {
        return toZone(await request({ method: "GET", path: `/zones/${encodeURIComponent(id)}`, permission: "Zone Read", purpose: "read the zone's status" }));
      } catch (err) {
        if (err instanceof CloudflareError && (err.status === 404 || err.codes.some((c) => ZONE_NOT_FOUND.includes(c)))) return null;
        throw err;
      }
    },

    /** Creates the zone, or finds and reuses it when it already exists in this account. */
    async createZone(name: string): Promise<{ zone: Zone; reused: boolean }> {
      try {
        const zone = toZone(
          await request({
            method: "POST",
            path: "/zones",
            body: { name, account: { id: config.accountId }, type: "full" },
            permission: "Zone Edit",
            purpose: `create the zone ${name}`,
          }),
        );
        return { zone, reused: false };
      } catch (err) {
        if (!(err instanceof CloudflareError && err.has(CODES.zoneExists))) throw err;
        const zone = await findZone(name);
        if (!zone) {
          throw new CloudflareError(
            `${name} is already a zone at Cloudflare, but not in this account (CLOUDFLARE_ACCOUNT_ID). Remove it from the other account first.`,
            err.status,
            err.codes,
          );
        }
        return { zone, reused: true };
      }
    },

    /** Asks Cloudflare to look at the nameservers again (it allows one an hour on the Free plan). */
    async activationCheck(zoneId: string): Promise<void> {
      await request({
        method: "PUT",
        path: `/zones/${encodeURIComponent(zoneId)}/activation_check`,
        permission: "Zone Edit",
        purpose: "ask Cloudflare to re-check the nameservers",
      });
    },

    async recordsFor(zoneId: string, hostname: string): Promise<DnsRecord[]> {
      const result = await request({
        method: "GET",
        path: `/zones/${encodeURIComponent(zoneId)}/dns_records`,
        query: { name: hostname, per_page: "100" },
        permission: "DNS Edit",
        purpose: `read the DNS records of ${hostname}`,
      });
      return list(result, toRecord).filter((r) => r.name.toLowerCase() === hostname);
    },

    async deleteRecord(zoneId: string, record: DnsRecord): Promise<void> {
      try {
        await request({
          method: "DELETE",
          path: `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(record.id)}`,
          permission: "DNS Edit",
          purpose: `delete the ${record.type} record of ${record.name}`,
        });
      } catch (err) {
        if (!(err instanceof CloudflareError && err.status === 404)) throw err;
      }
    },

    async workerDomains(filter: { hostname?: string; service?: string } = {}): Promise<WorkerDomain[]> {
      const query: Record<string, string> = {};
      if (filter.hostname) query.hostname = filter.hostname;
      if (filter.service) query.service = filter.service;
      const result = await request({
        method: "GET",
        path: `${account}/workers/domains`,
        query,
        permission: "Workers Scripts Edit",
        purpose: "list the Worker's custom domains",
      });
      return list(result, toWorkerDomain).filter(
        (d) => (!filter.hostname || d.hostname.toLowerCase() === filter.hostname) && (!filter.service || d.service === filter.service),
      );
    },

    /** Attaches `hostname` to this Worker; Cloudflare creates its DNS record and certificate. */
    async attachWorkerDomain(hostname: string, zoneId: string): Promise<WorkerDomain> {
      return toWorkerDomain(
        await request({
          method: "PUT",
          path: `${account}/workers/domains`,
          body: { hostname, service: config.workerName, zone_id: zoneId },
          permission: "Workers Scripts Edit",
          purpose: `attach ${hostname} to the Worker ${config.workerName}`,
        }),
      );
    },

    async detachWorkerDomain(domain: WorkerDomain): Promise<void> {
      try {
        await request({
          method: "DELETE",
          path: `${account}/workers/domains/${encodeURIComponent(domain.id)}`,
          permission: "Workers Scripts Edit",
          purpose: `detach ${domain.hostname} from the Worker`,
        });
      } catch (err) {
        if (!(err instanceof CloudflareError && err.status === 404)) throw err;
      }
    },
  };
}

export type Cloudflare = ReturnType<typeof createCloudflare>;
