import { eq } from "drizzle-orm";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ACCESS, accessFor, type Access, type RouteKey } from "../src/access";
import { app } from "../src/app";
import { newApiKey } from "../src/auth/api-key";
import { insertCampaign } from "../src/db/queries/campaigns";
import { archiveKey } from "../src/db/queries/click-archives";
import { insertInvoice } from "../src/db/queries/invoices";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { ruleValues } from "../src/db/queries/rules";
import { createSpark } from "../src/db/queries/sparks";
import { alertChannels, apiKeys, campaignPaths, clickArchives, domains, rules, users, webhookSubscriptions } from "../src/db/schema";
import { ruleInputSchema } from "../src/schemas/rules";
import { call, db, makeAdmin, makeUser, reauthenticate, type TestUser } from "./helpers";

/**
 * A valid request for every route in the ACCESS table. Typed as a Record over the table's keys:
 * a route added to the table without a sample here does not compile.
 */
interface Sample {
  path: string;
  json?: unknown;
  /** A non-JSON body (the multipart uploads). */
  body?: BodyInit;
  /** The status a permitted caller gets, when it is not 2xx by the route's own rules. */
  status?: number;
}
/** `caller` is who will send the request, for routes scoped to the caller's own rows. */
type SampleFor = (target: TestUser, caller: TestUser | null) => Sample | Promise<Sample>;

const invoiceInput = { mediaBuyer: "mb1", invoiceDate: "2025-01-31", amountPaid: "100.00", revenueSharePercent: "10", profit: "5", notes: "" };
const sampleInvoice = async () =>
  (await insertInvoice(db(), { mediaBuyer: "mb1", invoiceDate: "2025-01-31", amountPaidCents: 100, revenueShareBps: 1000, profitCents: 5 }).get())!.id;
const statementForm = () => {
  const form = new FormData();
  form.append("file", new File(["Registered Card Last 4,Status,Reference Id\n*1234,PENDING,access-sample-1\n"], "statement.csv"));
  return form;
};

const sampleLander = async () => (await insertLander(db(), { name: "Access lander", url: "https://lander.test/" }).get()).id;
const sampleOffer = async () => (await insertOffer(db(), { name: "Access offer", url: "https://offer.test/", utmTemplate: "sub1={clickId}" }).get()).id;
const sampleCampaign = async () =>
  (await insertCampaign(db(), { name: "Access campaign", landerId: await sampleLander(), offerId: null, domainId: null, bhToggle: false }).get()).id;
// Assigned to the caller: a member may delete only their own sparks.
const sampleSpark = async (caller: TestUser | null) => (await createSpark(db(), { name: "Access spark", code: "<!-- spark -->" }, caller?.id ?? null)).id;

// A bought domain, written straight to D1 (the routes themselves need Namecheap or Cloudflare).
const sampleDomain = async () =>
  (
    await db()
      .insert(domains)
      .values({ domain: `access-${crypto.randomUUID().slice(0, 8)}.xyz`, status: "purchased" })
      .returning()
  )[0]!.id;
const sampleChannel = async (url = "https://hook.test/") =>
  (await db().insert(alertChannels).values({ name: "Access hook", kind: "webhook", settings: { url }, secret: "s" }).returning())[0]!.id;
/** Re-authenticates a signed-in caller (a member is still refused: the route is admin-only); adds nothing to the sample. */
const sampleRuleInput = {
  name: "Access rule",
  scope: { kind: "all" },
  window: { amount: 1, unit: "days" },
  conditions: [{ metric: "spend", op: ">", value: 10 }],
  cooldownMinutes: 60,
  action: "alert",
  target: { channelIds: [], admins: true },
};
const sampleRule = async () =>
  (
    await db()
      .insert(rules)
      .values(ruleValues(ruleInputSchema.parse(sampleRuleInput)))
      .returning({ id: rules.id })
  )[0]!.id;

const reauthFirst = async (caller: TestUser | null) => {
  if (caller) await reauthenticate(caller);
  return {};
};
/** The test Worker has no Namecheap or Cloudflare settings: a permitted caller learns what is missing. */
const NOT_SET_UP = 409;
/** An archived day of clicks (a ledger row and its file), as the retention job leaves them. */
const sampleArchive = async () => {
  const day = "2019-06-01";
  const startMs = Date.parse(`${day}T00:00:00Z`);
  await env.ARCHIVE.put(archiveKey(day), new Uint8Array([0x1f, 0x8b]));
  await db()
    .insert(clickArchives)
    .values({
      day,
      timeZone: "UTC",
      startMs,
      endMs: startMs + 86_400_000,
      objectKey: archiveKey(day),
      rows: 0,
      exits: 0,
      bytes: 2,
      maxClickId: 0,
      claimedAt: startMs,
      archivedAt: startMs,
    })
    .onConflictDoNothing();
  return day;
};

/** A key of `owner`'s, written straight to D1. */
const sampleApiKey = async (owner: TestUser) => {
  const { digest, prefix } = await newApiKey();
  return (
    await db()
      .insert(apiKeys)
      .values({ userId: owner.id, name: "Access key", digest, prefix, scopes: ["profile:read"] })
      .returning()
  )[0]!.id;
};

/** A webhook subscription of `owner`'s, written straight to D1 (switched off: nothing is ever sent to it). */
const sampleWebhook = async (owner: TestUser) =>
  (
    await db()
      .insert(webhookSubscriptions)
      .values({ userId: owner.id, url: "https://hooks.example.com/access", events: ["conversion.created"], secret: "v1:unused:unused", disabledAt: Date.now() })
      .returning()
  )[0]!.id;

const SAMPLES: Record<RouteKey, SampleFor> = {
  "GET /api/setup": () => ({ path: "/api/setup" }),
  // Closed once any user exists: 403 for everyone, signed in or not.
  "POST /api/register": () => ({ path: "/api/register", json: { username: "late", password: "late-password" }, status: 403 }),
  "POST /api/login": (t) => ({ path: "/api/login", json: { username: t.username, password: t.password } }),
  // Without a password-checked sign-in waiting for its code, everyone gets the same 401.
  "POST /api/login/second-factor": () => ({ path: "/api/login/second-factor", json: { code: "123456" }, status: 401 }),
  "POST /api/logout": () => ({ path: "/api/logout" }),
  "GET /api/openapi.json": () => ({ path: "/api/openapi.json" }),
  "GET /api/user": () => ({ path: "/api/user" }),
  "GET /api/user/scope": () => ({ path: "/api/user/scope" }),
  "POST /api/account/password": (_t, caller) => ({
    path: "/api/account/password",
    json: { currentPassword: caller?.password ?? "x", newPassword: "a-brand-new-password" },
  }),
  "GET /api/account/two-factor": () => ({ path: "/api/account/two-factor" }),
  "POST /api/account/two-factor/setup": (_t, caller) => ({ path: "/api/account/two-factor/setup", json: { password: caller?.password ?? "x" } }),
  // No setup was started: a clear 409 for whoever may call it.
  "POST /api/account/two-factor/confirm": () => ({ path: "/api/account/two-factor/confirm", json: { code: "123456" }, status: 409 }),
  "POST /api/account/two-factor/disable": (_t, caller) => ({ path: "/api/account/two-factor/disable", json: { password: caller?.password ?? "x" } }),
  "POST /api/account/reauth": (_t, caller) => ({ path: "/api/account/reauth", json: { password: caller?.password ?? "x" } }),
  "GET /api/account/sessions": () => ({ path: "/api/account/sessions" }),
  "POST /api/account/sessions/sign-out-others": () => ({ path: "/api/account/sessions/sign-out-others" }),
  "GET /api/api-keys": () => ({ path: "/api/api-keys" }),
  "POST /api/api-keys": () => ({ path: "/api/api-keys", json: { name: "Access key", scopes: ["profile:read"] }, status: 201 }),
  // The caller's own key: a member may revoke only theirs.
  "DELETE /api/api-keys/:id": async (t, caller) => ({ path: `/api/api-keys/${await sampleApiKey(caller ?? t)}` }),
  "GET /api/api-keys/all": () => ({ path: "/api/api-keys/all" }),
  // A member holding neither Dashboard nor Performance may subscribe to no event (routes/webhooks.ts).
  "POST /api/webhooks": async (_t, caller) => ({
    path: "/api/webhooks",
    json: { url: "https://hooks.example.com/new", events: ["conversion.created"] },
    status: caller && (await db().select({ role: users.role }).from(users).where(eq(users.id, caller.id)))[0]?.role === "admin" ? 201 : 403,
  }),
  "GET /api/webhooks": () => ({ path: "/api/webhooks" }),
  "GET /api/webhooks/all": () => ({ path: "/api/webhooks/all" }),
  "GET /api/webhooks/:id/deliveries": async (t, caller) => ({ path: `/api/webhooks/${await sampleWebhook(caller ?? t)}/deliveries` }),
  // Switched off: the test event is refused until it is enabled.
  "POST /api/webhooks/:id/test": async (t, caller) => ({ path: `/api/webhooks/${await sampleWebhook(caller ?? t)}/test`, status: 400 }),
  "POST /api/webhooks/:id/enable": async (t, caller) => ({ path: `/api/webhooks/${await sampleWebhook(caller ?? t)}/enable` }),
  "DELETE /api/webhooks/:id": async (t, caller) => ({ path: `/api/webhooks/${await sampleWebhook(caller ?? t)}` }),
  "GET /api/users": () => ({ path: "/api/users" }),
  "POST /api/users": () => ({ path: "/api/users", json: { username: `new${crypto.randomUUID().slice(0, 8)}`, password: "a-good-password", role: "user" } }),
  "GET /api/users/assignment-options": () => ({ path: "/api/users/assignment-options" }),
  "DELETE /api/users/:id": (t) => ({ path: `/api/users/${t.id}` }),
  "GET /api/users/:id/permissions": (t) => ({ path: `/api/users/${t.id}/permissions` }),
  "POST /api/users/:id/permissions": (t) => ({ path: `/api/users/${t.id}/permissions`, json: { features: ["sparks"] } }),
  "GET /api/users/:id/vcn-assignments": (t) => ({ path: `/api/users/${t.id}/vcn-assignments` }),
  "POST /api/users/:id/vcn-assignments": (t) => ({ path: `/api/users/${t.id}/vcn-assignments`, json: { vcnNicknames: ["Ads 1"] } }),
  "GET /api/users/:id/media-buyers": (t) => ({ path: `/api/users/${t.id}/media-buyers` }),
  "POST /api/users/:id/media-buyers": (t) => ({ path: `/api/users/${t.id}/media-buyers`, json: { subid1s: ["mb1"] } }),
  "GET /api/users/:id/spark-assignments": (t) => ({ path: `/api/users/${t.id}/spark-assignments` }),
  "POST /api/users/:id/spark-assignments": (t) => ({ path: `/api/users/${t.id}/spark-assignments`, json: { sparkIds: [] } }),
  // Admin changes to another user's sign-in or role: the caller re-authenticates first (auth/reauth.ts).
  "PUT /api/users/:id/role": async (t, caller) => ({ path: `/api/users/${t.id}/role`, json: { role: "admin" }, ...(await reauthFirst(caller)) }),
  "POST /api/users/:id/password": async (t, caller) => ({
    path: `/api/users/${t.id}/password`,
    json: { password: "a-reset-password" },
    ...(await reauthFirst(caller)),
  }),
  "POST /api/users/:id/two-factor/reset": async (t, caller) => ({ path: `/api/users/${t.id}/two-factor/reset`, ...(await reauthFirst(caller)) }),
  "GET /api/users/two-factor-requirement": () => ({ path: "/api/users/two-factor-requirement" }),
  "PUT /api/users/two-factor-requirement": () => ({ path: "/api/users/two-factor-requirement", json: { required: false } }),
  "GET /api/settings": () => ({ path: "/api/settings" }),
  "GET /api/settings/report-time-zone": () => ({ path: "/api/settings/report-time-zone" }),
  "POST /api/settings": () => ({ path: "/api/settings", json: { key: "max_domain_price", value: "7.50" } }),
  "GET /api/codes": () => ({ path: "/api/codes" }),
  "GET /api/codes/setup": () => ({ path: "/api/codes/setup" }),
  "POST /api/transactions/upload": () => ({ path: "/api/transactions/upload", body: statementForm() }),
  "GET /api/transactions": () => ({ path: "/api/transactions?status=PENDING&page=1" }),
  "GET /api/transactions/vcn-summary": () => ({ path: "/api/transactions/vcn-summary?startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/transactions/vcn-last4": () => ({ path: "/api/transactions/vcn-last4" }),
  "GET /api/invoices": () => ({ path: "/api/invoices" }),
  "POST /api/invoices": () => ({ path: "/api/invoices", json: invoiceInput }),
  "GET /api/invoices/:id": async () => ({ path: `/api/invoices/${await sampleInvoice()}` }),
  "PATCH /api/invoices/:id": async () => ({ path: `/api/invoices/${await sampleInvoice()}`, json: { profit: "12.34" } }),
  "DELETE /api/invoices/:id": async () => ({ path: `/api/invoices/${await sampleInvoice()}` }),
  "GET /api/landers": () => ({ path: "/api/landers" }),
  "POST /api/landers": () => ({ path: "/api/landers", json: { name: "Lander", url: "https://lander.test/a" } }),
  "PATCH /api/landers/:id": async () => ({ path: `/api/landers/${await sampleLander()}`, json: { name: "Renamed" } }),
  "DELETE /api/landers/:id": async () => ({ path: `/api/landers/${await sampleLander()}` }),
  "GET /api/landers/:id/deletion-impact": async () => ({ path: `/api/landers/${await sampleLander()}/deletion-impact` }),
  "GET /api/offers": () => ({ path: "/api/offers" }),
  "POST /api/offers": () => ({ path: "/api/offers", json: { name: "Offer", url: "https://offer.test/o", utmTemplate: "sub1={clickId}" } }),
  "PATCH /api/offers/:id": async () => ({ path: `/api/offers/${await sampleOffer()}`, json: { name: "Renamed" } }),
  "DELETE /api/offers/:id": async () => ({ path: `/api/offers/${await sampleOffer()}` }),
  "GET /api/offers/:id/deletion-impact": async () => ({ path: `/api/offers/${await sampleOffer()}/deletion-impact` }),
  "GET /api/campaigns": () => ({ path: "/api/campaigns" }),
  "GET /api/campaigns/tracking-domains": () => ({ path: "/api/campaigns/tracking-domains" }),
  "POST /api/campaigns": async () => ({ path: "/api/campaigns", json: { name: "Campaign", landerId: await sampleLander() } }),
  "PATCH /api/campaigns/:id": async () => ({ path: `/api/campaigns/${await sampleCampaign()}`, json: { bhToggle: true } }),
  "DELETE /api/campaigns/:id": async () => ({ path: `/api/campaigns/${await sampleCampaign()}` }),
  "GET /api/campaigns/:id/deletion-impact": async () => ({ path: `/api/campaigns/${await sampleCampaign()}/deletion-impact` }),
  "GET /api/campaigns/:id/paths": async () => ({ path: `/api/campaigns/${await sampleCampaign()}/paths` }),
  "PUT /api/campaigns/:id/paths": async () => ({
    path: `/api/campaigns/${await sampleCampaign()}/paths`,
    json: { paths: [{ name: "Default", isDefault: true, conditions: [], landers: [{ landerId: await sampleLander(), weight: 1 }], offers: [] }] },
  }),
  "POST /api/campaigns/:id/paths/preview": async () => ({ path: `/api/campaigns/${await sampleCampaign()}/paths/preview`, json: {} }),
  "GET /api/campaigns/:id/paths/:pathId/history": async () => {
    const campaignId = await sampleCampaign();
    const [path] = await db().insert(campaignPaths).values({ campaignId, position: 0, name: "Default", isDefault: true, conditions: [] }).returning();
    return { path: `/api/campaigns/${campaignId}/paths/${path!.id}/history` };
  },
  "GET /api/campaigns/:id/paths/:pathId/split-test": async () => {
    const campaignId = await sampleCampaign();
    const [path] = await db().insert(campaignPaths).values({ campaignId, position: 0, name: "Default", isDefault: true, conditions: [] }).returning();
    return { path: `/api/campaigns/${campaignId}/paths/${path!.id}/split-test` };
  },
  "GET /api/sparks": () => ({ path: "/api/sparks" }),
  "POST /api/sparks": () => ({ path: "/api/sparks", json: { name: "Spark", code: "<!-- code -->" } }),
  "DELETE /api/sparks/:id": async (_t, caller) => ({ path: `/api/sparks/${await sampleSpark(caller)}` }),
  "GET /api/clicks": () => ({ path: "/api/clicks?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/by-campaign": () => ({ path: "/api/clicks/by-campaign?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/export": () => ({ path: "/api/clicks/export?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/facets": () => ({ path: "/api/clicks/facets?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/retention": () => ({ path: "/api/clicks/retention?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/archives/:day": async () => ({ path: `/api/clicks/archives/${await sampleArchive()}` }),
  "GET /api/clicks/refused": () => ({ path: "/api/clicks/refused?startDate=2025-01-01&endDate=2025-01-07" }),
  "GET /api/clicks/pipeline": () => ({ path: "/api/clicks/pipeline" }),
  "GET /api/sync/status": () => ({ path: "/api/sync/status" }),
  // The test Worker has no data-source secrets: "all" answers 200 with each source not configured.
  "POST /api/sync/run": () => ({ path: "/api/sync/run", json: { source: "all" } }),
  "GET /api/tiktok-events": () => ({ path: "/api/tiktok-events" }),
  "PUT /api/tiktok-events/settings": () => ({
    path: "/api/tiktok-events/settings",
    json: { pixelCode: "", testEventCode: "", pendingEvent: "", currency: "USD" },
  }),
  // No pixel code is set here: nothing is resent until sending is configured.
  "POST /api/tiktok-events/resend": () => ({ path: "/api/tiktok-events/resend", json: {}, status: 409 }),
  "GET /api/tiktok/spend": () => ({ path: "/api/tiktok/spend?startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/cake/offers": () => ({ path: "/api/cake/offers?startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/cake/stats": () => ({ path: "/api/cake/stats?startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/stats/report": () => ({ path: "/api/stats/report?startDate=2025-01-01&endDate=2025-01-31&groupBy=spark" }),
  "GET /api/stats/filters": () => ({ path: "/api/stats/filters?startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/user/preferences": () => ({ path: "/api/user/preferences" }),
  "PUT /api/user/preferences": () => ({ path: "/api/user/preferences", json: { visibleColumns: ["name", "revenue"], columnWidths: { name: 200 } } }),
  "GET /api/domains": () => ({ path: "/api/domains" }),
  "GET /api/domains/setup": () => ({ path: "/api/domains/setup" }),
  "POST /api/domains/check": () => ({ path: "/api/domains/check", json: { domain: "access-check.xyz" }, status: NOT_SET_UP }),
  "POST /api/domains/purchase": () => ({ path: "/api/domains/purchase", json: { domain: "access-buy.xyz", price: "1.36" }, status: NOT_SET_UP }),
  "POST /api/domains/test-proxy": () => ({ path: "/api/domains/test-proxy", json: {}, status: NOT_SET_UP }),
  "POST /api/domains/:id/configure": async () => ({ path: `/api/domains/${await sampleDomain()}/configure`, json: { subdomain: "trk" }, status: NOT_SET_UP }),
  // A bought domain has no zone yet: there are no nameservers to push.
  "POST /api/domains/:id/update-nameservers": async () => ({ path: `/api/domains/${await sampleDomain()}/update-nameservers`, status: 409 }),
  "POST /api/domains/:id/migrate-to-workers": async () => ({ path: `/api/domains/${await sampleDomain()}/migrate-to-workers`, status: 409 }),
  // Without a subdomain nothing is attached anywhere: the row is simply forgotten.
  "DELETE /api/domains/:id": async () => ({ path: `/api/domains/${await sampleDomain()}` }),
  "POST /api/redeploy-worker": () => ({ path: "/api/redeploy-worker", json: {}, status: NOT_SET_UP }),
  "GET /api/audit": () => ({ path: "/api/audit?entityKind=user&startDate=2025-01-01&endDate=2025-01-31" }),
  "GET /api/audit/export": () => ({ path: "/api/audit/export?entityKind=user" }),
  "GET /api/alert-channels": () => ({ path: "/api/alert-channels" }),
  "POST /api/alert-channels": () => ({ path: "/api/alert-channels", json: { kind: "webhook", name: "Access hook", url: "https://hook.test/" } }),
  "PUT /api/alert-channels/:id": async () => ({
    path: `/api/alert-channels/${await sampleChannel()}`,
    json: { kind: "webhook", name: "Access hook", url: "https://hook.test/" },
  }),
  "DELETE /api/alert-channels/:id": async () => ({ path: `/api/alert-channels/${await sampleChannel()}` }),
  // A webhook on a port nothing listens on: the test message is sent and its failure reported (200).
  "GET /api/builtin-alerts": () => ({ path: "/api/builtin-alerts" }),
  "PUT /api/builtin-alerts/:alert": () => ({ path: "/api/builtin-alerts/events-api-failures", json: { enabled: true } }),
  "GET /api/notifications": () => ({ path: "/api/notifications" }),
  "POST /api/notifications/read-all": () => ({ path: "/api/notifications/read-all" }),
  "POST /api/alert-channels/:id/test": async () => ({ path: `/api/alert-channels/${await sampleChannel("http://127.0.0.1:9/hook")}/test` }),
  "GET /api/rules": () => ({ path: "/api/rules" }),
  "GET /api/rules/options": () => ({ path: "/api/rules/options" }),
  "POST /api/rules": () => ({ path: "/api/rules", json: sampleRuleInput }),
  "POST /api/rules/dry-run": () => ({ path: "/api/rules/dry-run", json: sampleRuleInput }),
  "GET /api/rules/:id": async () => ({ path: `/api/rules/${await sampleRule()}` }),
  "GET /api/rules/:id/history": async () => ({ path: `/api/rules/${await sampleRule()}/history` }),
  "PUT /api/rules/:id": async () => ({ path: `/api/rules/${await sampleRule()}`, json: sampleRuleInput }),
  "POST /api/rules/:id/enabled": async () => ({ path: `/api/rules/${await sampleRule()}/enabled`, json: { enabled: false } }),
  "DELETE /api/rules/:id": async () => ({ path: `/api/rules/${await sampleRule()}` }),
};

const routes = Object.entries(ACCESS) as [RouteKey, Access][];

async function request(key: RouteKey, caller: TestUser | null) {
  const [method] = key.split(" ") as [string];
  // Each call gets its own target user, so destructive routes never disturb the next call.
  const target = await makeUser();
  const sample = await SAMPLES[key](target, caller);
  const res = await call(sample.path, { method, json: sample.json, body: sample.body, cookie: caller?.cookie });
  return { res, sample };
}

const permitted = async (key: RouteKey, caller: TestUser | null) => {
  const { res, sample } = await request(key, caller);
  const body = await res.text();
  if (sample.status !== undefined) expect(res.status, `${key}: ${body}`).toBe(sample.status);
  else expect(res.status, `${key}: ${body}`).toBeLessThan(300);
};

const refused = async (key: RouteKey, caller: TestUser | null, status: 401 | 403) => {
  const { res } = await request(key, caller);
  expect(res.status, key).toBe(status);
  expect(await res.json(), key).toHaveProperty("error");
};

describe("the access table", () => {
  it("lists every /api route the app serves (a route missing from it would be refused)", () => {
    const served = app.routes.filter((r) => r.path.startsWith("/api/") && r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
    expect(new Set(served)).toEqual(new Set(Object.keys(ACCESS)));
  });

  it("fails closed: a path not in the table is refused, even for an admin", async () => {
    expect(accessFor("GET", "/api/not-a-route")).toBeUndefined();
    const admin = await makeAdmin();
    const res = await call("/api/not-a-route", { cookie: admin.cookie });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found" });
  });

  describe.each(routes)("%s", (key, access) => {
    it("as anonymous", async () => {
      if (access === "public") await permitted(key, null);
      else await refused(key, null, 401);
    });

    it("as a member without the feature", async () => {
      const member = await makeUser("user", []);
      if (access === "public" || access === "signed-in") await permitted(key, member);
      else await refused(key, member, 403);
    });

    it.runIf(typeof access === "object")("as a member with the feature", async () => {
      if (typeof access !== "object") throw new Error("unreachable");
      await permitted(key, await makeUser("user", access.feature));
    });

    it("as an admin", async () => {
      await permitted(key, await makeAdmin());
    });
  });
});
