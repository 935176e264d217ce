import { TrieRouter } from "hono/router/trie-router";
import type { SessionUser } from "./env";
import { ACCESS, WHILE_ENROLLING, type Access, type RouteKey } from "./access-rules";
import { scopeAllows, type ApiKeyLevel, type ApiKeyResource } from "./schemas/api-keys";

export * from "./access-rules";

const STRICTNESS = { public: 0, "signed-in": 1, feature: 2, admin: 3 } as const;
const strictness = (access: Access) => (typeof access === "string" ? STRICTNESS[access] : STRICTNESS.feature);

const router = new TrieRouter<{ key: RouteKey; access: Access }>();
for (const [key, access] of Object.entries(ACCESS) as [RouteKey, Access][]) {
  const [method, path] = key.split(" ") as [string, string];
  router.add(method, path, { key, access });
}

/** The table entry for a request; when patterns overlap the strictest wins. Undefined: not in the table. */
export function routeFor(method: string, path: string): { key: RouteKey; access: Access } | undefined {
  const [matches] = router.match(method === "HEAD" ? "GET" : method, path);
  let found: { key: RouteKey; access: Access } | undefined;
  for (const [entry] of matches) {
    if (found === undefined || strictness(entry.access) > strictness(found.access)) found = entry;
  }
  return found;
}

/** The rule for a request. Undefined: not in the table. */
export const accessFor = (method: string, path: string): Access | undefined => routeFor(method, path)?.access;

export type Decision = "allow" | "unauthenticated" | "forbidden" | "two-factor-setup-first";

export function decide(access: Access, user: SessionUser | null, key?: RouteKey): Decision {
  if (access === "public") return "allow";
  if (!user) return "unauthenticated";
  if (user.stage === "enroll" && (key === undefined || !WHILE_ENROLLING.has(key))) return "two-factor-setup-first";
  if (user.role === "admin" || access === "signed-in") return "allow";
  if (access === "admin") return "forbidden";
  return access.feature.some((f) => user.permissions.includes(f)) ? "allow" : "forbidden";
}

/**
 * The resources whose scope a Bearer API key needs for a route
 * (docs/accounts-security.md "API keys"): none where a key never works, which is signing in and
 * out, the account's own password, sessions and two-factor routes, the API key routes
 * themselves (a stolen key must not mint more keys or lock its owner out), and webhooks. A route open to
 * members by feature needs the scope of any of its features, as a session needs any of them;
 * every other route takes its resource from its path's first segment (null: never for keys).
 */
const PATH_RESOURCES: Record<string, ApiKeyResource | null> = {
  setup: null,
  register: null,
  login: null,
  logout: null,
  account: null,
  "api-keys": null,
  // a key that could subscribe a URL could copy data out long after it is revoked (routes/webhooks.ts)
  webhooks: null,
  user: "profile",
  users: "users",
  settings: "settings",
  codes: "codes",
  landers: "landers",
  offers: "offers",
  campaigns: "campaigns",
  sparks: "sparks",
  clicks: "clicks",
  transactions: "billing",
  invoices: "invoicing",
  sync: "syncs",
  "tiktok-events": "syncs",
  tiktok: "performance",
  cake: "performance",
  stats: "dashboard",
  domains: "domains",
  "redeploy-worker": "domains",
  audit: "audit",
  rules: "rules",
  "alert-channels": "rules",
  "builtin-alerts": "rules",
  // each user's own list, as their profile is
  notifications: "profile",
};
/** Routes whose path names another resource than the one they belong to. */
const ROUTE_RESOURCES: Partial<Record<RouteKey, ApiKeyResource>> = {
  // every screen's date picker reads it: as much the caller's own setting as their preferences
  "GET /api/settings/report-time-zone": "profile",
};

export function keyResources(key: RouteKey, access: Access): ApiKeyResource[] {
  const path = key.split(" ")[1]!;
  if (path.includes("two-factor")) return [];
  const own = ROUTE_RESOURCES[key];
  if (own) return [own];
  const resource = PATH_RESOURCES[path.split("/")[2]!];
  if (resource === null || resource === undefined) return [];
  return typeof access === "object" ? [...access.feature] : [resource];
}

/** The scope a method needs: GET and HEAD read, everything else writes. */
export const levelOf = (method: string): ApiKeyLevel => (method === "GET" || method === "HEAD" ? "read" : "write");

export type KeyDecision = { allowed: true } | { allowed: false; never: true } | { allowed: false; never: false; scopes: string[] };

/** Public routes a key may call too, with no scope: the API's description, which a tool holding a key reads first. */
const KEYS_NEED_NO_SCOPE: ReadonlySet<RouteKey> = new Set<RouteKey>(["GET /api/openapi.json"]);

/** Whether a key's scopes let it call a route with this method (the access table is asked as well, as for a session). */
export function decideKey(scopes: readonly string[], key: RouteKey, access: Access, method: string): KeyDecision {
  if (KEYS_NEED_NO_SCOPE.has(key)) return { allowed: true };
  const resources = keyResources(key, access);
  if (resources.length === 0) return { allowed: false, never: true };
  const level = levelOf(method);
  if (resources.some((r) => scopeAllows(scopes, r, level))) return { allowed: true };
  return { allowed: false, never: false, scopes: resources.map((r) => `${r}:${level}`) };
}
