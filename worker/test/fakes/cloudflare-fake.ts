/**
 * A local stand-in for the Cloudflare v4 API calls domain automation makes (README, "Domain
 * automation"), answering with the documented envelope `{ success, errors: [{code, message}],
 * messages, result, result_info }` and error codes:
 * - zones: create (1061 when the name is already a zone), list by name and account, read, and
 *   the activation re-check; a new zone is `pending` until the registrar's nameservers point at it
 *   (`delegated`) and a re-check or Cloudflare's own look has seen them;
 * - DNS records of a zone (read, delete);
 * - Workers Custom Domains: attach (PUT; 100117 when a DNS record of the hostname is in the way),
 *   list, detach;
 * - bearer tokens with permissions: a call without its permission answers 403 code 10000; a wrong
 *   token 400 code 1000; 429 with Retry-After and timeouts on demand.
 * ⚠ marks answers no primary source confirms (what Cloudflare says for a pending zone's custom
 * domain, or a second activation check within the hour); Trackyard never relies on their codes.
 *
 * Plain fetch handlers, like the other fakes: injected in worker tests, served by scripts/fakes.mjs.
 */
import { hangUntilAborted } from "./hang";

export type FakePermission = "Zone Read" | "Zone Edit" | "DNS Edit" | "Workers Scripts Edit";
export const ALL_PERMISSIONS: FakePermission[] = ["Zone Read", "Zone Edit", "DNS Edit", "Workers Scripts Edit"];

export type CloudflareFailure = {
  /** "POST /zones", "PUT /workers/domains", ...: the method and the path's tail; any call when omitted. */
  match?: string;
} & ({ kind: "status"; status: number; errors?: { code: number; message: string }[]; retryAfter?: string } | { kind: "timeout" });

export interface CloudflareFakeOptions {
  token?: string;
  accountId?: string;
  permissions?: FakePermission[];
  /** The pair new zones are given. */
  nameServers?: [string, string];
  /** How long after an activation check a delegated zone turns active (Cloudflare is not instant). */
  activationDelayMs?: number;
  /** Whether the registrar points the zone's name at these nameservers; by default always. */
  delegated?: (zoneName: string, nameServers: string[]) => boolean;
  /** One activation re-check per zone in this interval (the Free plan: an hour). */
  activationCheckIntervalMs?: number;
  now?: () => number;
}

interface FakeZone {
  id: string;
  name: string;
  status: "initializing" | "pending" | "active" | "moved";
  name_servers: string[];
  accountId: string;
  activationRequestedAt: number | null;
  activationChecks: number;
  created_on: string;
}

interface FakeRecord {
  id: string;
  zone_id: string;
  type: string;
  name: string;
  content: string;
  proxied: boolean;
}

interface FakeWorkerDomain {
  id: string;
  hostname: string;
  service: string;
  zone_id: string;
  zone_name: string;
}

const hex = (n: number, seed: string) => {
  let h = 0;
  for (const ch of seed) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return (Math.abs(h).toString(16) + n.toString(16).padStart(8, "0") + "0".repeat(32)).slice(0, 32);
};

const envelope = (status: number, result: unknown, extra: Record<string, unknown> = {}) =>
  new Response(JSON.stringify({ success: status < 400, errors: [], messages: [], result, ...extra }), {
    status,
    headers: { "content-type": "application/json" },
  });

const failure = (status: number, errors: { code: number; message: string }[], headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ success: false, errors, messages: [], result: null }), { status, headers: { "content-type": "application/json", ...headers } });

const listOf = <T>(items: T[]) =>
  envelope(200, items, { result_info: { page: 1, per_page: 50, count: items.length, total_count: items.length, total_pages: 1 } });

export function createCloudflareFake(options: CloudflareFakeOptions = {}) {
  const now = options.now ?? Date.now;
  const state = {
    token: options.token ?? "cloudflare-test-token",
    accountId: options.accountId ?? "0123456789abcdef0123456789abcdef",
    permissions: new Set<FakePermission>(options.permissions ?? ALL_PERMISSIONS),
    nameServers: options.nameServers ?? ["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"],
    activationDelayMs: options.activationDelayMs ?? 0,
    activationCheckIntervalMs: options.activationCheckIntervalMs ?? 60 * 60 * 1000,
    delegated: options.delegated ?? (() => true),
    zones: new Map<string, FakeZone>(),
    records: new Map<string, FakeRecord>(),
    workerDomains: new Map<string, FakeWorkerDomain>(),
    requests: [] as { method: string; path: string; query: string }[],
    failures: [] as CloudflareFailure[],
  };
  let seq = 1;

  const zoneByName = (name: string) => [...state.zones.values()].find((z) => z.name === name.toLowerCase());

  /** A pending zone turns active once the registrar points at it and a re-check has had time to see it. */
  function settle(zone: FakeZone) {
    if (zone.status !== "pending" || zone.activationRequestedAt === null) return;
    if (now() - zone.activationRequestedAt >= state.activationDelayMs && state.delegated(zone.name, zone.name_servers)) zone.status = "active";
  }

  const zoneJson = (z: FakeZone) => {
    settle(z);
    return {
      id: z.id,
      name: z.name,
      status: z.status,
      paused: false,
      type: "full",
      development_mode: 0,
      name_servers: z.name_servers,
      original_name_servers: ["dns1.registrar-servers.com", "dns2.registrar-servers.com"],
      original_registrar: "namecheap, inc.",
      account: { id: z.accountId, name: "Trackyard" },
      created_on: z.created_on,
      modified_on: z.created_on,
      activated_on: z.status === "active" ? new Date(now()).toISOString() : null,
    };
  };

  function addZone(name: string, init: Partial<Pick<FakeZone, "status" | "accountId">> = {}): FakeZone {
    const zone: FakeZone = {
      id: hex(seq++, name),
      name: name.toLowerCase(),
      status: init.status ?? "pending",
      name_servers: [...state.nameServers],
      accountId: init.accountId ?? state.accountId,
      activationRequestedAt: null,
      activationChecks: 0,
      created_on: new Date(now()).toISOString(),
    };
    state.zones.set(zone.id, zone);
    return zone;
  }

  function addRecord(zoneName: string, record: { type: string; name: string; content: string; proxied?: boolean }): FakeRecord {
    const zone = zoneByName(zoneName) ?? addZone(zoneName);
    const r: FakeRecord = {
      id: hex(seq++, record.name),
      zone_id: zone.id,
      type: record.type,
      name: record.name.toLowerCase(),
      content: record.content,
      proxied: record.proxied ?? true,
    };
    state.records.set(r.id, r);
    return r;
  }

  function addWorkerDomain(hostname: string, service: string, zoneName: string): FakeWorkerDomain {
    const zone = zoneByName(zoneName) ?? addZone(zoneName, { status: "active" });
    const d: FakeWorkerDomain = { id: hex(seq++, hostname), hostname: hostname.toLowerCase(), service, zone_id: zone.id, zone_name: zone.name };
    state.workerDomains.set(d.id, d);
    return d;
  }

  const refuse = () => failure(403, [{ code: 10000, message: "Authentication error" }]);

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/client\/v4/, "");
    const method = request.method;
    state.requests.push({ method, path, query: url.search });

    const tail = path
      .replace(/^\/accounts\/[^/]+/, "")
      .replace(/\/zones\/[^/]+/, "/zones/:id")
      .replace(/\/(dns_records|domains)\/[^/]+$/, "/$1/:id");
    const index = state.failures.findIndex((f) => !f.match || f.match === `${method} ${tail}`);
    const injected = index >= 0 ? state.failures.splice(index, 1)[0] : undefined;
    if (injected?.kind === "timeout") return hangUntilAborted(request.signal);
    if (injected?.kind === "status") {
      return failure(
        injected.status,
        injected.errors ?? [
          {
            code: injected.status === 429 ? 971 : 10013,
            message: injected.status === 429 ? "Please wait and consider throttling your request speed" : "Internal error",
          },
        ],
        injected.retryAfter ? { "retry-after": injected.retryAfter } : {},
      );
    }

    const auth = request.headers.get("authorization") ?? "";
    if (!/^Bearer \S+$/.test(auth)) return failure(400, [{ code: 6003, message: "Invalid request headers" }]);
    if (auth !== `Bearer ${state.token}`) return failure(400, [{ code: 1000, message: "Invalid API Token" }]);
    const can = (p: FakePermission) => state.permissions.has(p);
    const body = method === "POST" || method === "PUT" ? ((await request.json().catch(() => ({}))) as Record<string, unknown>) : {};

    // Zones
    if (path === "/zones" && method === "GET") {
      if (!can("Zone Read")) return refuse();
      const name = url.searchParams.get("name");
      const account = url.searchParams.get("account.id");
      return listOf([...state.zones.values()].filter((z) => (!name || z.name === name.toLowerCase()) && (!account || z.accountId === account)).map(zoneJson));
    }
    if (path === "/zones" && method === "POST") {
      if (!can("Zone Edit")) return refuse();
      const name = String(body.name ?? "").toLowerCase();
      const account = (body.account as { id?: string } | undefined)?.id;
      if (!name) return failure(400, [{ code: 1002, message: "Invalid or missing zone name" }]);
      if (account !== state.accountId) return refuse();
      if (zoneByName(name)) return failure(400, [{ code: 1061, message: `${name} already exists` }]);
      return envelope(200, zoneJson(addZone(name)));
    }
    const zoneMatch = /^\/zones\/([^/]+)(\/.*)?$/.exec(path);
    if (zoneMatch) {
      const zone = state.zones.get(zoneMatch[1]!);
      const rest = zoneMatch[2] ?? "";
      const needs: FakePermission = rest.startsWith("/dns_records") ? "DNS Edit" : method === "GET" ? "Zone Read" : "Zone Edit";
      if (!can(needs)) return refuse();
      if (!zone || zone.accountId !== state.accountId)
        return failure(404, [{ code: 7003, message: `Could not route to /zones/${zoneMatch[1]}, perhaps your object identifier is invalid?` }]);
      if (rest === "" && method === "GET") return envelope(200, zoneJson(zone));
      if (rest === "/activation_check" && method === "PUT") {
        settle(zone);
        if (zone.status === "active") return failure(400, [{ code: 1224, message: "Zone is already active" }]); // ⚠
        if (zone.activationRequestedAt !== null && now() - zone.activationRequestedAt < state.activationCheckIntervalMs) {
          return failure(429, [{ code: 1224, message: "You may only request an activation check once per hour" }]); // ⚠
        }
        zone.activationRequestedAt = now();
        zone.activationChecks++;
        return envelope(200, { id: zone.id });
      }
      if (rest === "/dns_records" && method === "GET") {
        const name = url.searchParams.get("name")?.toLowerCase();
        return listOf([...state.records.values()].filter((r) => r.zone_id === zone.id && (!name || r.name === name)));
      }
      const recordMatch = /^\/dns_records\/([^/]+)$/.exec(rest);
      if (recordMatch && method === "DELETE") {
        const record = state.records.get(recordMatch[1]!);
        if (!record || record.zone_id !== zone.id) return failure(404, [{ code: 81044, message: "Record does not exist." }]);
        state.records.delete(record.id);
        return envelope(200, { id: record.id });
      }
    }

    // Workers Custom Domains
    const accountMatch = /^\/accounts\/([^/]+)\/workers\/domains(?:\/([^/]+))?$/.exec(path);
    if (accountMatch) {
      if (accountMatch[1] !== state.accountId || !can("Workers Scripts Edit")) return refuse();
      const id = accountMatch[2];
      if (!id && method === "GET") {
        const q = (k: string) => url.searchParams.get(k);
        return listOf(
          [...state.workerDomains.values()].filter(
            (d) =>
              (!q("hostname") || d.hostname === q("hostname")!.toLowerCase()) &&
              (!q("service") || d.service === q("service")) &&
              (!q("zone_id") || d.zone_id === q("zone_id")),
          ),
        );
      }
      if (!id && method === "PUT") {
        const hostname = String(body.hostname ?? "").toLowerCase();
        const service = String(body.service ?? "");
        const zone = state.zones.get(String(body.zone_id ?? "")) ?? [...state.zones.values()].find((z) => hostname.endsWith(`.${z.name}`));
        if (!hostname || !service) return failure(400, [{ code: 100100, message: "hostname and service are required" }]);
        if (!zone || zone.accountId !== state.accountId) return failure(404, [{ code: 10083, message: "Zone not found" }]);
        if (hostname !== zone.name && !hostname.endsWith(`.${zone.name}`))
          return failure(400, [{ code: 100101, message: `${hostname} is not in the zone ${zone.name}` }]);
        settle(zone);
        if (zone.status !== "active") return failure(409, [{ code: 100116, message: "The zone is not active yet" }]); // ⚠
        const current = [...state.workerDomains.values()].find((d) => d.hostname === hostname);
        if (current && current.service === service) return envelope(200, current);
        if (current) return failure(409, [{ code: 100118, message: `${hostname} is already attached to the Worker ${current.service}` }]); // ⚠
        if ([...state.records.values()].some((r) => r.zone_id === zone.id && r.name === hostname && ["A", "AAAA", "CNAME"].includes(r.type))) {
          return failure(409, [
            {
              code: 100117,
              message:
                "Hostname already has externally managed DNS records (A, CNAME, etc). Either delete them, try a different hostname, or use the option 'override_existing_dns_record' to override.",
            },
          ]);
        }
        const attached: FakeWorkerDomain = { id: hex(seq++, hostname), hostname, service, zone_id: zone.id, zone_name: zone.name };
        state.workerDomains.set(attached.id, attached);
        return envelope(200, attached);
      }
      if (id && method === "DELETE") {
        if (!state.workerDomains.delete(id)) return failure(404, [{ code: 100114, message: "Domain not found" }]); // ⚠
        return envelope(200, null);
      }
    }
    return failure(404, [{ code: 7000, message: "No route for that URI" }]);
  }

  return {
    state,
    handle,
    fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)),
    failNext(...failures: CloudflareFailure[]) {
      state.failures.push(...failures);
    },
    addZone,
    addRecord,
    addWorkerDomain,
    zoneByName,
    /** Makes a zone active now, as Cloudflare does once it has seen the nameservers. */
    activate(name: string) {
      const zone = zoneByName(name);
      if (zone) zone.status = "active";
    },
    /** Calls of `method` whose path ends like `tail` ("/zones", "/activation_check", "/workers/domains"). */
    count: (method: string, tail: string) => state.requests.filter((r) => r.method === method && r.path.endsWith(tail)).length,
  };
}

export type CloudflareFake = ReturnType<typeof createCloudflareFake>;
