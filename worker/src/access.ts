import { TrieRouter } from "hono/router/trie-router";
import type { SessionUser } from "./env";
import { ACCESS, WHILE_ENROLLING, type Access, type RouteKey } from "./access-rules";

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
