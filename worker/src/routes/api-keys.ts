import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { decide } from "../access";
import { audit } from "../audit/record";
import { clearKeyCache, newApiKey } from "../auth/api-key";
import { activeApiKey, listApiKeys } from "../db/queries/api-keys";
import { apiKeys } from "../db/schema";
import type { AppEnv } from "../env";
import { forbidden, notFound } from "../lib/errors";
import { isoOrNull, iso } from "../lib/time";
import { signedInUser } from "../lib/request";
import { validate } from "../lib/validate";
import { API_KEY_RESOURCES, createApiKeySchema, type ApiKeyResource, type ApiKeyScope } from "../schemas/api-keys";
import { idParam } from "../schemas/common";

const DAY_MS = 24 * 60 * 60 * 1000;

const me = signedInUser;

type KeyRow = Awaited<ReturnType<typeof listApiKeys>>[number];
const shown = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  owner: { id: k.userId, username: k.username },
  createdAt: iso(k.createdAt),
  expiresAt: isoOrNull(k.expiresAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
  lastUsedIp: k.lastUsedIp,
});

const resourceOf = (scope: ApiKeyScope) => scope.split(":")[0] as ApiKeyResource;

/** Personal API keys (docs/accounts-security.md "API keys"). Keys themselves can call none of these (access.ts). */
export const apiKeyRoutes = new Hono<AppEnv>()
  /** The caller's own keys still in force (not revoked), newest first; expired ones say so by their date. */
  .get("/", async (c) => c.json((await listApiKeys(c.get("db"), me(c).id)).map(shown), 200))

  /** Every user's keys (admins), to revoke a leaked or forgotten one. */
  .get("/all", async (c) => c.json((await listApiKeys(c.get("db"))).map(shown), 200))

  /**
   * A new key with scopes the caller holds themselves: a member only the features they have, and
   * no admin area. The key is in this answer only; D1 keeps its digest.
   */
  .post("/", validate("json", createApiKeySchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    const { name, scopes: asked, expiresInDays } = c.req.valid("json");
    const scopes = [...new Set(asked)];
    const refused = scopes.filter((s) => decide(API_KEY_RESOURCES[resourceOf(s)].grant, user) !== "allow");
    if (refused.length) throw forbidden(`You cannot grant ${refused.join(", ")}: a key gets only what your own role and features allow`);
    const { key, digest, prefix } = await newApiKey();
    const now = Date.now();
    const expiresAt = expiresInDays ? now + expiresInDays * DAY_MS : null;
    const [[created]] = await db.batch([
      db.insert(apiKeys).values({ userId: user.id, name, digest, prefix, scopes, createdAt: now, expiresAt }).returning({ id: apiKeys.id }),
      audit(c, {
        action: "api_key.create",
        kind: "api_key",
        id: sql`last_insert_rowid()`,
        summary: `${user.username} created API key ${name} (${prefix}…): ${scopes.join(", ")}; ${expiresAt ? `expires ${iso(expiresAt).slice(0, 10)}` : "no expiry"}`,
      }),
    ]);
    return c.json(
      {
        key,
        apiKey: shown({
          id: created!.id,
          userId: user.id,
          username: user.username,
          name,
          prefix,
          scopes,
          createdAt: now,
          expiresAt,
          lastUsedAt: null,
          lastUsedIp: null,
        }),
      },
      201,
    );
  })

  /** Revokes a key: its owner's own, or anyone's for an admin. Every isolate stops taking it within KEY_CACHE_MS (auth/api-key.ts). */
  .delete("/:id", validate("param", idParam), async (c) => {
    const user = me(c);
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const key = await activeApiKey(db, id);
    // Someone else's key is "not found" to a member: they learn nothing about other users' keys.
    if (!key || (key.userId !== user.id && user.role !== "admin")) throw notFound("No such API key");
    await db.batch([
      db
        .update(apiKeys)
        .set({ revokedAt: Date.now() })
        .where(and(eq(apiKeys.id, id), sql`${apiKeys.revokedAt} is null`)),
      audit(
        c,
        {
          action: "api_key.revoke",
          kind: "api_key",
          id,
          summary: `${user.username} revoked API key ${key.name} (${key.prefix}…)${key.userId === user.id ? "" : ` of ${key.username}`}`,
        },
        { ifChanged: true },
      ),
    ]);
    // This isolate stops taking it at once; others within the cache's few seconds.
    clearKeyCache();
    return c.json({ ok: true }, 200);
  });
