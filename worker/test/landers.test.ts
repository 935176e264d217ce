import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertClicks } from "../src/db/queries/clicks";
import { campaigns, clicks } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, idParam, makeAdmin, makeUser } from "./helpers";

describe("landers", () => {
  it("lets an admin add, rename and delete a lander", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const lander = await bodyOf(await api.landers.$post({ json: { name: "  Quiz LP ", url: " https://lp.test/quiz?v=2 " } }), 201);
    expect(lander).toMatchObject({ name: "Quiz LP", url: "https://lp.test/quiz?v=2" });
    expect(lander.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);

    const renamed = await bodyOf(await api.landers[":id"].$patch({ ...idParam(lander.id), json: { name: "Quiz LP v3" } }), 200);
    expect(renamed).toMatchObject({ id: lander.id, name: "Quiz LP v3", url: "https://lp.test/quiz?v=2" });

    const list = await bodyOf(await api.landers.$get(), 200);
    expect(list.find((l) => l.id === lander.id)?.name).toBe("Quiz LP v3");

    expect(await bodyOf(await api.landers[":id"].$delete(idParam(lander.id)), 200)).toEqual({ ok: true });
    expect((await api.landers[":id"].$delete(idParam(lander.id))).status).toBe(404);
  });

  it("lists newest first for members with landers or campaigns", async () => {
    const admin = await makeAdmin();
    const a = await bodyOf(await client(admin).landers.$post({ json: { name: "Older", url: "https://lp.test/a" } }), 201);
    const b = await bodyOf(await client(admin).landers.$post({ json: { name: "Newer", url: "https://lp.test/b" } }), 201);
    for (const feature of ["landers", "campaigns"] as const) {
      const member = await makeUser("user", [feature]);
      const ids = (await bodyOf(await client(member).landers.$get(), 200)).map((l) => l.id);
      expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    }
  });

  it("refuses members' writes with 403", async () => {
    const member = await makeUser("user", ["landers", "campaigns"]);
    const res = await call("/api/landers", { cookie: member.cookie, json: { name: "Mine", url: "https://lp.test/" } });
    expect(res.status).toBe(403);
  });

  it.each([
    [{ url: "https://lp.test/" }, "Name is required"],
    [{ name: "   ", url: "https://lp.test/" }, "Name is required"],
    [{ name: "LP" }, "URL is required"],
    [{ name: "LP", url: "lp.test/page" }, "URL must start with http:// or https://"],
    [{ name: "LP", url: "javascript:alert(1)//https://" }, "URL must start with http:// or https://"],
    [{ name: "LP", url: "data:text/html,<script>alert(1)</script>" }, "URL must start with http:// or https://"],
    [{ name: "x".repeat(256), url: "https://lp.test/" }, "Name must be at most 255 characters"],
    [{ name: "LP", url: 42 }, "URL is required"],
  ])("refuses %j: %s", async (body, message) => {
    const admin = await makeAdmin();
    const res = await call("/api/landers", { cookie: admin.cookie, json: body });
    expect(res.status).toBe(400);
    const error = await res.json<ApiErrorBody>();
    expect([error.error, ...(error.details ?? [])].join(" | ")).toContain(message);
  });

  it("needs something to change, a known lander and a numeric id", async () => {
    const admin = await makeAdmin();
    const empty = await call("/api/landers/1", { method: "PATCH", cookie: admin.cookie, json: {} });
    expect(empty.status).toBe(400);
    expect((await empty.json<ApiErrorBody>()).error).toBe("Send a name or a URL to change");
    expect((await call("/api/landers/999999", { method: "PATCH", cookie: admin.cookie, json: { name: "X" } })).status).toBe(404);
    for (const id of ["abc", "0", "1.5"]) {
      const bad = await call(`/api/landers/${id}`, { method: "DELETE", cookie: admin.cookie });
      expect(bad.status, id).toBe(400);
      expect(await bad.json(), id).toHaveProperty("error");
    }
  });

  it("takes its campaigns with it when deleted (the model's cascade)", async () => {
    const admin = await makeAdmin();
    const lander = await bodyOf(await client(admin).landers.$post({ json: { name: "LP", url: "https://lp.test/" } }), 201);
    const campaign = await insertCampaign(db(), { name: "C", landerId: lander.id, offerId: null, domainId: null, bhToggle: false }).get();
    await call(`/api/landers/${lander.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(await db().select().from(campaigns).where(eq(campaigns.id, campaign.id))).toEqual([]);
  });

  it("names what a delete takes along before anything is deleted: its campaigns, their clicks and their first and last click", async () => {
    const admin = await makeAdmin();
    const lander = await bodyOf(await client(admin).landers.$post({ json: { name: "In use", url: "https://lp.test/" } }), 201);
    const other = await bodyOf(await client(admin).landers.$post({ json: { name: "Other", url: "https://lp.test/o" } }), 201);
    const used = await Promise.all(
      ["beta sweeps", "Alpha sweeps", "Idle"].map((name) =>
        insertCampaign(db(), { name, landerId: lander.id, offerId: null, domainId: null, bhToggle: true }).get(),
      ),
    );
    const elsewhere = await insertCampaign(db(), { name: "Elsewhere", landerId: other.id, offerId: null, domainId: null, bhToggle: true }).get();
    const at = Date.UTC(2026, 10, 2, 9);
    const click = (campaignId: number, clickedAt: number) => ({ clickId: crypto.randomUUID(), campaignId, clickedAt });
    await insertClicks(db(), [
      click(used[0]!.id, at),
      click(used[0]!.id, at + 86_400_000),
      click(used[1]!.id, at + 5 * 86_400_000),
      click(elsewhere.id, at - 86_400_000),
    ]);

    const res = await call(`/api/landers/${lander.id}/deletion-impact`, { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      campaigns: [
        { id: used[1]!.id, name: "Alpha sweeps", clicks: 1 },
        { id: used[0]!.id, name: "beta sweeps", clicks: 2 },
        { id: used[2]!.id, name: "Idle", clicks: 0 },
      ],
      clicks: 3,
      firstClickAt: new Date(at).toISOString(),
      lastClickAt: new Date(at + 5 * 86_400_000).toISOString(),
    });
    // Reading it deleted nothing; the delete then takes exactly that.
    expect(await db().select().from(clicks).where(eq(clicks.campaignId, used[0]!.id))).toHaveLength(2);
    await call(`/api/landers/${lander.id}`, { method: "DELETE", cookie: admin.cookie });
    expect((await db().select().from(clicks)).filter((c) => used.some((u) => u.id === c.campaignId))).toEqual([]);
    expect(await db().select().from(clicks).where(eq(clicks.campaignId, elsewhere.id))).toHaveLength(1);

    const unused = await bodyOf(await client(admin).landers[":id"]["deletion-impact"].$get(idParam(other.id)), 200);
    expect(unused.clicks).toBe(1);
    expect((await call(`/api/landers/${lander.id}/deletion-impact`, { cookie: admin.cookie })).status).toBe(404);
    expect((await call(`/api/landers/abc/deletion-impact`, { cookie: admin.cookie })).status).toBe(400);
  });
});
