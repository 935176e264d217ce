import { eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { describe, expect, it, vi } from "vitest";
import { MAX_FAILURES_PER_USERNAME } from "../src/auth/throttle";
import { auditLog, recoveryCodes, sessions, settings, users } from "../src/db/schema";
import { REQUIRE_TWO_FACTOR_KEY } from "../src/db/queries/two-factor";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, reauthenticate, sessionCookieFrom, type TestUser } from "./helpers";

const login = (username: string, password: string, ip = "10.77.0.1") =>
  call("/api/login", { json: { username, password }, headers: { "cf-connecting-ip": ip } });
const secondFactor = (cookie: string | undefined, code: string, ip = "10.77.0.1") =>
  call("/api/login/second-factor", { json: { code }, cookie, headers: { "cf-connecting-ip": ip } });
const status = async (cookie: string, path = "/api/user") => (await call(path, { cookie })).status;

/** The code an authenticator app shows `stepsAhead` 30-second steps from now. */
const totpCode = (secret: string, stepsAhead = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + stepsAhead * 30_000 });

async function passwordHash(id: string) {
  return (await db().select({ h: users.passwordHash }).from(users).where(eq(users.id, id)).get())!.h;
}

/** Turns two-factor sign-in on for a user through the API; returns the secret and the recovery codes. */
async function enableTwoFactor(user: TestUser) {
  const twoFactor = client(user).account["two-factor"];
  const setup = await bodyOf(await twoFactor.setup.$post({ json: { password: user.password } }), 200);
  const { recoveryCodes: codes } = await bodyOf(await twoFactor.confirm.$post({ json: { code: totpCode(setup.secret) } }), 200);
  return { secret: setup.secret, uri: setup.uri, codes };
}

/** Password step, then the second factor; returns the full session's cookie (or the failing response). */
async function signInWithCode(user: TestUser, code: string, ip = "10.77.0.1") {
  const first = await login(user.username, user.password, ip);
  expect(await first.json()).toEqual({ secondFactor: "required" });
  const pending = sessionCookieFrom(first);
  const res = await secondFactor(pending, code, ip);
  return { res, pending, cookie: sessionCookieFrom(res) };
}

const auditText = async () => (await db().select().from(auditLog)).map((r) => `${r.action} ${r.summary} ${r.entityId}`).join("\n");

describe("changing your own password", () => {
  it("refuses a wrong current password and a new one outside the rules, changing nothing", async () => {
    const user = await makeUser();
    const other = await login(user.username, user.password);
    const otherCookie = sessionCookieFrom(other)!;
    const before = await passwordHash(user.id);

    const wrong = await call("/api/account/password", { cookie: user.cookie, json: { currentPassword: "not it at all", newPassword: "a-new-password" } });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: "Your current password is not right", details: ["currentPassword: Your current password is not right"] });

    const short = await call("/api/account/password", { cookie: user.cookie, json: { currentPassword: user.password, newPassword: "short" } });
    expect(short.status).toBe(400);
    expect((await short.json<ApiErrorBody>()).error).toBe("Password must be at least 8 characters");

    expect(await passwordHash(user.id)).toBe(before);
    expect(await status(otherCookie)).toBe(200);
    expect(await status(user.cookie)).toBe(200);
  });

  it("signs out every other session and keeps this one", async () => {
    const user = await makeUser();
    const otherCookie = sessionCookieFrom(await login(user.username, user.password))!;
    const res = await call("/api/account/password", { cookie: user.cookie, json: { currentPassword: user.password, newPassword: "my-new-password-2" } });
    expect(res.status).toBe(200);
    expect(await status(user.cookie)).toBe(200);
    expect(await status(otherCookie)).toBe(401);
    expect((await login(user.username, user.password)).status).toBe(401);
    expect((await login(user.username, "my-new-password-2")).status).toBe(200);
    const text = await auditText();
    expect(text).toContain(`${user.username} changed their password`);
    expect(text).not.toContain("my-new-password-2");
    expect(text).not.toContain(user.password);
  });
});

describe("an admin and a member's account", () => {
  it("sets a new password for a member and signs them out everywhere", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    await reauthenticate(admin);
    const res = await call(`/api/users/${member.id}/password`, { cookie: admin.cookie, json: { password: "reset-by-admin-1" } });
    expect(res.status).toBe(200);
    expect(await status(member.cookie)).toBe(401);
    expect((await login(member.username, "reset-by-admin-1")).status).toBe(200);
    expect(await auditText()).not.toContain("reset-by-admin-1");
  });

  it("refuses a reset password outside the rules, changing nothing", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    const before = await passwordHash(member.id);
    const res = await call(`/api/users/${member.id}/password`, { cookie: admin.cookie, json: { password: "x".repeat(257) } });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe("Password must be at most 256 characters");
    expect(await passwordHash(member.id)).toBe(before);
    expect(await status(member.cookie)).toBe(200);
  });

  it("changes a role, applied on the user's next request", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    await reauthenticate(admin);
    expect(await status(member.cookie, "/api/users")).toBe(403);
    const res = await call(`/api/users/${member.id}/role`, { method: "PUT", cookie: admin.cookie, json: { role: "admin" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: member.id, role: "admin" });
    expect(await status(member.cookie, "/api/users")).toBe(200);
    const back = await call(`/api/users/${member.id}/role`, { method: "PUT", cookie: admin.cookie, json: { role: "user" } });
    expect(back.status).toBe(200);
    expect(await status(member.cookie, "/api/users")).toBe(403);
    const rows = await db().select().from(auditLog).where(eq(auditLog.entityId, member.id));
    expect(rows.map((r) => r.summary)).toEqual(expect.arrayContaining([`${member.username}: user → admin`, `${member.username}: admin → user`]));
  });

  it("never demotes the last admin: not yourself, and not through the guarded write", async () => {
    // This test needs to know every admin of the file's database.
    await db().update(users).set({ role: "user" }).where(eq(users.role, "admin"));
    const last = await makeAdmin();
    const own = await call(`/api/users/${last.id}/role`, { method: "PUT", cookie: last.cookie, json: { role: "user" } });
    expect(own.status).toBe(400);
    expect((await own.json<ApiErrorBody>()).error).toMatch(/own role/);
    // The write itself refuses to demote the only admin, whoever asks.
    const { setRoleKeepingAnAdmin } = await import("../src/db/queries/users");
    expect(await setRoleKeepingAnAdmin(db(), last.id, "user")).toBe("last-admin");
    expect((await db().select().from(users).where(eq(users.id, last.id)).get())!.role).toBe("admin");
  });

  it("keeps one admin when the last two demote each other at the same moment", async () => {
    await db().update(users).set({ role: "user" }).where(eq(users.role, "admin"));
    const a = await makeAdmin();
    const b = await makeAdmin();
    await Promise.all([reauthenticate(a), reauthenticate(b)]);
    const answers = await Promise.all([
      call(`/api/users/${b.id}/role`, { method: "PUT", cookie: a.cookie, json: { role: "user" } }),
      call(`/api/users/${a.id}/role`, { method: "PUT", cookie: b.cookie, json: { role: "user" } }),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    // The loser is refused by the guard (409) or, if it came second, as no longer an admin (403).
    expect([
      [200, 403],
      [200, 409],
    ]).toContainEqual(statuses);
    const loser = answers.find((r) => r.status !== 200)!;
    if (loser.status === 409) expect((await loser.json<ApiErrorBody>()).error).toMatch(/last admin/);
    expect(await db().select().from(users).where(eq(users.role, "admin"))).toHaveLength(1);
  });

  it("refuses every admin route here to a member with 403", async () => {
    const member = await makeUser("user", ["dashboard", "campaigns", "landers", "clicks", "sparks", "offers", "performance"]);
    const target = await makeUser();
    for (const [method, path, json] of [
      ["PUT", `/api/users/${target.id}/role`, { role: "admin" }],
      ["POST", `/api/users/${target.id}/password`, { password: "sneaky-password" }],
      ["POST", `/api/users/${target.id}/two-factor/reset`, undefined],
      ["GET", "/api/users/two-factor-requirement", undefined],
      ["PUT", "/api/users/two-factor-requirement", { required: true }],
      ["GET", "/api/audit", undefined],
      ["GET", "/api/audit/export", undefined],
    ] as const) {
      const res = await call(path, { method, json, cookie: member.cookie });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await db().select().from(users).where(eq(users.id, target.id)).get())!.role).toBe("user");
  });
});

describe("two-factor sign-in", () => {
  it("is set up with a QR secret confirmed by a first code, and stored encrypted with hashed recovery codes", async () => {
    const user = await makeUser();
    const twoFactor = client(user).account["two-factor"];
    const setup = await bodyOf(await twoFactor.setup.$post({ json: { password: user.password } }), 200);
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.uri).toBe(
      `otpauth://totp/Trackyard:${encodeURIComponent(user.username)}?issuer=Trackyard&secret=${setup.secret}&algorithm=SHA1&digits=6&period=30`,
    );

    // A wrong first code: still off, nothing enabled.
    const wrong = await call("/api/account/two-factor/confirm", { cookie: user.cookie, json: { code: totpCode(setup.secret, 5) } });
    expect(wrong.status).toBe(400);
    expect((await wrong.json<ApiErrorBody>()).error).toMatch(/^That code is not right/);
    expect(await (await call("/api/account/two-factor", { cookie: user.cookie })).json()).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect((await login(user.username, user.password)).status).toBe(200);

    const { recoveryCodes: codes } = await bodyOf(await twoFactor.confirm.$post({ json: { code: totpCode(setup.secret) } }), 200);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(await (await call("/api/account/two-factor", { cookie: user.cookie })).json()).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });

    const row = (await db().select().from(users).where(eq(users.id, user.id)).get())!;
    expect(row.totpSecret).toMatch(/^v1:/);
    expect(row.totpSecret).not.toContain(setup.secret);
    const stored = await db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    expect(stored).toHaveLength(10);
    const dump = JSON.stringify({ row, stored });
    for (const code of codes) {
      expect(dump).not.toContain(code);
      expect(dump).not.toContain(code.replace("-", "").toUpperCase());
    }
    const text = await auditText();
    expect(text).toContain(`${user.username} turned on two-factor sign-in`);
    expect(text).not.toContain(setup.secret);
    for (const code of codes) expect(text).not.toContain(code);
  });

  it("asks for the code after the password, refuses a wrong or replayed code, and signs in with the right one", async () => {
    const user = await makeUser();
    const { secret } = await enableTwoFactor(user);

    const first = await login(user.username, user.password);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ secondFactor: "required" });
    const pending = sessionCookieFrom(first)!;
    // Half signed in is not signed in.
    expect(await status(pending)).toBe(401);
    expect(await status(pending, "/api/codes")).toBe(401);

    const wrong = await secondFactor(pending, totpCode(secret, 4));
    expect(wrong.status).toBe(401);
    expect((await wrong.json<ApiErrorBody>()).error).toMatch(/not right/);
    // The setup took the current step; the next one is good once.
    const code = totpCode(secret, 1);
    const ok = await secondFactor(pending, code);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ username: user.username, twoFactorEnabled: true, mustSetUpTwoFactor: false });
    const full = sessionCookieFrom(ok)!;
    expect(await status(full)).toBe(200);
    // The waiting session is gone: its cookie cannot be used again.
    expect((await secondFactor(pending, code)).status).toBe(401);

    // The same code again in a new sign-in, within its window: refused, nothing signed in.
    const again = await login(user.username, user.password);
    const replay = await secondFactor(sessionCookieFrom(again), code);
    expect(replay.status).toBe(401);
    expect((await replay.json<ApiErrorBody>()).error).toBe("That code was already used. Wait for the next code in your app.");
    expect(sessionCookieFrom(replay)).toBeUndefined();
    const refused = (await auditText()).split("\n").filter((l) => l.startsWith("session.second_factor_refused") && l.endsWith(user.id));
    expect(refused).toEqual(["session.second_factor_refused Wrong code " + user.id, "session.second_factor_refused Code already used " + user.id]);
  });

  it("takes each recovery code once", async () => {
    const user = await makeUser();
    const { codes } = await enableTwoFactor(user);
    const { res } = await signInWithCode(user, codes[3]!.toUpperCase().replace("-", " "));
    expect(res.status).toBe(200);
    expect(await (await call("/api/account/two-factor", { cookie: user.cookie })).json()).toMatchObject({ recoveryCodesLeft: 9 });
    const used = await signInWithCode(user, codes[3]!);
    expect(used.res.status).toBe(401);
    expect((await used.res.json<ApiErrorBody>()).error).toBe("That recovery code is wrong or was already used");
    expect(used.cookie).toBeUndefined();
    expect(await auditText()).toContain("Password + recovery code (9 left)");
  });

  it("throttles codes like passwords: 40 wrong codes at once evaluate at most the limit", async () => {
    const user = await makeUser();
    const { secret } = await enableTwoFactor(user);
    const first = await login(user.username, user.password, "10.78.0.1");
    const pending = sessionCookieFrom(first);
    const spy = vi.spyOn(TOTP, "validate");
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => secondFactor(pending, String(100000 + i), `10.78.${i}.2`)));
    const evaluated = spy.mock.calls.length;
    spy.mockRestore();
    expect(evaluated).toBeLessThanOrEqual(MAX_FAILURES_PER_USERNAME);
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(40 - MAX_FAILURES_PER_USERNAME);
    // Even the right code waits now, and a right password cannot reset the count.
    const again = await login(user.username, user.password, "10.78.99.1");
    expect(again.status).toBe(429);
    expect((await secondFactor(pending, totpCode(secret, 1), "10.78.99.2")).status).toBe(429);
  }, 60_000);

  it("sends users without it to set it up when an admin requires it for everyone, and lets them do only that", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard"]);
    const on = await call("/api/users/two-factor-requirement", { method: "PUT", cookie: admin.cookie, json: { required: true } });
    expect(await on.json()).toEqual({ required: true, configured: true });
    try {
      const res = await login(member.username, member.password);
      expect(await res.json()).toMatchObject({ username: member.username, mustSetUpTwoFactor: true, twoFactorEnabled: false });
      const cookie = sessionCookieFrom(res)!;
      const blocked = await call("/api/stats/filters?startDate=2025-01-01&endDate=2025-01-02", { cookie });
      expect(blocked.status).toBe(403);
      expect((await blocked.json<ApiErrorBody>()).error).toMatch(/^Set up two-factor sign-in on your Account page first/);
      expect((await call("/api/account/password", { cookie, json: { currentPassword: member.password, newPassword: "another-one-1" } })).status).toBe(403);

      const setup = await bodyOf(await client({ cookie }).account["two-factor"].setup.$post({ json: { password: member.password } }), 200);
      expect((await call("/api/account/two-factor/confirm", { cookie, json: { code: totpCode(setup.secret) } })).status).toBe(200);
      // The same session is a full one now.
      expect((await call("/api/stats/filters?startDate=2025-01-01&endDate=2025-01-02", { cookie })).status).toBe(200);
      expect(await (await call("/api/user", { cookie })).json()).toMatchObject({ mustSetUpTwoFactor: false, twoFactorEnabled: true });
      // Turning it off is refused while it is required.
      const off = await call("/api/account/two-factor/disable", { cookie, json: { password: member.password } });
      expect(off.status).toBe(409);
    } finally {
      await call("/api/users/two-factor-requirement", { method: "PUT", cookie: admin.cookie, json: { required: false } });
    }
    expect((await db().select().from(settings).where(eq(settings.key, REQUIRE_TWO_FACTOR_KEY)).get())?.value).toBe("false");
  });

  it("lets an admin reset a member's second factor", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    await enableTwoFactor(member);
    expect(await (await login(member.username, member.password)).json()).toEqual({ secondFactor: "required" });
    await reauthenticate(admin);
    expect((await call(`/api/users/${member.id}/two-factor/reset`, { method: "POST", cookie: admin.cookie })).status).toBe(200);
    const res = await login(member.username, member.password);
    expect(await res.json()).toMatchObject({ username: member.username, twoFactorEnabled: false });
    expect(await db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, member.id))).toEqual([]);
    const list = await bodyOf(await client(admin).users.$get(), 200);
    expect(list.find((u) => u.id === member.id)?.twoFactorEnabled).toBe(false);
  });

  it("a session waiting for its code expires", async () => {
    const user = await makeUser();
    const { secret } = await enableTwoFactor(user);
    const first = await login(user.username, user.password);
    const pending = sessionCookieFrom(first)!;
    await db()
      .update(sessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(sessions.userId, user.id));
    const res = await secondFactor(pending, totpCode(secret, 1));
    expect(res.status).toBe(401);
    expect((await res.json<ApiErrorBody>()).error).toMatch(/Enter your username and password again/);
  });
});
