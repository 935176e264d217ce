import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertClicks } from "../src/db/queries/clicks";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { writeSetting } from "../src/db/queries/settings";
import { auditLog, campaigns, domains, sparks, userSubid1Assignments, type DomainStatus } from "../src/db/schema";
import { TRACKING_QUERY } from "../src/tracking/links";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, idParam, makeAdmin, makeUser, uniqueName } from "./helpers";

async function refs() {
  const lander = await insertLander(db(), { name: "Quiz LP", url: "https://lp.test/quiz" }).get();
  const offer = await insertOffer(db(), { name: "Sweeps", url: "https://offer.test/go", utmTemplate: "s={clickId}" }).get();
  return { landerId: lander.id, offerId: offer.id };
}

async function spark(name = uniqueName("spark")) {
  const [row] = await db()
    .insert(sparks)
    .values({ name, code: "<p>ad</p>", sparkId: uniqueName("sp") })
    .returning();
  return row!;
}

const auditOf = async (id: number) =>
  (
    await db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.entityId, String(id)))
      .orderBy(desc(auditLog.id))
  )
    .filter((r) => r.entityKind === "campaign")
    .map((r) => `${r.action} | ${r.summary}`);

async function domain(status: DomainStatus, subdomain: string | null = "trk") {
  const [row] = await db()
    .insert(domains)
    .values({ domain: `${uniqueName("d")}.xyz`, subdomain, status })
    .returning();
  return row!;
}

/** Settings are shared by the whole file: each test sets what it relies on. */
const settings = async (redirect: string, exit = "") => {
  await writeSetting(db(), "redirect_domain", redirect);
  await writeSetting(db(), "global_exit_domain", exit);
};

describe("campaigns", () => {
  it("creates a campaign and answers with names and every link resolved", async () => {
    await settings("https://go.example.com");
    const admin = await makeAdmin();
    const { landerId, offerId } = await refs();
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: " Spring ", landerId, offerId, bhToggle: true } }), 201);
    expect(c).toMatchObject({
      name: "Spring",
      landerId,
      landerName: "Quiz LP",
      offerId,
      offerName: "Sweeps",
      domainId: null,
      trackingDomain: null,
      bhToggle: true,
      trackingUrl: `https://go.example.com/r/${c.id}?${TRACKING_QUERY}`,
      exitUrl: "https://go.example.com/click",
      exitScriptUrl: "https://go.example.com/exit-tracker.js",
      exitScript: '<script src="https://go.example.com/exit-tracker.js" async></script>',
    });
  });

  it("uses the campaign's active tracking domain, and global_exit_domain for exits", async () => {
    await settings("https://go.example.com", "https://exit.example.com");
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const d = await domain("active", "trk");
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: "C", landerId, domainId: d.id } }), 201);
    expect(c.trackingDomain).toBe(`trk.${d.domain}`);
    expect(c.trackingUrl).toBe(`https://trk.${d.domain}/r/${c.id}?${TRACKING_QUERY}`);
    expect(c.exitUrl).toBe("https://exit.example.com/click");
    expect(c.exitScript).toBeNull();
  });

  it("has null links when no redirect domain can be determined (the red card)", async () => {
    await settings("");
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const api = client(admin);
    const c = await bodyOf(await api.campaigns.$post({ json: { name: "C", landerId } }), 201);
    expect([c.trackingUrl, c.exitUrl, c.exitScriptUrl, c.exitScript]).toEqual([null, null, null, null]);
    const choices = await bodyOf(await api.campaigns["tracking-domains"].$get(), 200);
    expect(choices.defaultRedirectBase).toBeNull();
  });

  it("offers only active domains with a subdomain as tracking domains", async () => {
    await settings("go.example.com");
    const admin = await makeAdmin();
    const usable = await domain("active", "go");
    const noSub = await domain("active", null);
    const failed = await domain("dns_failed", "trk");
    const body = await bodyOf(await client(admin).campaigns["tracking-domains"].$get(), 200);
    expect(body.defaultRedirectBase).toBe("https://go.example.com");
    expect(body.exitBase).toBe("https://go.example.com");
    const ids = body.domains.map((d) => d.id);
    expect(ids).toContain(usable.id);
    expect(ids).not.toContain(noSub.id);
    expect(ids).not.toContain(failed.id);
    expect(body.domains.find((d) => d.id === usable.id)?.host).toBe(`go.${usable.domain}`);
  });

  it("refuses references that do not exist or cannot be used, with 400 and a clear message", async () => {
    const admin = await makeAdmin();
    const { landerId, offerId } = await refs();
    const inactive = await domain("configuring_dns");
    const cases: [object, string][] = [
      [{ name: "C", landerId: 999999 }, "Lander 999999 does not exist"],
      [{ name: "C", landerId, offerId: 999999 }, "Offer 999999 does not exist"],
      [{ name: "C", landerId, domainId: 999999 }, "Domain 999999 does not exist"],
      [{ name: "C", landerId, domainId: inactive.id }, `${inactive.domain} is not an active domain with a subdomain`],
    ];
    for (const [json, message] of cases) {
      const res = await call("/api/campaigns", { cookie: admin.cookie, json });
      expect(res.status).toBe(400);
      expect((await res.json<ApiErrorBody>()).error).toBe(message);
    }
    const both = await call("/api/campaigns", { cookie: admin.cookie, json: { name: "C", landerId: 999998, offerId: 999997 } });
    expect(await both.json()).toEqual({
      error: "Some of the chosen items cannot be used",
      details: ["landerId: Lander 999998 does not exist", "offerId: Offer 999997 does not exist"],
    });
    expect(offerId).toBeGreaterThan(0);
  });

  it.each([
    [{ landerId: 1 }, "Campaign name is required"],
    [{ name: "  ", landerId: 1 }, "Campaign name is required"],
    [{ name: "C" }, "Select a lander"],
    [{ name: "C", landerId: "3" }, "Select a lander"],
    [{ name: "C", landerId: 0 }, "Select a lander"],
    [{ name: "C", landerId: 1, bhToggle: "yes" }, "bhToggle must be true or false"],
    [{ name: "C", landerId: 1, offerId: "none" }, "offerId must be an offer id or null"],
  ])("validates %j: %s", async (json, message) => {
    const admin = await makeAdmin();
    const res = await call("/api/campaigns", { cookie: admin.cookie, json });
    expect(res.status).toBe(400);
    const body = await res.json<ApiErrorBody>();
    expect([body.error, ...(body.details ?? [])].join(" | ")).toContain(message);
  });

  it("updates with bhToggle alone, clears the offer with null, and checks new references", async () => {
    const admin = await makeAdmin();
    const { landerId, offerId } = await refs();
    const api = client(admin);
    const c = await bodyOf(await api.campaigns.$post({ json: { name: "C", landerId, offerId } }), 201);
    expect(c.bhToggle).toBe(false);

    const toggled = await bodyOf(await api.campaigns[":id"].$patch({ ...idParam(c.id), json: { bhToggle: true } }), 200);
    expect(toggled).toMatchObject({ id: c.id, name: "C", bhToggle: true, offerId, landerId });

    const cleared = await bodyOf(await api.campaigns[":id"].$patch({ ...idParam(c.id), json: { offerId: null } }), 200);
    expect(cleared).toMatchObject({ offerId: null, offerName: null, exitScript: null, bhToggle: true });

    const bad = await call(`/api/campaigns/${c.id}`, { method: "PATCH", cookie: admin.cookie, json: { landerId: 999999 } });
    expect(bad.status).toBe(400);
    const empty = await call(`/api/campaigns/${c.id}`, { method: "PATCH", cookie: admin.cookie, json: {} });
    expect((await empty.json<ApiErrorBody>()).error).toBe("Send at least one field to change");
    expect((await call("/api/campaigns/999999", { method: "PATCH", cookie: admin.cookie, json: { bhToggle: true } })).status).toBe(404);
  });

  it("keeps a media buyer and a spark, checks them, audits them, and clears them with null", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const { landerId } = await refs();
    const first = await spark("Glow");
    const second = await spark("Shine");
    const c = await bodyOf(await api.campaigns.$post({ json: { name: "Attributed", landerId, mediaBuyer: " ana ", sparkId: first.id } }), 201);
    expect(c).toMatchObject({ mediaBuyer: "ana", sparkId: first.id });

    const moved = await bodyOf(await api.campaigns[":id"].$patch({ ...idParam(c.id), json: { mediaBuyer: "bo", sparkId: second.id } }), 200);
    expect(moved).toMatchObject({ mediaBuyer: "bo", sparkId: second.id });
    const cleared = await bodyOf(await api.campaigns[":id"].$patch({ ...idParam(c.id), json: { mediaBuyer: "", sparkId: null } }), 200);
    expect(cleared).toMatchObject({ mediaBuyer: null, sparkId: null });

    expect(await auditOf(c.id)).toEqual([
      `campaign.update | Attributed: Media buyer: bo → (none); Spark: ${second.name} (#${second.id}) → (none)`,
      `campaign.update | Attributed: Media buyer: ana → bo; Spark: ${first.name} (#${first.id}) → ${second.name} (#${second.id})`,
      `campaign.create | Name: Attributed; Lander: Quiz LP (#${landerId}); Offer: (none); Tracking Domain: (none); BH Toggle: off; Media buyer: ana; Spark: ${first.name} (#${first.id})`,
    ]);
  });

  it("refuses a spark that does not exist and a media buyer CAKE cannot carry, with 400 and nothing written", async () => {
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const gone = await spark();
    await db().delete(sparks).where(eq(sparks.id, gone.id));
    const cases: [object, string][] = [
      [{ name: "C", landerId, sparkId: gone.id }, `Spark ${gone.id} does not exist`],
      [{ name: "C", landerId, sparkId: "glow" }, "sparkId must be a spark id or null"],
      [{ name: "C", landerId, mediaBuyer: "x".repeat(51) }, "Media buyer ids are at most 50 characters"],
      [{ name: "C", landerId, mediaBuyer: 7 }, "Media buyer must be text or null"],
    ];
    const before = (await db().select().from(campaigns)).length;
    for (const [json, message] of cases) {
      const res = await call("/api/campaigns", { cookie: admin.cookie, json });
      expect(res.status, message).toBe(400);
      const body = await res.json<ApiErrorBody>();
      expect([body.error, ...(body.details ?? [])].join(" | ")).toContain(message);
    }
    expect((await db().select().from(campaigns)).length).toBe(before);
  });

  it("keeps running without its spark once the spark is deleted", async () => {
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const s = await spark();
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: "Sparkless", landerId, sparkId: s.id, mediaBuyer: "ana" } }), 201);
    expect((await call(`/api/sparks/${s.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    const [row] = await db().select().from(campaigns).where(eq(campaigns.id, c.id));
    expect(row).toMatchObject({ sparkId: null, mediaBuyer: "ana" });
  });

  it("offers every known media buyer as a choice: CAKE's, the assigned ones and the campaigns' own", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user");
    const { landerId } = await refs();
    const fresh = uniqueName("mb-campaign");
    const assigned = uniqueName("mb-assigned");
    await client(admin).campaigns.$post({ json: { name: "New buyer", landerId, mediaBuyer: fresh } });
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: assigned });
    const options = await bodyOf(await client(admin).users["assignment-options"].$get(), 200);
    expect(options.mediaBuyers).toEqual(expect.arrayContaining([fresh, assigned]));
    expect(options.mediaBuyers).toEqual([...new Set(options.mediaBuyers)].sort());
    expect(options.mediaBuyers).not.toContain("");
  });

  it("lets members with campaigns view, but only admins change anything", async () => {
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: "Viewable", landerId } }), 201);
    const member = await makeUser("user", ["campaigns"]);
    const list = await bodyOf(await client(member).campaigns.$get(), 200);
    expect(list.some((x) => x.id === c.id)).toBe(true);
    expect((await call(`/api/campaigns/${c.id}`, { method: "PATCH", cookie: member.cookie, json: { bhToggle: true } })).status).toBe(403);
    expect((await call(`/api/campaigns/${c.id}`, { method: "DELETE", cookie: member.cookie })).status).toBe(403);
    expect((await call("/api/campaigns/tracking-domains", { cookie: member.cookie })).status).toBe(403);
  });

  it("deletes a campaign once", async () => {
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: "Gone", landerId } }), 201);
    expect((await call(`/api/campaigns/${c.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect((await call(`/api/campaigns/${c.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(404);
  });

  it("never gives a deleted campaign's id again, also when its lander's deletion took it", async () => {
    const admin = await makeAdmin();
    const { landerId } = await refs();
    const create = async (name: string, lander = landerId) => (await bodyOf(await client(admin).campaigns.$post({ json: { name, landerId: lander } }), 201)).id;
    const newest = await create("Newest");
    expect((await call(`/api/campaigns/${newest}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    const next = await create("Next");
    expect(next).toBeGreaterThan(newest);
    // A lander's deletion takes its campaigns along (the model's cascade): their ids are kept from reuse too.
    const other = await insertLander(db(), { name: "Other LP", url: "https://lp.test/other" }).get();
    const taken = await create("Taken with its lander", other.id);
    expect((await call(`/api/landers/${other.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect(await db().select().from(campaigns).where(eq(campaigns.id, taken))).toEqual([]);
    expect(await create("After the lander")).toBeGreaterThan(taken);
  });

  it("names the clicks a delete takes along, for the confirmation, and only to admins", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["campaigns"]);
    const { landerId } = await refs();
    const c = await bodyOf(await client(admin).campaigns.$post({ json: { name: "Busy", landerId } }), 201);
    const at = Date.UTC(2026, 9, 30, 23, 59);
    await insertClicks(
      db(),
      [0, 1, 2].map((i) => ({ clickId: crypto.randomUUID(), campaignId: c.id, clickedAt: at + i * 3_600_000 })),
    );
    const res = await call(`/api/campaigns/${c.id}/deletion-impact`, { cookie: admin.cookie });
    expect(await res.json()).toEqual({
      campaigns: [{ id: c.id, name: "Busy", clicks: 3 }],
      clicks: 3,
      firstClickAt: new Date(at).toISOString(),
      lastClickAt: new Date(at + 2 * 3_600_000).toISOString(),
    });
    expect((await call(`/api/campaigns/${c.id}/deletion-impact`, { cookie: member.cookie })).status).toBe(403);
    await call(`/api/campaigns/${c.id}`, { method: "DELETE", cookie: admin.cookie });
    expect((await call(`/api/campaigns/${c.id}/deletion-impact`, { cookie: admin.cookie })).status).toBe(404);
  });
});
