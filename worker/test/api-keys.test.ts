import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clearKeyCache, digestOf, KEY_CACHE_MS, keyHolder } from "../src/auth/api-key";
import { API_KEY_LIMIT_PER_MINUTE } from "../src/auth/api-key-limit";
import { createSpark } from "../src/db/queries/sparks";
import { apiKeys, auditLog } from "../src/db/schema";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import type { CreateApiKeyInput } from "../src/schemas/api-keys";
import { countD1 } from "./d1-counter";
import { bodyOf, call, client, db, makeAdmin, makeUser, ORIGIN, type TestUser } from "./helpers";

/** A key made the way Account makes it: POST /api/api-keys with the user's session. */
async function createKey(user: TestUser, input: Partial<CreateApiKeyInput> = {}) {
  const res = await client(user)["api-keys"].$post({ json: { name: "Script", scopes: ["profile:read"], ...input } });
  return bodyOf(res, 201);
}

interface BearerOptions {
  method?: string;
  json?: unknown;
  ip?: string;
  headers?: Record<string, string>;
  bindings?: Partial<Bindings>;
}

/** One Bearer request through the Worker's fetch, its background work (the key's last use) awaited. */
async function bearer(key: string, path: string, { method, json, ip = "203.0.113.7", headers = {}, bindings = {} }: BearerOptions = {}) {
  const ctx = createExecutionContext();
  const init: RequestInit = {
    method: method ?? (json === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": ip, ...(json === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: json === undefined ? undefined : JSON.stringify(json),
  };
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, init), { ...(env as Bindings), ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const auditOf = (action: string, entityId: number) =>
  db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.entityId, String(entityId))));

describe("API keys", () => {
  it("are shown once, stored as a digest with a visible prefix, and act as their user with the X-RateLimit headers", async () => {
    const member = await makeUser("user", ["landers"]);
    const { key, apiKey } = await createKey(member, { name: "Sheets", scopes: ["landers:read", "profile:read"], expiresInDays: 30 });
    expect(key).toMatch(/^ty_[A-Za-z0-9_-]{43}$/);
    expect(apiKey.prefix).toBe(key.slice(0, 9));
    expect(apiKey.owner.id).toBe(member.id);
    expect(Date.parse(apiKey.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(row!.digest).toBe(await digestOf(key));
    expect(JSON.stringify(row)).not.toContain(key.slice(9));
    const listed = await bodyOf(await client(member)["api-keys"].$get(), 200);
    expect(listed.map((k) => k.id)).toEqual([apiKey.id]);
    expect(JSON.stringify(listed)).not.toContain(key.slice(9));

    const res = await bearer(key, "/api/user", { ip: "198.51.100.1" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(member.id);
    expect(res.headers.get("x-ratelimit-limit")).toBe(String(API_KEY_LIMIT_PER_MINUTE));
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeLessThan(API_KEY_LIMIT_PER_MINUTE);
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect((await bearer(key, "/api/landers")).status).toBe(200);

    const [used] = await bodyOf(await client(member)["api-keys"].$get(), 200);
    // The latest address: a new one is written at once, not a minute later.
    expect(used!.lastUsedIp).toBe("203.0.113.7");
    expect(used!.lastUsedAt).not.toBeNull();
    expect(await auditOf("api_key.create", apiKey.id)).toHaveLength(1);
  });

  it("need the scope of the route's resource: GET reads, other methods write; a 403 names the scope", async () => {
    const admin = await makeAdmin();
    const { key } = await createKey(admin, { scopes: ["landers:read"] });
    expect((await bearer(key, "/api/landers")).status).toBe(200);

    const write = await bearer(key, "/api/landers", { json: { name: "By key", url: "https://lander.test/" } });
    expect(write.status).toBe(403);
    expect(await write.json()).toEqual({ error: "This API key lacks the scope landers:write", code: "missing_scope" });
    // A route members reach by any of several features: any of their scopes would do.
    const offers = await bearer(key, "/api/offers");
    expect(offers.status).toBe(403);
    expect(((await offers.json()) as { error: string }).error).toBe("This API key lacks the scope offers:read (or campaigns:read, dashboard:read)");

    const { key: writer } = await createKey(admin, { scopes: ["landers:write"] });
    // write includes read; and a Bearer request needs no Origin: it carries no ambient credential.
    expect((await bearer(writer, "/api/landers")).status).toBe(200);
    const created = await bearer(writer, "/api/landers", {
      json: { name: "By key", url: "https://lander.test/" },
      headers: { origin: "https://elsewhere.test" },
    });
    expect(created.status, await created.clone().text()).toBe(201);
  });

  it("answer 401 with one body for a malformed, unknown, revoked or expired key, or another scheme", async () => {
    const user = await makeUser();
    const { key: revokedKey, apiKey: revoked } = await createKey(user);
    expect((await client(user)["api-keys"][":id"].$delete({ param: { id: String(revoked.id) } })).status).toBe(200);
    const { key: expiredKey, apiKey: expired } = await createKey(user, { expiresInDays: 1 });
    await db()
      .update(apiKeys)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(apiKeys.id, expired.id));
    clearKeyCache();

    const unknown = `ty_${"A".repeat(43)}`;
    const answers = await Promise.all([
      bearer("ty_short", "/api/user"),
      bearer(unknown, "/api/user"),
      bearer(revokedKey, "/api/user"),
      bearer(expiredKey, "/api/user"),
      worker.fetch(
        new Request(`${ORIGIN}/api/user`, { headers: { authorization: `Basic ${btoa("a:b")}`, cookie: user.cookie } }),
        env,
        createExecutionContext(),
      ),
    ]);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({ error: "The API key is not valid: it is unknown, revoked, expired or malformed" });
    expect(answers[0]!.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("never work on the sign-in, account, two-factor and API key routes, whatever their scopes", async () => {
    const admin = await makeAdmin();
    const { key } = await createKey(admin, { scopes: ["users:write", "profile:write", "settings:write"] });
    const refused = [
      { path: "/api/account/sessions" },
      { path: "/api/account/two-factor" },
      { path: "/api/account/two-factor/setup", json: { password: admin.password } },
      { path: "/api/account/password", json: { currentPassword: admin.password, newPassword: "another-long-password" } },
      { path: "/api/api-keys" },
      { path: "/api/api-keys", json: { name: "More", scopes: ["users:write"] } },
      { path: "/api/api-keys/all" },
      { path: "/api/logout", json: {} },
      { path: `/api/users/${admin.id}/two-factor/reset`, json: {} },
      { path: "/api/users/two-factor-requirement" },
    ];
    for (const { path, json } of refused) {
      const res = await bearer(key, path, { json });
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { error: string }).error, path).toMatch(/^API keys cannot be used/);
    }
    // An admin change that asks for a fresh password is refused to a key: it never re-authenticates.
    const member = await makeUser();
    const reset = await bearer(key, `/api/users/${member.id}/password`, { json: { password: "a-reset-password" } });
    expect(reset.status).toBe(403);
    expect(await db().select().from(apiKeys).where(eq(apiKeys.userId, admin.id))).toHaveLength(1);
  });

  it("grant only what the user holds, and a member's key sees only the member's own data", async () => {
    const member = await makeUser("user", ["sparks"]);
    for (const scopes of [["users:read"], ["landers:read"], ["sparks:read", "audit:read"]] as const) {
      const res = await call("/api/api-keys", { cookie: member.cookie, json: { name: "Too much", scopes } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toContain(scopes.at(-1)!);
    }
    const { key } = await createKey(member, { scopes: ["sparks:write"] });
    const own = await createSpark(db(), { name: "Mine", code: "<!-- mine -->" }, member.id);
    const others = await createSpark(db(), { name: "Not mine", code: "<!-- other -->" }, (await makeUser("user", ["sparks"])).id);
    const listed = (await (await bearer(key, "/api/sparks")).json()) as { id: number }[];
    expect(listed.map((s) => s.id)).toContain(own.id);
    expect(listed.map((s) => s.id)).not.toContain(others.id);

    // The access table still applies: a member's key cannot do what the member cannot.
    const landersMember = await makeUser("user", ["landers"]);
    const { key: landerKey } = await createKey(landersMember, { scopes: ["landers:write"] });
    const res = await bearer(landerKey, "/api/landers", { json: { name: "Nope", url: "https://lander.test/" } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "You do not have permission to do that" });
  });

  it("are refused, like their user's sessions, while an admin requires two-factor sign-in their user has not set up", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["sparks"]);
    const { key } = await createKey(member, { scopes: ["sparks:read", "profile:read"] });
    expect((await bearer(key, "/api/sparks")).status).toBe(200);
    const on = await call("/api/users/two-factor-requirement", { method: "PUT", cookie: admin.cookie, json: { required: true } });
    expect(on.status).toBe(200);
    try {
      clearKeyCache();
      const res = await bearer(key, "/api/sparks");
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toMatch(/^Set up two-factor sign-in on your Account page first/);
    } finally {
      await call("/api/users/two-factor-requirement", { method: "PUT", cookie: admin.cookie, json: { required: false } });
      clearKeyCache();
    }
    expect((await bearer(key, "/api/sparks")).status).toBe(200);
  });

  it("refuse bad input with 400 and a clear message", async () => {
    const user = await makeUser();
    const cases: [unknown, string][] = [
      [{ name: " ", scopes: ["profile:read"] }, "Name is required"],
      [{ name: "x", scopes: [] }, "Choose at least one scope"],
      [{ name: "x", scopes: ["profile:admin"] }, "profile:admin is not a scope"],
      [{ name: "x", scopes: ["profile:read"], expiresInDays: 0 }, "expiresInDays must be at least 1"],
      [{ name: "x", scopes: ["profile:read"], expiresInDays: 1.5 }, "expiresInDays must be a whole number of days"],
    ];
    for (const [json, message] of cases) {
      const res = await call("/api/api-keys", { cookie: user.cookie, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe(message);
    }
    expect(await db().select().from(apiKeys).where(eq(apiKeys.userId, user.id))).toHaveLength(0);
    expect((await call("/api/api-keys/abc", { method: "DELETE", cookie: user.cookie })).status).toBe(400);
  });

  it("are revoked by their owner or by an admin, not by another member, and the revocation is audited", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const admin = await makeAdmin();
    const { key, apiKey } = await createKey(owner);
    expect((await bearer(key, "/api/user")).status).toBe(200);

    const byOther = await client(other)["api-keys"][":id"].$delete({ param: { id: String(apiKey.id) } });
    expect(byOther.status).toBe(404);
    expect((await bearer(key, "/api/user")).status).toBe(200);

    const all = await bodyOf(await client(admin)["api-keys"].all.$get(), 200);
    expect(all.find((k) => k.id === apiKey.id)?.owner.username).toBe(owner.username);
    expect((await client(admin)["api-keys"][":id"].$delete({ param: { id: String(apiKey.id) } })).status).toBe(200);
    expect((await bearer(key, "/api/user")).status).toBe(401);
    const [entry] = await auditOf("api_key.revoke", apiKey.id);
    expect(entry!.summary).toContain(`of ${owner.username}`);
    expect(await bodyOf(await client(owner)["api-keys"].$get(), 200)).toEqual([]);
    // Revoking again: it is gone.
    expect((await client(owner)["api-keys"][":id"].$delete({ param: { id: String(apiKey.id) } })).status).toBe(404);
  });

  it("stop working in another isolate within KEY_CACHE_MS of a revocation", async () => {
    const user = await makeUser();
    const { key, apiKey } = await createKey(user);
    expect((await bearer(key, "/api/user")).status).toBe(200);
    // Revoked as another isolate would: this one has the key cached and has not heard.
    await db().update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, apiKey.id));
    expect((await bearer(key, "/api/user")).status).toBe(200);
    expect(await keyHolder(db(), await digestOf(key), Date.now() + KEY_CACHE_MS + 1)).toBeNull();
    expect((await bearer(key, "/api/user")).status).toBe(401);
  });

  it("audit the first use from each new address once", async () => {
    const user = await makeUser();
    const { key, apiKey } = await createKey(user);
    await bearer(key, "/api/user", { ip: "192.0.2.10" });
    await bearer(key, "/api/user", { ip: "192.0.2.10" });
    await bearer(key, "/api/user", { ip: "192.0.2.11" });
    await bearer(key, "/api/user", { ip: "192.0.2.10" });
    const entries = await auditOf("api_key.new_address", apiKey.id);
    expect(entries.map((e) => e.ip).sort()).toEqual(["192.0.2.10", "192.0.2.11"]);
  });

  it("are rate limited per key: 429 with Retry-After over the limit, while another key still gets 200", async () => {
    // A limiter that allows three requests per key, standing in for API_KEY_LIMITER's 600 a minute.
    const used = new Map<string, number>();
    const limiter: RateLimit = {
      limit: async ({ key }) => {
        used.set(key, (used.get(key) ?? 0) + 1);
        return { success: used.get(key)! <= 3 };
      },
    };
    const user = await makeUser();
    const { key: flooding } = await createKey(user, { name: "Flood" });
    const { key: calm } = await createKey(user, { name: "Calm" });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await bearer(flooding, "/api/user", { bindings: { API_KEY_LIMITER: limiter } })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);

    const limited = await bearer(flooding, "/api/user", { bindings: { API_KEY_LIMITER: limiter } });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: string }).error).toBe(`Too many requests with this API key: at most ${API_KEY_LIMIT_PER_MINUTE} a minute`);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("x-ratelimit-limit")).toBe(String(API_KEY_LIMIT_PER_MINUTE));

    const other = await bearer(calm, "/api/user", { bindings: { API_KEY_LIMITER: limiter } });
    expect(other.status).toBe(200);
    expect(Number(other.headers.get("x-ratelimit-remaining"))).toBe(API_KEY_LIMIT_PER_MINUTE - 1);
  });

  it("cost a session request's one D1 read when the isolate has not seen the key for 5 s, and none when it has", async () => {
    const user = await makeUser();
    const { key } = await createKey(user);
    await bearer(key, "/api/user");
    const reads = async (init: { key?: string; cookie?: string }) => {
      const counted = countD1(env.DB);
      const headers: Record<string, string> = { "cf-connecting-ip": "203.0.113.7" };
      if (init.key) headers.authorization = `Bearer ${init.key}`;
      if (init.cookie) headers.cookie = init.cookie;
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`${ORIGIN}/api/user`, { headers }), { ...(env as Bindings), DB: counted.db }, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      return counted.tally.queries;
    };
    const session = await reads({ cookie: user.cookie });
    clearKeyCache();
    const uncached = await reads({ key });
    const cached = await reads({ key });
    expect(uncached).toBeLessThanOrEqual(session);
    expect(cached).toBe(0);
  });
});
