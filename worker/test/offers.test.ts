import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { campaigns } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
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
    expect(body.error).toContain("{clickId}, {campaign}, {adGroup}, {creative}, {placement}, {campaignName}, {adGroupName}, {creativeName}");
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
    const utmTemplate = "a={clickId}&b={campaign}&c={adGroup}&d={creative}&e={placement}&f={campaignName}&g={adGroupName}&h={creativeName}&utm_source=tiktok";
    expect((await call("/api/offers", { cookie: admin.cookie, json: { ...valid, utmTemplate } })).status).toBe(201);
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
