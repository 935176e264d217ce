import { asc, desc, eq, gt, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, settings, tiktokEventSends } from "../src/db/schema";
import type { TikTokEventSettingsInput } from "../src/schemas/tiktok-events";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, uniqueName } from "./helpers";

/** The newest entries about one entity, newest first. */
const entriesFor = (kind: string, id: string | number) =>
  db()
    .select()
    .from(auditLog)
    .where(eq(auditLog.entityId, String(id)))
    .orderBy(desc(auditLog.id))
    .then((rows) => rows.filter((r) => r.entityKind === kind));

describe("audit entries of the tracking setup", () => {
  it("records a lander's create, edit and delete with who and a before → after, and nothing for a missing id", async () => {
    const admin = await makeAdmin();
    const created = await bodyOf(await client(admin).landers.$post({ json: { name: "Quiz", url: "https://lp.test/a" } }), 201);
    await call(`/api/landers/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { url: "https://lp.test/b" } });
    await call(`/api/landers/${created.id}`, { method: "DELETE", cookie: admin.cookie });
    const rows = await entriesFor("lander", created.id);
    expect(rows.map((r) => [r.action, r.summary, r.actorName])).toEqual([
      ["lander.delete", "Name: Quiz; URL: https://lp.test/b", admin.username],
      ["lander.update", "Quiz: URL: https://lp.test/a → https://lp.test/b", admin.username],
      ["lander.create", "Name: Quiz; URL: https://lp.test/a", admin.username],
    ]);
    expect(rows.every((r) => r.actorId === admin.id)).toBe(true);

    const missing = await call("/api/landers/999999", { method: "DELETE", cookie: admin.cookie });
    expect(missing.status).toBe(404);
    expect(await entriesFor("lander", 999999)).toEqual([]);
  });
});

describe("GET /api/audit", () => {
  it("refuses a range over 10 years with 400", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/audit?startDate=2015-01-01&endDate=2025-12-31", { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toMatch(/at most 400 days/);
  });

  it("is refused to members", async () => {
    const member = await makeUser("user", ["dashboard", "campaigns", "landers", "clicks", "sparks", "offers", "performance"]);
    expect((await call("/api/audit", { cookie: member.cookie })).status).toBe(403);
    expect((await call("/api/audit/export", { cookie: member.cookie })).status).toBe(403);
  });

  it("lists newest first", async () => {
    const admin = await makeAdmin();
    await call("/api/landers", { cookie: admin.cookie, json: { name: "First", url: "https://lp.test/1" } });
    await call("/api/landers", { cookie: admin.cookie, json: { name: "Second", url: "https://lp.test/2" } });
    const body = await bodyOf(await client(admin).audit.$get({ query: { userId: admin.id } }), 200);
    expect(body.total).toBe(2);
    expect(body.entries.map((e) => e.summary)).toEqual(["Name: Second; URL: https://lp.test/2", "Name: First; URL: https://lp.test/1"]);
  });
});

/** Every entry about a kind, newest first, as "action | summary". */
async function trail(kind: string, id?: string | number) {
  const rows = await db().select().from(auditLog).where(eq(auditLog.entityKind, kind)).orderBy(desc(auditLog.id));
  return rows.filter((r) => id === undefined || r.entityId === String(id)).map((r) => `${r.action} | ${r.summary}`);
}

describe("audit entries of every kind of change", () => {
  it("campaigns, the BH Toggle included; a refused write leaves no entry", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const lander = await bodyOf(await api.landers.$post({ json: { name: "LP", url: "https://lp.test/x" } }), 201);
    const created = await bodyOf(await api.campaigns.$post({ json: { name: "Spring", landerId: lander.id } }), 201);
    await call(`/api/campaigns/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { bhToggle: true } });
    await call(`/api/campaigns/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { name: "Summer" } });
    const offer = await bodyOf(await api.offers.$post({ json: { name: "Sweeps", url: "https://o.test/s", utmTemplate: "s2={clickId}" } }), 201);
    await call(`/api/campaigns/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { offerId: offer.id } });
    // Saving the same values again is no change: nothing is logged.
    await call(`/api/campaigns/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { name: "Summer", landerId: lander.id, bhToggle: true } });
    expect(await trail("campaign", created.id)).toEqual([
      `campaign.update | Summer: Offer: (none) → Sweeps (#${offer.id})`,
      "campaign.update | Spring: Name: Spring → Summer",
      "campaign.bh_toggle | Spring: BH Toggle: off → on",
      `campaign.create | Name: Spring; Lander: LP (#${lander.id}); Offer: (none); Tracking Domain: (none); BH Toggle: off; Media buyer: (none); Spark: (none)`,
    ]);
    await call(`/api/campaigns/${created.id}`, { method: "DELETE", cookie: admin.cookie });
    expect((await trail("campaign", created.id))[0]).toBe(
      `campaign.delete | Name: Summer; Lander: LP (#${lander.id}); Offer: Sweeps (#${offer.id}); Tracking Domain: (none); BH Toggle: on; Media buyer: (none); Spark: (none)`,
    );
    const before = (await db().select().from(auditLog)).length;
    const bad = await call("/api/campaigns", { cookie: admin.cookie, json: { name: "Ghost", landerId: 987654 } });
    expect(bad.status).toBe(400);
    expect((await db().select().from(auditLog)).length).toBe(before);
  }, 30_000);

  it("users: create, permissions, assignments, role, delete", async () => {
    const admin = await makeAdmin();
    const created = await bodyOf(await client(admin).users.$post({ json: { username: "audited-mia", password: "mia-password-1", role: "user" } }), 201);
    await call(`/api/users/${created.id}/permissions`, { cookie: admin.cookie, json: { features: ["campaigns", "clicks"] } });
    await call(`/api/users/${created.id}/permissions`, { cookie: admin.cookie, json: { features: ["clicks", "sparks"] } });
    await call(`/api/users/${created.id}/permissions`, { cookie: admin.cookie, json: { features: ["sparks", "clicks"] } });
    const spark = await bodyOf(await client(admin).sparks.$post({ json: { name: "Hook A", code: "<!-- a -->" } }), 201);
    await call(`/api/users/${created.id}/spark-assignments`, { cookie: admin.cookie, json: { sparkIds: [spark.id] } });
    await call(`/api/users/${created.id}/vcn-assignments`, { cookie: admin.cookie, json: { vcnNicknames: ["Ads 1"] } });
    await call(`/api/users/${created.id}/media-buyers`, { cookie: admin.cookie, json: { subid1s: ["mb7"] } });
    await call(`/api/users/${created.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(await trail("user", created.id)).toEqual([
      "user.delete | audited-mia (user)",
      "user.media_buyers | audited-mia: added mb7",
      "user.vcn_assignments | audited-mia: added Ads 1",
      `user.spark_assignments | audited-mia: sparks added Hook A (#${spark.id})`,
      "user.permissions | audited-mia: added sparks; removed campaigns",
      "user.permissions | audited-mia: added campaigns, clicks",
      "user.create | audited-mia (user)",
    ]);
    // A taken username creates nothing and records nothing.
    const again = await call("/api/users", { cookie: admin.cookie, json: { username: admin.username, password: "whatever-1", role: "user" } });
    expect(again.status).toBe(409);
    expect((await trail("user")).filter((t) => t.includes(`user.create | ${admin.username}`))).toEqual([]);
  }, 30_000);

  it("settings, offers, sparks (a member's too) and invoices", async () => {
    const admin = await makeAdmin();
    await call("/api/settings", { cookie: admin.cookie, json: { key: "max_domain_price", value: "9.5" } });
    expect((await trail("setting", "max_domain_price"))[0]).toMatch(/^setting\.update \| max_domain_price: .+ → 9\.50$/);
    // A form saves all its settings: the unchanged ones log nothing ("(none) → (none)" no more).
    const count = async () => (await trail("setting")).length;
    const before = await count();
    await call("/api/settings", { cookie: admin.cookie, json: { key: "max_domain_price", value: "9.50" } });
    await call("/api/settings", { cookie: admin.cookie, json: { key: "global_exit_domain", value: "" } });
    expect(await count()).toBe(before);
    // And a long value changed past what a summary shows is still a change.
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.exit`;
    await call("/api/settings", { cookie: admin.cookie, json: { key: "global_exit_domain", value: `${long}1.com` } });
    await call("/api/settings", { cookie: admin.cookie, json: { key: "global_exit_domain", value: `${long}2.com` } });
    expect(await count()).toBe(before + 2);

    const offer = await bodyOf(await client(admin).offers.$post({ json: { name: "Sweeps", url: "https://o.test/a", utmTemplate: "s1={clickId}" } }), 201);
    await call(`/api/offers/${offer.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(await trail("offer", offer.id)).toEqual([
      "offer.delete | Name: Sweeps; URL: https://o.test/a; UTM template: s1={clickId}",
      "offer.create | Name: Sweeps; URL: https://o.test/a; UTM template: s1={clickId}",
    ]);

    const member = await makeUser("user", ["sparks"]);
    const spark = await bodyOf(await client(member).sparks.$post({ json: { name: "Hook A", code: "<!-- a -->" } }), 201);
    await call(`/api/sparks/${spark.id}`, { method: "DELETE", cookie: member.cookie });
    const sparkRows = await db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.entityId, String(spark.id)));
    expect(sparkRows.filter((r) => r.entityKind === "spark").map((r) => [r.action, r.actorName])).toEqual([
      ["spark.create", member.username],
      ["spark.delete", member.username],
    ]);

    const invoice = await bodyOf(
      await client(admin).invoices.$post({
        json: { mediaBuyer: "mb1", invoiceDate: "2025-02-28", amountPaid: "100", revenueSharePercent: "10", profit: "5", notes: "" },
      }),
      201,
    );
    await call(`/api/invoices/${invoice.id}`, { method: "PATCH", cookie: admin.cookie, json: { amountPaid: "100.00", profit: "7.5" } });
    await call(`/api/invoices/${invoice.id}`, { method: "PATCH", cookie: admin.cookie, json: { profit: "7.50" } });
    expect(await trail("invoice", invoice.id)).toEqual([
      "invoice.update | mb1 2025-02-28: Profit: 5.00 → 7.50",
      "invoice.create | Media buyer: mb1; Date: 2025-02-28; Amount paid: 100.00; Revenue share %: 10.00; Profit: 5.00; Notes: (none)",
    ]);
  }, 30_000);

  it("statement uploads (their counts) and syncs run by hand", async () => {
    const admin = await makeAdmin();
    const form = new FormData();
    form.append(
      "file",
      new File(["Registered Card Last 4,Status,Reference Id\n*1234,PENDING,audit-1\n*1234,CLEARED,audit-2\n,CLEARED,audit-3\n"], "april.csv"),
    );
    expect((await call("/api/transactions/upload", { body: form, cookie: admin.cookie })).status).toBe(200);
    expect(await trail("statement", "april.csv")).toEqual(["statement.upload | 1 cleared, 1 pending or declined, 0 duplicates, 1 rows refused"]);

    await call("/api/sync/run", { cookie: admin.cookie, json: { source: "all" } });
    const syncs = await trail("sync");
    expect(syncs.slice(0, 2).sort()).toEqual([
      expect.stringMatching(/^sync\.run \| CAKE \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d: not configured$/),
      expect.stringMatching(/^sync\.run \| TikTok \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d: not configured$/),
    ]);
  });
});

/** The Events API pixel code, written past the API (and so past the audit). */
const setPixel = (value: string) =>
  db().insert(settings).values({ key: "tiktok_events_pixel_code", value, updatedAt: Date.now() }).onConflictDoUpdate({ target: settings.key, set: { value } });

describe("audit entries of what is not an edit on a screen", () => {
  it("the TikTok Events API settings (who set a test event code) and Resend failed", async () => {
    const admin = await makeAdmin();
    const put = (json: TikTokEventSettingsInput) => call("/api/tiktok-events/settings", { method: "PUT", json, cookie: admin.cookie });
    // Two failed conversions, resent once sending is set up (Resend failed refuses while it is
    // not). The pixel is written straight to settings so the audited changes below are the API's.
    await setPixel("CRESENDPIXEL");
    const failed = await db()
      .insert(tiktokEventSends)
      .values(["audit-c1", "audit-c2"].map((conversionId) => ({ conversionId, event: "CompletePayment", status: "failed" as const, eventAt: Date.now() })))
      .returning({ id: tiktokEventSends.id });
    expect((await call("/api/tiktok-events/resend", { json: {}, cookie: admin.cookie })).status).toBe(200);
    expect(await trail("sync", "tiktok_events")).toEqual(["sync.tiktok_resend | Resend failed: 2 conversions put back on the queue to TikTok"]);
    // With nothing failed, a resend resends nothing and logs nothing (the queue finds the rows gone).
    await db()
      .delete(tiktokEventSends)
      .where(
        inArray(
          tiktokEventSends.id,
          failed.map((f) => f.id),
        ),
      );
    await call("/api/tiktok-events/resend", { json: {}, cookie: admin.cookie });
    expect(await trail("sync", "tiktok_events")).toHaveLength(1);
    await setPixel("");

    const settings = { pixelCode: "CAUDITPIXEL", testEventCode: "", pendingEvent: "", currency: "USD" } as const;
    expect((await put(settings)).status).toBe(200);
    expect((await put({ ...settings, testEventCode: "TEST04812" })).status).toBe(200);
    expect((await put({ ...settings, testEventCode: "TEST04812" })).status).toBe(200);
    expect((await put({ ...settings, pixelCode: "" })).status).toBe(200);
    const rows = await db().select().from(auditLog).where(eq(auditLog.entityId, "tiktok_events")).orderBy(desc(auditLog.id));
    expect(rows.filter((r) => r.entityKind === "setting").map((r) => [r.action, r.actorName, r.summary])).toEqual([
      ["setting.update", admin.username, "Conversions to TikTok: Pixel code: CAUDITPIXEL → (none); Test event code: TEST04812 → (none)"],
      ["setting.update", admin.username, "Conversions to TikTok: Test event code: (none) → TEST04812"],
      ["setting.update", admin.username, "Conversions to TikTok: Pixel code: (none) → CAUDITPIXEL"],
    ]);
  }, 30_000);

  it("failed sign-ins, and a lockout once, when it starts", async () => {
    const user = await makeUser();
    const ip = "10.9.0.1";
    const login = (username: string, password: string) => call("/api/login", { json: { username, password }, headers: { "cf-connecting-ip": ip } });
    const entries = async () =>
      (await db().select().from(auditLog).where(eq(auditLog.entityId, user.id)).orderBy(asc(auditLog.id)))
        .filter((r) => r.entityKind === "session")
        .map((r) => [r.action, r.actorName, r.summary, r.ip]);
    for (let i = 0; i < 5; i++) expect((await login(user.username, `wrong password ${i}`)).status).toBe(401);
    // Locked: the refused tries during the lock are not logged one by one.
    expect((await login(user.username, user.password)).status).toBe(429);
    expect((await login(user.username, "wrong again")).status).toBe(429);
    expect(await entries()).toEqual([
      ...Array.from({ length: 5 }, () => ["session.sign_in_refused", user.username, "Wrong password", ip]),
      ["session.locked_out", user.username, `Sign-in for ${user.username} locked for 15 minutes: 5 failed attempts`, ip],
    ]);

    // An unknown username: refused on record, without what was typed (it may be a password).
    const typed = uniqueName("typo-password");
    expect((await call("/api/login", { json: { username: typed, password: "x".repeat(8) }, headers: { "cf-connecting-ip": "10.9.0.2" } })).status).toBe(401);
    const [unknown] = await db().select().from(auditLog).where(eq(auditLog.action, "session.sign_in_refused")).orderBy(desc(auditLog.id)).limit(1);
    expect(unknown).toMatchObject({ actorId: null, actorName: "anonymous", entityId: null, ip: "10.9.0.2" });
    expect(JSON.stringify(unknown)).not.toContain(typed);
  }, 30_000);

  it("twenty failures from one IP lock it, on record once", async () => {
    const ip = "10.9.1.1";
    const since = (await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0]?.id ?? 0;
    for (let i = 0; i < 21; i++)
      await call("/api/login", { json: { username: uniqueName("spray"), password: "wrong password" }, headers: { "cf-connecting-ip": ip } });
    const rows = (await db().select().from(auditLog).where(gt(auditLog.id, since))).filter((r) => r.ip === ip);
    expect(rows.filter((r) => r.action === "session.sign_in_refused")).toHaveLength(20);
    expect(rows.filter((r) => r.action === "session.locked_out").map((r) => r.summary)).toEqual([
      "Sign-in from this IP address locked for 15 minutes: 20 failed attempts",
    ]);
  }, 60_000);
});

describe("the audit screen's calls", () => {
  it("filters by user, kind and days, pages, and exports CSV", async () => {
    const admin = await makeAdmin();
    for (let i = 0; i < 55; i++)
      await db()
        .insert(auditLog)
        .values({
          at: Date.parse("2024-03-10T12:00:00Z") + i,
          actorId: admin.id,
          actorName: admin.username,
          action: "offer.update",
          entityKind: "offer",
          entityId: String(i),
          summary: `=change ${i}`,
        });
    await db()
      .insert(auditLog)
      .values({
        at: Date.parse("2024-03-12T12:00:00Z"),
        actorId: admin.id,
        actorName: admin.username,
        action: "lander.update",
        entityKind: "lander",
        entityId: "1",
        summary: "x",
      });
    const query = { userId: admin.id, entityKind: "offer", startDate: "2024-03-10", endDate: "2024-03-11" } as const;
    const q = new URLSearchParams(query).toString();
    const audit = client(admin).audit;
    const first = await bodyOf(await audit.$get({ query }), 200);
    expect(first.total).toBe(55);
    expect(first.totalPages).toBe(2);
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0]).toMatchObject({ entityId: "54", at: "2024-03-10T12:00:00.054Z" });
    const second = await bodyOf(await audit.$get({ query: { ...query, page: "2" } }), 200);
    expect(second.entries.map((e) => e.entityId)).toEqual(["4", "3", "2", "1", "0"]);
    const outside = await bodyOf(await audit.$get({ query: { userId: admin.id, startDate: "2024-03-11", endDate: "2024-03-11" } }), 200);
    expect(outside.total).toBe(0);

    const csv = await call(`/api/audit/export?${q}`, { cookie: admin.cookie });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-\d{4}-\d\d-\d\d\.csv"$/);
    const bytes = new Uint8Array(await csv.arrayBuffer());
    // A byte-order mark first, so spreadsheets read UTF-8.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes).trim().split("\r\n");
    expect(lines[0]).toBe("Time (UTC),User,Action,Entity,Entity ID,Change,IP Address");
    expect(lines).toHaveLength(56);
    // A summary starting like a formula is written as text.
    expect(lines[1]).toBe(`2024-03-10T12:00:00.054Z,${admin.username},offer.update,offer,54,'=change 54,`);
  });

  it("reads an empty parameter as no filter, on the list and the export", async () => {
    const admin = await makeAdmin();
    await client(admin).landers.$post({ json: { name: "Blank", url: "https://lp.test/blank" } });
    const audit = client(admin).audit;
    const blank = { userId: "", entityKind: "", startDate: "", endDate: "" };
    const list = await bodyOf(await audit.$get({ query: { ...blank, page: "" } }), 200);
    const unfiltered = await bodyOf(await audit.$get({ query: {} }), 200);
    expect(list.page).toBe(1);
    expect(list.entries[0]?.summary).toBe("Name: Blank; URL: https://lp.test/blank");
    expect(list).toEqual(unfiltered);
    const csv = await audit.export.$get({ query: blank });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe(await (await audit.export.$get({ query: {} })).text());
  });

  it.each([
    ["startDate=2024-03-10&endDate=2024-03-01", "startDate must not be after endDate"],
    ["startDate=2024-01-01&endDate=2025-02-04", "The date range can be at most 400 days: the audit log keeps no more"],
    [
      "entityKind=planet",
      "entityKind must be one of user, session, setting, lander, offer, campaign, spark, invoice, statement, sync, domain, channel, rule, api_key, webhook",
    ],
    ["userId=nobody", "userId must be a user id"],
    ["page=0", "page must be a whole number from 1"],
    ["startDate=2024-02-30", "startDate must be a real date written YYYY-MM-DD"],
  ])("refuses %s with 400", async (query, message) => {
    const admin = await makeAdmin();
    const res = await call(`/api/audit?${query}`, { cookie: admin.cookie });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe(message);
    expect((await call(`/api/audit/export?${query.replace("page=0", "entityKind=planet")}`, { cookie: admin.cookie })).status).toBe(400);
  });

  it("is kept 400 days by the cron", async () => {
    const { runScheduled } = await import("../src/jobs");
    const { env } = await import("cloudflare:workers");
    const now = Date.now();
    const old = await db()
      .insert(auditLog)
      .values({ at: now - 401 * 86_400_000, actorName: "x", action: "offer.update", entityKind: "offer", entityId: "old-one" })
      .returning()
      .get();
    const kept = await db()
      .insert(auditLog)
      .values({ at: now - 399 * 86_400_000, actorName: "x", action: "offer.update", entityKind: "offer", entityId: "kept-one" })
      .returning()
      .get();
    await runScheduled(env as Parameters<typeof runScheduled>[0], now);
    const ids = (await db().select({ id: auditLog.id }).from(auditLog)).map((r) => r.id);
    expect(ids).not.toContain(old.id);
    expect(ids).toContain(kept.id);
  });
});
