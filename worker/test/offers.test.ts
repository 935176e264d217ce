import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { campaigns, offers } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { attributableTemplate, attributionProblem, DEFAULT_UTM_TEMPLATE, OLD_DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
import { bodyOf, call, client, db, idParam, makeAdmin, makeUser } from "./helpers";

const valid = { name: "Sweeps US", url: "https://offer.test/go?aff=12", utmTemplate: DEFAULT_UTM_TEMPLATE };

describe("offers", () => {
  it("lets an admin create, edit and delete an offer", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const offer = await bodyOf(await api.offers.$post({ json: valid }), 201);
    expect(offer).toMatchObject(valid);

    const edited = await bodyOf(
      await api.offers[":id"].$patch({ ...idParam(offer.id), json: { ...valid, utmTemplate: "?s1={clickId}&s2={creativeName}" } }),
      200,
    );
    expect(edited.utmTemplate).toBe("s1={clickId}&s2={creativeName}");

    expect((await api.offers[":id"].$delete(idParam(offer.id))).status).toBe(200);
    expect((await api.offers[":id"].$patch({ ...idParam(offer.id), json: { name: "gone" } })).status).toBe(404);
  });

  it("is readable with offers, campaigns or dashboard, and writable only by admins", async () => {
    for (const feature of ["offers", "campaigns", "dashboard"] as const) {
      const member = await makeUser("user", [feature]);
      expect((await call("/api/offers", { cookie: member.cookie })).status).toBe(200);
      expect((await call("/api/offers", { cookie: member.cookie, json: valid })).status).toBe(403);
    }
    expect((await call("/api/offers", { cookie: (await makeUser("user", ["sparks"])).cookie })).status).toBe(403);
  });

  it("names unknown template tokens", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/offers", { cookie: admin.cookie, json: { ...valid, utmTemplate: "sub1={clickid}&sub2={adset}" } });
    expect(res.status).toBe(400);
    const body = await res.json<ApiErrorBody>();
    expect(body.error).toContain("Unknown tokens {clickid}, {adset}.");
    expect(body.error).toContain(
      "{clickId}, {campaign}, {adGroup}, {creative}, {placement}, {campaignName}, {adGroupName}, {creativeName}, {mediaBuyer}, {spark}",
    );
  });

  it.each([
    [{ ...valid, name: "" }, "Name is required"],
    [{ ...valid, url: " " }, "URL is required"],
    [{ ...valid, utmTemplate: "  " }, "UTM template is required"],
    [{ ...valid, utmTemplate: "?&" }, "UTM template is required"],
    [{ ...valid, url: "javascript:alert(1)" }, "URL must start with http:// or https://"],
    [{ ...valid, url: "https://offer.test@evil.example/" }, "URL must not contain a user name or password"],
    [{ ...valid, utmTemplate: "sub1={clickId" }, "Braces must enclose a token, like {clickId}"],
    [{ ...valid, utmTemplate: "sub1={clickId} sub2=x" }, "The UTM template cannot contain spaces"],
    [{ ...valid, utmTemplate: "sub1={clickId}#x" }, "The UTM template cannot contain #"],
    [{ ...valid, utmTemplate: "a".repeat(2001) }, "UTM template must be at most 2000 characters"],
  ])("refuses %j: %s", async (body, message) => {
    const admin = await makeAdmin();
    const res = await call("/api/offers", { cookie: admin.cookie, json: body });
    expect(res.status).toBe(400);
    const error = await res.json<ApiErrorBody>();
    expect([error.error, ...(error.details ?? [])].join(" | ")).toContain(message);
  });

  it("accepts a template using every token", async () => {
    const admin = await makeAdmin();
    const utmTemplate =
      "a={clickId}&b={campaign}&c={adGroup}&d={creative}&e={placement}&f={campaignName}&g={adGroupName}&h={creativeName}&i={mediaBuyer}&j={spark}&utm_source=tiktok";
    expect((await call("/api/offers", { cookie: admin.cookie, json: { ...valid, utmTemplate } })).status).toBe(201);
  });

  it("gives an offer created without a template the default, which CAKE's reports can attribute", async () => {
    const admin = await makeAdmin();
    const offer = await bodyOf(await client(admin).offers.$post({ json: { name: "No template", url: "https://offer.test/d" } }), 201);
    expect(offer.utmTemplate).toBe("sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={adGroup}&sub5={creative}");
    expect(offer.attributionProblem).toBeNull();
  });

  it("tells admins which offers cannot be attributed, and the one-click fix saves like any edit", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const broken = await bodyOf(await api.offers.$post({ json: { ...valid, name: "Old default", utmTemplate: OLD_DEFAULT_UTM_TEMPLATE } }), 201);
    expect(broken.attributionProblem).toBe(attributionProblem(OLD_DEFAULT_UTM_TEMPLATE));
    const listed = await bodyOf(await api.offers.$get(), 200);
    expect(listed.find((o) => o.id === broken.id)).toMatchObject({ attributionProblem: expect.stringContaining('show as "Direct"') });

    // What Offer Config's fix sends: the fixed template through the normal PATCH.
    const fixed = await bodyOf(await api.offers[":id"].$patch({ ...idParam(broken.id), json: { utmTemplate: attributableTemplate(broken.utmTemplate) } }), 200);
    expect(fixed).toMatchObject({ utmTemplate: DEFAULT_UTM_TEMPLATE, attributionProblem: null });

    // Members get the choice only: no template, no verdict on it.
    const member = await makeUser("user", ["campaigns"]);
    const theirs = await bodyOf(await client(member).offers.$get(), 200);
    expect(theirs.find((o) => o.id === broken.id)).toEqual({ id: broken.id, name: "Old default" });
  });

  it("names the campaigns a delete leaves without a destination, for the confirmation, and only to admins", async () => {
    const admin = await makeAdmin();
    const offer = await bodyOf(await client(admin).offers.$post({ json: valid }), 201);
    const lander = await insertLander(db(), { name: "LP", url: "https://lp.test/" }).get();
    const b = await insertCampaign(db(), { name: "b spring", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
    const a = await insertCampaign(db(), { name: "A summer", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
    await insertCampaign(db(), { name: "Elsewhere", landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get();
    const impact = await bodyOf(await client(admin).offers[":id"]["deletion-impact"].$get(idParam(offer.id)), 200);
    expect(impact).toEqual({
      campaigns: [
        { id: a.id, name: "A summer", clicks: 0 },
        { id: b.id, name: "b spring", clicks: 0 },
      ],
      clicks: 0,
      firstClickAt: null,
      lastClickAt: null,
    });
    const member = await makeUser("user", ["offers", "campaigns"]);
    expect((await call(`/api/offers/${offer.id}/deletion-impact`, { cookie: member.cookie })).status).toBe(403);
    await call(`/api/offers/${offer.id}`, { method: "DELETE", cookie: admin.cookie });
    expect((await call(`/api/offers/${offer.id}/deletion-impact`, { cookie: admin.cookie })).status).toBe(404);
  });

  it("moves offers on the old default template to the new one in migration 0007, and leaves other templates alone", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0007_"));
    const update = migration?.queries.find((q) => q.includes("UPDATE `offers`"));
    expect(update).toBeDefined();
    const old = await insertOffer(db(), { name: "Old", url: "https://offer.test/o", utmTemplate: OLD_DEFAULT_UTM_TEMPLATE }).get();
    const own = await insertOffer(db(), { name: "Own", url: "https://offer.test/w", utmTemplate: `${OLD_DEFAULT_UTM_TEMPLATE}&aff=1` }).get();
    await env.DB.prepare(update!).run();
    const rows = await db()
      .select({ id: offers.id, utmTemplate: offers.utmTemplate })
      .from(offers)
      .where(inArray(offers.id, [old.id, own.id]))
      .orderBy(offers.id);
    expect(rows).toEqual([
      { id: old.id, utmTemplate: DEFAULT_UTM_TEMPLATE },
      { id: own.id, utmTemplate: `${OLD_DEFAULT_UTM_TEMPLATE}&aff=1` },
    ]);
  });

  it("leaves its campaigns running without an offer when deleted", async () => {
    const admin = await makeAdmin();
    const offer = await bodyOf(await client(admin).offers.$post({ json: valid }), 201);
    const lander = await insertLander(db(), { name: "LP", url: "https://lp.test/" }).get();
    const campaign = await insertCampaign(db(), { name: "C", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
    await call(`/api/offers/${offer.id}`, { method: "DELETE", cookie: admin.cookie });
    const [row] = await db().select().from(campaigns).where(eq(campaigns.id, campaign.id));
    expect(row?.offerId).toBeNull();
  });
});
