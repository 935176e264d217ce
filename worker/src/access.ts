import { TrieRouter } from "hono/router/trie-router";
import type { Feature } from "./db/schema";
import type { SessionUser } from "./env";

/**
 * Who may call each /api route: the one place access is declared (enforced by
 * middleware/access-control.ts). A route missing here is refused with 404, so a forgotten entry
 * fails closed; worker/test/access.test.ts walks this table as every kind of caller.
 *
 * - "public": anyone; "signed-in": any session; "admin": role admin;
 * - { feature }: admins, and members holding any of the listed features.
 */
export type Access = "public" | "signed-in" | "admin" | { feature: Feature[] };

const feature = (...features: Feature[]): Access => ({ feature: features });

export const ACCESS = {
  // identity
  "GET /api/setup": "public",
  "POST /api/register": "public",
  "POST /api/login": "public",
  "POST /api/logout": "public",
  "GET /api/user": "signed-in",
  // users (admin)
  "GET /api/users": "admin",
  "POST /api/users": "admin",
  "GET /api/users/assignment-options": "admin",
  "DELETE /api/users/:id": "admin",
  "GET /api/users/:id/permissions": "admin",
  "POST /api/users/:id/permissions": "admin",
  "GET /api/users/:id/vcn-assignments": "admin",
  "POST /api/users/:id/vcn-assignments": "admin",
  "GET /api/users/:id/media-buyers": "admin",
  "POST /api/users/:id/media-buyers": "admin",
  "GET /api/users/:id/spark-assignments": "admin",
  "POST /api/users/:id/spark-assignments": "admin",
  // settings (admin)
  "GET /api/settings": "admin",
  "POST /api/settings": "admin",
  // verification-code inbox: every signed-in user (decisions.md)
  "GET /api/codes": "signed-in",
  // tracking engine: landers, offers, campaigns (mutations admin-only, spec section 6), sparks, clicks
  "GET /api/landers": feature("landers", "campaigns"),
  "POST /api/landers": "admin",
  "PATCH /api/landers/:id": "admin",
  "DELETE /api/landers/:id": "admin",
  // the stats screen's offer filter reads the list too
  "GET /api/offers": feature("offers", "campaigns", "dashboard"),
  "POST /api/offers": "admin",
  "PATCH /api/offers/:id": "admin",
  "DELETE /api/offers/:id": "admin",
  "GET /api/campaigns": feature("campaigns"),
  "GET /api/campaigns/tracking-domains": "admin",
  "POST /api/campaigns": "admin",
  "PATCH /api/campaigns/:id": "admin",
  "DELETE /api/campaigns/:id": "admin",
  // members see and delete only the sparks assigned to them (routes/sparks.ts)
  "GET /api/sparks": feature("sparks", "dashboard"),
  "POST /api/sparks": feature("sparks"),
  "DELETE /api/sparks/:id": feature("sparks"),
  "GET /api/clicks": feature("clicks"),
  "GET /api/clicks/by-campaign": feature("clicks", "dashboard"),
  "GET /api/clicks/export": feature("clicks"),
  "GET /api/clicks/retention": feature("clicks"),
  "GET /api/clicks/archives/:day": feature("clicks"),
  "GET /api/clicks/refused": feature("clicks"),
  // billing statements (data scoped per member) and invoicing
  "POST /api/transactions/upload": "admin",
  "GET /api/transactions": "signed-in",
  "GET /api/transactions/vcn-summary": "signed-in",
  "GET /api/transactions/vcn-last4": "signed-in",
  "GET /api/invoices": "admin",
  "POST /api/invoices": "admin",
  "GET /api/invoices/:id": "admin",
  "PATCH /api/invoices/:id": "admin",
  "DELETE /api/invoices/:id": "admin",
  // performance data coming in (CAKE, TikTok): sync status and runs for admins, and the reads
  // that need only the synced tables; members are scoped to their media buyers in the queries
  "GET /api/sync/status": "admin",
  "POST /api/sync/run": "admin",
  "GET /api/tiktok/spend": feature("dashboard"),
  "GET /api/cake/offers": feature("offers", "performance", "dashboard"),
  "GET /api/cake/stats": feature("dashboard"),
  // the stats report (members: their media buyers' rows only) and each user's own table columns
  "GET /api/stats/report": feature("dashboard"),
  "GET /api/stats/filters": feature("dashboard"),
  "GET /api/user/preferences": "signed-in",
  "PUT /api/user/preferences": "signed-in",
} as const satisfies Record<string, Access>;

export type RouteKey = keyof typeof ACCESS;

const STRICTNESS = { public: 0, "signed-in": 1, feature: 2, admin: 3 } as const;
const strictness = (access: Access) => (typeof access === "string" ? STRICTNESS[access] : STRICTNESS.feature);

const router = new TrieRouter<Access>();
for (const [key, access] of Object.entries(ACCESS) as [string, Access][]) {
  const [method, path] = key.split(" ") as [string, string];
  router.add(method, path, access);
}

/** The rule for a request; when patterns overlap the strictest wins. Undefined: not in the table. */
export function accessFor(method: string, path: string): Access | undefined {
  const [matches] = router.match(method === "HEAD" ? "GET" : method, path);
  let found: Access | undefined;
  for (const [access] of matches) {
    if (found === undefined || strictness(access) > strictness(found)) found = access;
  }
  return found;
}

export type Decision = "allow" | "unauthenticated" | "forbidden";

export function decide(access: Access, user: SessionUser | null): Decision {
  if (access === "public") return "allow";
  if (!user) return "unauthenticated";
  if (user.role === "admin" || access === "signed-in") return "allow";
  if (access === "admin") return "forbidden";
  return access.feature.some((f) => user.permissions.includes(f)) ? "allow" : "forbidden";
}
