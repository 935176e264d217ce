import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MAX_FAILURES_PER_IP } from "../src/auth/throttle";
import { sessions, settings } from "../src/db/schema";
import { COMMON_PASSWORDS } from "../src/schemas/common-passwords";
import { call, db, makeAdmin, makeUser, uniqueName } from "./helpers";

const login = (username: string, password: string, ip: string) => call("/api/login", { json: { username, password }, headers: { "cf-connecting-ip": ip } });
const status = async (cookie: string) => (await call("/api/user", { cookie })).status;

describe("the sign-in IP throttle", () => {
  it("counts an IPv6 address by its /64, so new addresses in one network do not buy more guesses", async () => {
    const user = await makeUser();
    // Each failure from another address of 2001:db8:5:6::/64 and for another username (the per-username limit stays out of it).
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
      expect((await login(uniqueName("nobody"), "wrong-password", `2001:db8:5:6:${i.toString(16)}::1`)).status).toBe(401);
    }
    const sameNetwork = await login(user.username, user.password, "2001:0db8:0005:0006:ffff:1:2:3");
    expect(sameNetwork.status).toBe(429);
    expect((await login(user.username, user.password, "2001:db8:5:7::1")).status).toBe(200);
  }, 60_000);
});

describe("common passwords", () => {
  it("are refused for a new account, a reset and one's own change, whatever their case", async () => {
    expect(COMMON_PASSWORDS.size).toBe(203);
    const admin = await makeAdmin();
    const refusal = "This password is one of the most common ones: choose another";
    const created = await call("/api/users", { cookie: admin.cookie, json: { username: uniqueName(), password: "Password1", role: "user" } });
    expect(created.status).toBe(400);
    expect(await created.json()).toMatchObject({ error: refusal });
    const user = await makeUser();
    const own = await call("/api/account/password", { cookie: user.cookie, json: { currentPassword: user.password, newPassword: "qwertyuiop" } });
    expect(own.status).toBe(400);
    expect(await own.json()).toMatchObject({ error: refusal });
    const fine = await call("/api/account/password", { cookie: user.cookie, json: { currentPassword: user.password, newPassword: "qwertyuiop-and-more" } });
    expect(fine.status).toBe(200);
  }, 30_000);
});

describe("the idle time", () => {
  const setIdle = (cookie: string, value: string) => call("/api/settings", { cookie, json: { key: "session_idle_hours", value } });
  const idleFor = (user: { id: string }, hours: number) =>
    db()
      .update(sessions)
      .set({ lastSeenAt: Date.now() - hours * 3_600_000 })
      .where(eq(sessions.userId, user.id));

  it("signs out a session unused for 12 hours by default, keeps a used one and records its use", async () => {
    const idle = await makeUser();
    const used = await makeUser();
    await idleFor(idle, 12.1);
    await idleFor(used, 11.9);
    expect(await status(idle.cookie)).toBe(401);
    expect(await status(used.cookie)).toBe(200);
    const row = await db().select({ at: sessions.lastSeenAt }).from(sessions).where(eq(sessions.userId, used.id)).get();
    expect(row!.at).toBeGreaterThan(Date.now() - 60_000);
  }, 30_000);

  it("follows the setting on Settings, which takes whole hours from 1 to 168", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    try {
      for (const bad of ["0", "169", "1.5", "abc"]) {
        const res = await setIdle(admin.cookie, bad);
        expect(res.status, bad).toBe(400);
      }
      expect((await setIdle(admin.cookie, "2")).status).toBe(200);
      await idleFor(user, 3);
      expect(await status(user.cookie)).toBe(401);
      expect((await setIdle(admin.cookie, "24")).status).toBe(200);
      expect(await status(user.cookie)).toBe(200);
    } finally {
      await db().delete(settings).where(eq(settings.key, "session_idle_hours"));
    }
  }, 30_000);
});
