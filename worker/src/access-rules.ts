/**
 * The access rules as data, with no runtime code: the Worker enforces them (access.ts), and the web
 * app imports them for its screen gates without pulling in the Worker's router.
 */
import type { Feature } from "./db/schema";

/**
 * Who may call each /api route: the one place access is declared (enforced by
 * middleware/access-control.ts). A route missing here is refused with 404, so a forgotten entry
 * fails closed; worker/test/access.test.ts walks this table as every kind of caller.
 *
 * - "public": anyone; "signed-in": any session; "admin": role admin;
 * - { feature }: admins, and members holding any of the listed features.
 */
export type Access = "public" | "signed-in" | "admin" | { feature: Feature[] };

const feature = (...features: Feature[]) => ({ feature: features }) satisfies Access;

/**
 * Who may open each screen of the web app (web/src/app/screens.ts reads this, so the sidebar and
 * the route guards never hold a second copy). The API's reads a screen cannot work without take
 * their rule from here, so a screen and its data are opened to the same people.
 */
export const SCREEN_ACCESS = {
  "/": feature("dashboard"),
  "/offers": feature("offers", "performance"),
  "/offer-config": "admin",
  "/campaigns": feature("campaigns"),
  "/landers": feature("landers"),
  "/clicks": feature("clicks"),
  "/sparks": feature("sparks"),
  "/codes": "signed-in",
  "/billing": "signed-in",
  "/invoicing": "admin",
  "/domains": "admin",
  "/users": "admin",
  "/settings": "admin",
  "/audit": "admin",
  // Rules act on TikTok for every media buyer's campaigns: admins only (docs/rules.md).
  "/rules": "admin",
  "/account": "signed-in",
} as const satisfies Record<string, Exclude<Access, "public">>;
export type ScreenPath = keyof typeof SCREEN_ACCESS;

export const ACCESS = {
  // identity
  "GET /api/setup": "public",
  "POST /api/register": "public",
  "POST /api/login": "public",
  // the second sign-in step: authenticated by its own short-lived session (routes/auth.ts)
  "POST /api/login/second-factor": "public",
  "POST /api/logout": "public",
  // the API's OpenAPI description: no data in it, and tools read it before they hold a key (routes/openapi.ts)
  "GET /api/openapi.json": "public",
  "GET /api/user": "signed-in",
  // what scopes the caller's view of the data (their assignments), for the screens to say
  "GET /api/user/scope": "signed-in",
  // each user's own account: password and two-factor sign-in
  "POST /api/account/password": "signed-in",
  "GET /api/account/two-factor": "signed-in",
  "POST /api/account/two-factor/setup": "signed-in",
  "POST /api/account/two-factor/confirm": "signed-in",
  "POST /api/account/two-factor/disable": "signed-in",
  // a fresh password (and code) for admin changes to other users (auth/reauth.ts)
  "POST /api/account/reauth": "signed-in",
  // the user's own sessions, and signing the others out
  "GET /api/account/sessions": "signed-in",
  "POST /api/account/sessions/sign-out-others": "signed-in",
  // personal API keys (docs/accounts-security.md "API keys"): each user's own; admins list and revoke anyone's
  "GET /api/api-keys": "signed-in",
  "POST /api/api-keys": "signed-in",
  "DELETE /api/api-keys/:id": "signed-in",
  "GET /api/api-keys/all": "admin",
  // webhooks out (docs/webhooks.md): each user's own (events by role and features, checked on
  // subscribing and at every delivery); admins list and manage anyone's
  "GET /api/webhooks": "signed-in",
  "POST /api/webhooks": "signed-in",
  "GET /api/webhooks/all": "admin",
  "GET /api/webhooks/:id/deliveries": "signed-in",
  "POST /api/webhooks/:id/test": "signed-in",
  "POST /api/webhooks/:id/enable": "signed-in",
  "DELETE /api/webhooks/:id": "signed-in",
  // users (admin)
  "GET /api/users": SCREEN_ACCESS["/users"],
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
  "PUT /api/users/:id/role": "admin",
  "POST /api/users/:id/password": "admin",
  "POST /api/users/:id/two-factor/reset": "admin",
  "GET /api/users/two-factor-requirement": "admin",
  "PUT /api/users/two-factor-requirement": "admin",
  // settings (admin)
  "GET /api/settings": SCREEN_ACCESS["/settings"],
  // the report time zone and its today: every screen's date picker counts days in it
  "GET /api/settings/report-time-zone": "signed-in",
  "POST /api/settings": "admin",
  // verification-code inbox: every signed-in user (docs/product-rules.md)
  "GET /api/codes": SCREEN_ACCESS["/codes"],
  // the inbox's settings that need fixing, shown to admins on the Codes screen
  "GET /api/codes/setup": "admin",
  // tracking engine: landers, offers, campaigns (mutations admin-only, spec section 6), sparks, clicks
  "GET /api/landers": feature("landers", "campaigns"),
  "POST /api/landers": "admin",
  "PATCH /api/landers/:id": "admin",
  "DELETE /api/landers/:id": "admin",
  // what a delete takes along, for its confirmation: admin-only like the delete
  "GET /api/landers/:id/deletion-impact": "admin",
  // the stats screen's offer filter reads the list too; members get ids and names only (routes/offers.ts)
  "GET /api/offers": feature("offers", "campaigns", "dashboard"),
  "POST /api/offers": "admin",
  "PATCH /api/offers/:id": "admin",
  "DELETE /api/offers/:id": "admin",
  "GET /api/offers/:id/deletion-impact": "admin",
  "GET /api/campaigns": SCREEN_ACCESS["/campaigns"],
  "GET /api/campaigns/tracking-domains": "admin",
  "POST /api/campaigns": "admin",
  "PATCH /api/campaigns/:id": "admin",
  "DELETE /api/campaigns/:id": "admin",
  "GET /api/campaigns/:id/deletion-impact": "admin",
  // traffic distribution (docs/traffic-distribution.md): read with the campaigns screen, changed by admins
  "GET /api/campaigns/:id/paths": SCREEN_ACCESS["/campaigns"],
  "PUT /api/campaigns/:id/paths": "admin",
  "POST /api/campaigns/:id/paths/preview": SCREEN_ACCESS["/campaigns"],
  "GET /api/campaigns/:id/paths/:pathId/history": SCREEN_ACCESS["/campaigns"],
  "GET /api/campaigns/:id/paths/:pathId/split-test": SCREEN_ACCESS["/campaigns"],
  // members see and delete only the sparks assigned to them (routes/sparks.ts)
  "GET /api/sparks": feature("sparks", "dashboard"),
  "POST /api/sparks": feature("sparks"),
  "DELETE /api/sparks/:id": feature("sparks"),
  "GET /api/clicks": SCREEN_ACCESS["/clicks"],
  // The Click Log's campaign filter: for the same callers as the log itself, which lists every click.
  "GET /api/clicks/by-campaign": feature("clicks"),
  "GET /api/clicks/export": feature("clicks"),
  "GET /api/clicks/facets": feature("clicks"),
  "GET /api/clicks/retention": feature("clicks"),
  "GET /api/clicks/archives/:day": feature("clicks"),
  "GET /api/clicks/refused": feature("clicks"),
  "GET /api/clicks/pipeline": feature("clicks"),
  // billing statements (data scoped per member) and invoicing
  "POST /api/transactions/upload": "admin",
  "GET /api/transactions": SCREEN_ACCESS["/billing"],
  "GET /api/transactions/vcn-summary": "signed-in",
  "GET /api/transactions/vcn-last4": "signed-in",
  "GET /api/invoices": SCREEN_ACCESS["/invoicing"],
  "POST /api/invoices": "admin",
  "GET /api/invoices/:id": "admin",
  "PATCH /api/invoices/:id": "admin",
  "DELETE /api/invoices/:id": "admin",
  // performance data coming in (CAKE, TikTok): sync status and runs for admins, and the reads
  // that need only the synced tables; members are scoped to their media buyers in the queries
  "GET /api/sync/status": "admin",
  "POST /api/sync/run": "admin",
  // conversions sent to TikTok's Events API: settings, send state and resend (admin)
  "GET /api/tiktok-events": "admin",
  "PUT /api/tiktok-events/settings": "admin",
  "POST /api/tiktok-events/resend": "admin",
  "GET /api/tiktok/spend": feature("dashboard"),
  "GET /api/cake/offers": feature("offers", "performance", "dashboard"),
  "GET /api/cake/stats": feature("dashboard"),
  // the stats report (members: their media buyers' rows only) and each user's own table columns
  "GET /api/stats/report": SCREEN_ACCESS["/"],
  "GET /api/stats/filters": feature("dashboard"),
  "GET /api/user/preferences": "signed-in",
  "PUT /api/user/preferences": "signed-in",
  // domain automation (admin): buying, configuring and serving tracking domains
  "GET /api/domains": SCREEN_ACCESS["/domains"],
  "GET /api/domains/setup": "admin",
  "POST /api/domains/check": "admin",
  "POST /api/domains/purchase": "admin",
  "POST /api/domains/test-proxy": "admin",
  "POST /api/domains/:id/configure": "admin",
  "POST /api/domains/:id/update-nameservers": "admin",
  "POST /api/domains/:id/migrate-to-workers": "admin",
  "DELETE /api/domains/:id": "admin",
  "POST /api/redeploy-worker": "admin",
  // the audit log: who changed what (admins)
  "GET /api/audit": SCREEN_ACCESS["/audit"],
  "GET /api/audit/export": "admin",
  // alerts and channels (docs/alerts.md): the admins'
  "GET /api/alert-channels": "admin",
  "POST /api/alert-channels": "admin",
  "PUT /api/alert-channels/:id": "admin",
  "DELETE /api/alert-channels/:id": "admin",
  "POST /api/alert-channels/:id/test": "admin",
  "GET /api/builtin-alerts": "admin",
  "PUT /api/builtin-alerts/:alert": "admin",
  // each user's own notification list (only admins receive alerts today; anyone may read theirs)
  "GET /api/notifications": "signed-in",
  "POST /api/notifications/read-all": "signed-in",
  // rules (docs/rules.md): admins
  "GET /api/rules": SCREEN_ACCESS["/rules"],
  "GET /api/rules/options": "admin",
  "POST /api/rules": "admin",
  "POST /api/rules/dry-run": "admin",
  "GET /api/rules/:id": "admin",
  "GET /api/rules/:id/history": "admin",
  "PUT /api/rules/:id": "admin",
  "POST /api/rules/:id/enabled": "admin",
  "DELETE /api/rules/:id": "admin",
} as const satisfies Record<string, Access>;

export type RouteKey = keyof typeof ACCESS;

/**
 * All a session may call (besides public routes) while an admin requires two-factor sign-in and
 * its user has none yet: who they are, and setting it up.
 */
export const WHILE_ENROLLING: ReadonlySet<RouteKey> = new Set<RouteKey>([
  "GET /api/user",
  "GET /api/account/two-factor",
  "POST /api/account/two-factor/setup",
  "POST /api/account/two-factor/confirm",
]);
