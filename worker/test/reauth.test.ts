import { eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { REAUTH_NEEDED } from "../src/auth/reauth";
import { auditLog, sessions, users } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, reauthenticate, sessionCookieFrom, type TestUser } from "./helpers";

/** Each test signs in from its own address, so the per-IP throttle of one never touches another. */
const login = (username: string, password: string, ip: string, userAgent?: string) =>
  call("/api/login", { json: { username, password }, headers: { "cf-connecting-ip": ip, ...(userAgent ? { "user-agent": userAgent } : {}) } });
const status = async (cookie: string) => (await call("/api/user", { cookie })).status;
const totpCode = (secret: string, stepsAhead = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + stepsAhead * 30_000 });
const auditOf = async (userId: string) => (await db().select().from(auditLog).where(eq(auditLog.entityId, userId))).map((r) => `${r.action}: ${r.summary}`);

/** Two-factor sign-in on through the API (password first); returns the secret and the recovery codes. */
async function turnOnTwoFactor(user: TestUser) {
  const twoFactor = client(user).account["two-factor"];
  const setup = await bodyOf(await twoFactor.setup.$post({ json: { password: user.password } }), 200);
  const { recoveryCodes } = await bodyOf(await twoFactor.confirm.$post({ json: { code: totpCode(setup.secret) } }), 200);
  return { secret: setup.secret, recoveryCodes };
}

describe("changing one's own factors asks for them again", () => {
  it("refuses a two-factor setup without the right password, and starts none", async () => {
    const user = await makeUser();
    const setup = client(user).account["two-factor"].setup;
    const wrong = await setup.$post({ json: { password: "not my password" } });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "Your current password is not right" });
    const missing = await call("/api/account/two-factor/setup", { cookie: user.cookie, json: {} });
    expect(missing.status).toBe(400);
    expect((await missing.json<ApiErrorBody>()).error).toBe("Password is required");
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())!.totpPendingSecret).toBeNull();
  }, 30_000);

  it("with two-factor on, a new phone, turning it off and a new password each need the current code too", async () => {
    const user = await makeUser();
    const { secret, recoveryCodes } = await turnOnTwoFactor(user);
    const account = client(user).account;

    for (const res of [
      await account["two-factor"].setup.$post({ json: { password: user.password } }),
      await account["two-factor"].disable.$post({ json: { password: user.password } }),
      await account.password.$post({ json: { currentPassword: user.password, newPassword: "a-fresh-password-9" } }),
    ]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ details: ["code: Enter the current code from your app"] });
    }
    const wrongCode = await account["two-factor"].setup.$post({ json: { password: user.password, code: "000000" } });
    expect(wrongCode.status).toBe(400);
    expect(await wrongCode.json()).toMatchObject({ error: expect.stringMatching(/code is not right/) });

    // A recovery code works (once), and so does the app's next code.
    const newPhone = await account["two-factor"].setup.$post({ json: { password: user.password, code: recoveryCodes[0] } });
    expect(newPhone.status).toBe(200);
    const changed = await account.password.$post({ json: { currentPassword: user.password, code: totpCode(secret, 1), newPassword: "a-fresh-password-9" } });
    expect(changed.status).toBe(200);
    expect(await auditOf(user.id)).toEqual(expect.arrayContaining([expect.stringMatching(/^session.second_factor_refused: Re-authentication: Wrong code/)]));
  }, 60_000);

  it("turning two-factor on and off signs out the user's other sessions, keeping this one", async () => {
    const user = await makeUser();
    const other = sessionCookieFrom(await login(user.username, user.password, "10.81.0.1"))!;
    const { secret } = await turnOnTwoFactor(user);
    expect(await status(other)).toBe(401);
    expect(await status(user.cookie)).toBe(200);

    const third = await makeSession(user);
    const off = await client(user).account["two-factor"].disable.$post({ json: { password: user.password, code: totpCode(secret, 1) } });
    expect(off.status).toBe(200);
    expect(await status(third)).toBe(401);
    expect(await status(user.cookie)).toBe(200);
    const entries = await auditOf(user.id);
    expect(entries).toContain(`user.2fa_enable: ${user.username} turned on two-factor sign-in; 10 recovery codes issued; other sessions signed out`);
    expect(entries).toContain(`user.2fa_disable: ${user.username} turned off two-factor sign-in; other sessions signed out`);
  }, 60_000);
});

/** Another session of `user`, written straight to D1 as a sign-in from elsewhere would. */
async function makeSession(user: TestUser) {
  const { createSession, SESSION_COOKIE } = await import("../src/auth/session");
  const { env } = await import("cloudflare:workers");
  const token = await createSession(db(), env.SESSION_SECRET, user.id, { ip: "198.51.100.7", userAgent: "curl/8.0" });
  return `${SESSION_COOKIE}=${token}`;
}

describe("an admin changing another user re-authenticates within 5 minutes", () => {
  it("refuses a password, role or second-factor change without it, changing nothing, and allows them after", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    const users_ = client(admin).users[":id"];
    const param = { id: member.id };
    const attempts = () =>
      Promise.all([
        users_.password.$post({ param, json: { password: "reset-by-admin-7" } }),
        users_.role.$put({ param, json: { role: "admin" } }),
        users_["two-factor"].reset.$post({ param }),
      ]);
    for (const res of await attempts()) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: REAUTH_NEEDED, error: expect.stringMatching(/^Confirm it is you/) });
    }
    expect((await db().select().from(users).where(eq(users.id, member.id)).get())!.role).toBe("user");
    expect(await status(member.cookie)).toBe(200);

    const wrong = await client(admin).account.reauth.$post({ json: { password: "not the admin's" } });
    expect(wrong.status).toBe(400);
    const ok = await bodyOf(await client(admin).account.reauth.$post({ json: { password: admin.password } }), 200);
    expect(Date.parse(ok.validUntil) - Date.now()).toBeGreaterThan(4 * 60_000);
    for (const res of await attempts()) expect(res.status, await res.clone().text()).toBe(200);
    expect(await status(member.cookie)).toBe(401);
    expect(await auditOf(admin.id)).toContain(`session.reauth: ${admin.username} confirmed their password`);
  }, 60_000);

  it("a re-authentication older than 5 minutes, or of another session, does not count", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    await reauthenticate(admin);
    await db()
      .update(sessions)
      .set({ reauthenticatedAt: Date.now() - 5 * 60_000 - 1000 })
      .where(eq(sessions.userId, admin.id));
    const stale = await call(`/api/users/${member.id}/role`, { method: "PUT", cookie: admin.cookie, json: { role: "admin" } });
    expect(stale.status).toBe(403);
    // A fresh one on another session of the same admin does not cover this one.
    const elsewhere = { ...admin, cookie: await makeSession(admin) };
    await reauthenticate(elsewhere);
    expect((await call(`/api/users/${member.id}/role`, { method: "PUT", cookie: admin.cookie, json: { role: "admin" } })).status).toBe(403);
  }, 30_000);

  it("an admin with two-factor on re-authenticates with the code too; a reset signs the member out everywhere", async () => {
    const admin = await makeAdmin();
    const { secret } = await turnOnTwoFactor(admin);
    const member = await makeUser();
    await turnOnTwoFactor(member);
    const noCode = await client(admin).account.reauth.$post({ json: { password: admin.password } });
    expect(noCode.status).toBe(400);
    await reauthenticate(admin, totpCode(secret, 1));
    expect(await auditOf(admin.id)).toContain(`session.reauth: ${admin.username} confirmed their password and code`);
    const reset = await call(`/api/users/${member.id}/two-factor/reset`, { method: "POST", cookie: admin.cookie });
    expect(reset.status).toBe(200);
    expect(await status(member.cookie)).toBe(401);
    expect(await auditOf(member.id)).toContain(`user.2fa_reset: Two-factor sign-in reset for ${member.username}; signed out everywhere`);
  }, 60_000);
});

describe("the user's own sessions", () => {
  it("lists device, IP, last seen and this device, and signs the others out", async () => {
    const user = await makeUser();
    const phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const laptop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
    const here = { ...user, cookie: sessionCookieFrom(await login(user.username, user.password, "2001:db8:81::5", laptop))! };
    const there = sessionCookieFrom(await login(user.username, user.password, "10.81.1.2", phone))!;
    // Someone else's session is never listed.
    await makeUser();

    const list = await bodyOf(await client(here).account.sessions.$get(), 200);
    expect(list).toHaveLength(3);
    expect(list.find((s) => s.current)).toMatchObject({ device: "Chrome on Windows", ip: "2001:db8:81::5" });
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list.map((s) => s.device)).toEqual(expect.arrayContaining(["Safari on iOS", "Unknown device"]));
    expect(JSON.stringify(list)).not.toMatch(/"id"/);
    expect(Date.parse(list[0]!.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000);

    const out = await bodyOf(await client(here).account.sessions["sign-out-others"].$post(), 200);
    expect(out).toEqual({ signedOut: 2 });
    expect(await status(there)).toBe(401);
    expect(await status(user.cookie)).toBe(401);
    expect(await status(here.cookie)).toBe(200);
    expect(await auditOf(user.id)).toContain(`session.sign_out_others: ${user.username} signed out their other sessions`);
  }, 30_000);
});
