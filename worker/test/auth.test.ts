import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/session";
import { sessions, users } from "../src/db/schema";
import { eq } from "drizzle-orm";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, sessionCookieFrom, uniqueName } from "./helpers";

const login = (username: string, password: string, headers: Record<string, string> = {}) => call("/api/login", { json: { username, password }, headers });

describe("first-admin setup", () => {
  it("registers the first admin only while no users exist", async () => {
    await db().delete(users);
    expect(await (await call("/api/setup")).json()).toEqual({ needsSetup: true, needsSetupToken: false });

    const res = await call("/api/register", { json: { username: "founder", password: "s3cret-password" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ username: "founder", role: "admin", permissions: [] });
    const cookie = sessionCookieFrom(res);
    expect(cookie).toBeDefined();
    expect(res.headers.getSetCookie()[0]).toMatch(/HttpOnly; Secure; SameSite=Lax/i);

    const me = await call("/api/user", { cookie });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: "founder", role: "admin" });

    expect(await (await call("/api/setup")).json()).toEqual({ needsSetup: false, needsSetupToken: false });
    const second = await call("/api/register", { json: { username: "intruder", password: "s3cret-password" } });
    expect(second.status).toBe(403);
    expect((await second.json<ApiErrorBody>()).error).toMatch(/closed/);
    expect(await db().select().from(users).where(eq(users.username, "intruder"))).toHaveLength(0);
  });

  it("validates the new admin's username and password", async () => {
    const res = await call("/api/register", { json: { username: "x", password: "short" } });
    expect(res.status).toBe(400);
    const body = await res.json<ApiErrorBody>();
    expect(body.details).toEqual(expect.arrayContaining([expect.stringMatching(/^username: /), expect.stringMatching(/^password: .*8 characters/)]));
  });
});

describe("sign in and out", () => {
  it("signs in with the right password and out again, revoking the session", async () => {
    const user = await makeUser("user", ["campaigns"]);
    const res = await login(user.username.toUpperCase(), user.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ username: user.username, role: "user", permissions: ["campaigns"] });
    const cookie = sessionCookieFrom(res)!;
    expect((await call("/api/user", { cookie })).status).toBe(200);

    const out = await call("/api/logout", { method: "POST", cookie });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join()).toMatch(new RegExp(`${SESSION_COOKIE}=;`));
    // The old cookie no longer works: the session row is gone.
    expect((await call("/api/user", { cookie })).status).toBe(401);
  });

  it("gives a wrong password and an unknown user the same answer", async () => {
    const user = await makeUser();
    const wrong = await login(user.username, "not the password", { "cf-connecting-ip": "10.0.0.1" });
    const unknown = await login(uniqueName("ghost"), "not the password", { "cf-connecting-ip": "10.0.0.1" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("answers 429 after five failures for a username, even with the right password", async () => {
    const user = await makeUser();
    for (let i = 0; i < 5; i++) {
      expect((await login(user.username, "wrong password", { "cf-connecting-ip": `10.1.0.${i}` })).status).toBe(401);
    }
    const sixth = await login(user.username, user.password, { "cf-connecting-ip": "10.1.0.9" });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(800);
    expect((await sixth.json<ApiErrorBody>()).error).toMatch(/Try again in 15 minutes/);
  });

  it("answers 429 after twenty failures from one IP", async () => {
    const ip = "10.2.0.1";
    for (let i = 0; i < 20; i++) {
      await login(uniqueName("spray"), "wrong password", { "cf-connecting-ip": ip });
    }
    const user = await makeUser();
    expect((await login(user.username, user.password, { "cf-connecting-ip": ip })).status).toBe(429);
    expect((await login(user.username, user.password, { "cf-connecting-ip": "10.2.0.2" })).status).toBe(200);
  }, 30_000);

  it("refuses a 10,000-character username with a clear message", async () => {
    const res = await login("a".repeat(10_000), "whatever");
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe("Username must be at most 64 characters");
  });
});

describe("cookies", () => {
  it("treats a forged cookie as signed out", async () => {
    const user = await makeUser();
    const [, token] = user.cookie.split("=");
    const [header, payload] = token!.split(".");
    const forged = `${SESSION_COOKIE}=${header}.${payload}.${"A".repeat(43)}`;
    expect((await call("/api/user", { cookie: forged })).status).toBe(401);
    expect((await call("/api/user", { cookie: `${SESSION_COOKIE}=garbage` })).status).toBe(401);
  });

  it("treats an expired session as signed out", async () => {
    const user = await makeUser();
    await db()
      .update(sessions)
      .set({ expiresAt: Date.now() - 1000 })
      .where(eq(sessions.userId, user.id));
    expect((await call("/api/user", { cookie: user.cookie })).status).toBe(401);
  });

  it("signs out every session of a deleted user at once", async () => {
    const admin = await makeAdmin();
    const member = await makeUser();
    expect((await call("/api/user", { cookie: member.cookie })).status).toBe(200);
    const del = await call(`/api/users/${member.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(await del.json()).toEqual({ ok: true });
    expect((await call("/api/user", { cookie: member.cookie })).status).toBe(401);
  });

  it("applies a permission change on the very next request", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", []);
    expect(await (await call("/api/user", { cookie: member.cookie })).json()).toMatchObject({ permissions: [] });
    await call(`/api/users/${member.id}/permissions`, { json: { features: ["sparks", "clicks"] }, cookie: admin.cookie });
    const me = await bodyOf(await client(member).user.$get(), 200);
    expect(me.permissions.sort()).toEqual(["clicks", "sparks"]);
  });
});

describe("request guards", () => {
  it("refuses a cross-site form POST", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/users", {
      body: "username=evil&password=evilevilevil",
      cookie: admin.cookie,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
  });

  it("refuses a same-origin body that is not JSON with 415", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/users", {
      body: "username=evil&password=evilevilevil",
      cookie: admin.cookie,
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(415);
    expect((await res.json<ApiErrorBody>()).error).toMatch(/application\/json/);
  });

  it("refuses a 2 MB JSON body with 413 and stores nothing", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/users", {
      json: { username: "big", password: "x".repeat(2 * 1024 * 1024) },
      cookie: admin.cookie,
    });
    expect(res.status).toBe(413);
    expect(await db().select().from(users).where(eq(users.username, "big"))).toHaveLength(0);
  });

  it("answers malformed JSON with 400 in the error shape", async () => {
    const res = await call("/api/login", { body: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "The request body is not valid JSON" });
  });

  it("sends security headers and no-store on API answers", async () => {
    const res = await call("/api/setup");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it("keeps the session secret out of reach of a too-short configuration", () => {
    expect(env.SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
  });
});
