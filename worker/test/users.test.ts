import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { deleteUserKeepingAnAdmin } from "../src/db/queries/users";
import { recoveryCodes, sessions, sparks, transactions, users } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser } from "./helpers";

describe("users", () => {
  it("creates a member and refuses a duplicate username with 409, whatever its case", async () => {
    const admin = await makeAdmin();
    const created = await bodyOf(await client(admin).users.$post({ json: { username: "Dana.MB", password: "long-enough-pw", role: "user" } }), 201);
    expect(created).toMatchObject({ username: "Dana.MB", role: "user" });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);

    const dup = await call("/api/users", { cookie: admin.cookie, json: { username: "dana.mb", password: "long-enough-pw", role: "user" } });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ error: 'The username "dana.mb" is already taken' });
  });

  it("lists users without password hashes or two-factor secrets", async () => {
    const admin = await makeAdmin();
    const list = await bodyOf(await client(admin).users.$get(), 200);
    expect(list.length).toBeGreaterThan(0);
    for (const u of list)
      expect(Object.keys(u).sort()).toEqual(["createdAt", "id", "recoveryCodesLeft", "role", "twoFactorEnabled", "twoFactorEnabledAt", "username"]);
  });

  it("shows who has two-factor sign-in on, since when, and how many recovery codes are left", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    const on = Date.parse("2026-11-20T10:00:00.000Z");
    await db().update(users).set({ totpSecret: "encrypted-secret", totpEnabledAt: on }).where(eq(users.id, member.id));
    await db()
      .insert(recoveryCodes)
      .values(["a", "b", "c"].map((codeHash, i) => ({ userId: member.id, codeHash, usedAt: i === 0 ? on : null })));
    const list = await bodyOf(await client(admin).users.$get(), 200);
    expect(list.find((u) => u.id === member.id)).toMatchObject({
      twoFactorEnabled: true,
      twoFactorEnabledAt: "2026-11-20T10:00:00.000Z",
      recoveryCodesLeft: 2,
    });
    expect(list.find((u) => u.id === admin.id)).toMatchObject({ twoFactorEnabled: false, twoFactorEnabledAt: null, recoveryCodesLeft: 0 });
  });

  it("applies the password rules", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/users", { cookie: admin.cookie, json: { username: "shorty", password: "1234567", role: "user" } });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe("Password must be at least 8 characters");
  });

  it("never deletes yourself", async () => {
    const admin = await makeAdmin();
    const self = await call(`/api/users/${admin.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(self.status).toBe(400);
    expect((await self.json<ApiErrorBody>()).error).toBe("You cannot delete your own account");
  });

  it("signs a deleted user out everywhere: their sessions go with them", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    expect((await call("/api/user", { cookie: member.cookie })).status).toBe(200);
    expect((await call(`/api/users/${member.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect(await db().select().from(sessions).where(eq(sessions.userId, member.id))).toEqual([]);
    expect((await call("/api/user", { cookie: member.cookie })).status).toBe(401);
  });

  it("never deletes the last admin, even when two admins delete each other at once", async () => {
    await db().delete(users).where(eq(users.role, "admin"));
    const a = await makeAdmin();
    const b = await makeAdmin();
    const [ab, ba] = await Promise.all([
      call(`/api/users/${b.id}`, { method: "DELETE", cookie: a.cookie }),
      call(`/api/users/${a.id}`, { method: "DELETE", cookie: b.cookie }),
    ]);
    const statuses = [ab.status, ba.status].sort();
    // One delete wins; the other is refused (409 by the guard, or 401/403 because its caller is gone).
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).toBeGreaterThanOrEqual(401);
    expect(await db().select().from(users).where(eq(users.role, "admin"))).toHaveLength(1);

    // The guard itself: the only admin cannot be removed.
    const [survivor] = await db().select().from(users).where(eq(users.role, "admin"));
    expect(await deleteUserKeepingAnAdmin(db(), survivor!.id)).toBe("last-admin");
    expect(await deleteUserKeepingAnAdmin(db(), crypto.randomUUID())).toBe("missing");
  });

  it("answers 404 for an unknown user and 400 for a malformed id", async () => {
    const admin = await makeAdmin();
    expect((await call(`/api/users/${crypto.randomUUID()}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(404);
    const bad = await call("/api/users/not-a-uuid/permissions", { cookie: admin.cookie });
    expect(bad.status).toBe(400);
    expect((await bad.json<ApiErrorBody>()).error).toBe("Invalid user id");
  });
});

describe("permissions and assignments", () => {
  it("replaces a member's permissions and rejects unknown features", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard"]);
    const permissions = client(admin).users[":id"].permissions;
    const param = { id: member.id };
    const saved = await bodyOf(await permissions.$post({ param, json: { features: ["campaigns", "landers", "campaigns"] } }), 200);
    expect(saved.map((p) => p.feature).sort()).toEqual(["campaigns", "landers"]);
    const bad = await call(`/api/users/${member.id}/permissions`, { cookie: admin.cookie, json: { features: ["root"] } });
    expect(bad.status).toBe(400);
    expect((await bodyOf(await permissions.$get({ param }), 200)).length).toBe(2);
  });

  it("assigns card nicknames, media buyers and sparks, and offers the existing choices", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    await db()
      .insert(transactions)
      .values([
        { registeredCardLast4: "*1111", status: "CLEARED", vcnNickname: "Zeta Ads", dedupeKey: `k-${crypto.randomUUID()}` },
        { registeredCardLast4: "*1111", status: "PENDING", vcnNickname: "Alpha Ads", dedupeKey: `k-${crypto.randomUUID()}` },
        { registeredCardLast4: "*1111", status: "PENDING", vcnNickname: null, dedupeKey: `k-${crypto.randomUUID()}` },
      ]);
    const [spark] = await db()
      .insert(sparks)
      .values({ name: "Spring", code: "x", sparkId: `sp-${crypto.randomUUID()}` })
      .returning();

    const options = await bodyOf(await client(admin).users["assignment-options"].$get(), 200);
    expect(options.vcnNicknames).toEqual(expect.arrayContaining(["Alpha Ads", "Zeta Ads"]));
    expect(options.vcnNicknames).not.toContain(null);
    expect(options.sparks.map((s) => s.id)).toContain(spark!.id);

    const vcn = await call(`/api/users/${member.id}/vcn-assignments`, { cookie: admin.cookie, json: { vcnNicknames: ["Zeta Ads", "Alpha Ads"] } });
    expect(await vcn.json()).toEqual([{ vcnNickname: "Alpha Ads" }, { vcnNickname: "Zeta Ads" }]);

    const buyers = await call(`/api/users/${member.id}/media-buyers`, { cookie: admin.cookie, json: { subid1s: ["mb-7"] } });
    expect(await buyers.json()).toEqual([{ subid1: "mb-7" }]);

    const sparkRes = await call(`/api/users/${member.id}/spark-assignments`, { cookie: admin.cookie, json: { sparkIds: [spark!.id] } });
    expect(await sparkRes.json()).toEqual([{ sparkId: spark!.id, name: "Spring", sparkCode: spark!.sparkId }]);

    const missing = await call(`/api/users/${member.id}/spark-assignments`, { cookie: admin.cookie, json: { sparkIds: [999_999] } });
    expect(missing.status).toBe(400);
    // The failed call changed nothing.
    expect(await (await call(`/api/users/${member.id}/spark-assignments`, { cookie: admin.cookie })).json()).toHaveLength(1);
  });

  it("has nothing to assign to an admin", async () => {
    const admin = await makeAdmin();
    const other = await makeAdmin();
    const res = await call(`/api/users/${other.id}/permissions`, { cookie: admin.cookie, json: { features: ["sparks"] } });
    expect(res.status).toBe(400);
  });
});
