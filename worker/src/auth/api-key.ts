/**
 * Personal API keys (docs/accounts-security.md "API keys"): making one, and finding the user a
 * Bearer key acts as. A key is `ty_` and 32 random bytes in base64url; only its SHA-256 digest is
 * stored. Keys are cached in the isolate by digest for KEY_CACHE_MS, so a Bearer request usually
 * costs no D1 read at all and at most one (the same one read a session costs), and a revocation,
 * expiry or change of role or features reaches every isolate within that time.
 */
import { eq, sql } from "drizzle-orm";
import { REQUIRE_TWO_FACTOR_KEY } from "../db/queries/two-factor";
import { apiKeyAddresses, apiKeys, settings, userPermissions, users, type Feature } from "../db/schema";
import type { Db, SessionUser } from "../env";
import { auditStatement } from "../audit/record";
import { base64url, sha256Hex } from "../lib/encoding";

export const API_KEY_PREFIX = "ty_";
const KEY_PATTERN = /^ty_[A-Za-z0-9_-]{43}$/;
/** The first characters shown to recognise a key: `ty_` and six of the random part. */
export const VISIBLE_PREFIX_LENGTH = 9;
/** How long an isolate trusts what it read about a key: revocation takes effect within this. */
export const KEY_CACHE_MS = 5_000;
/** A key's last use is written at most this often per isolate, except the first use from a new address. */
export const LAST_USED_GRANULARITY_MS = 60_000;
const CACHE_LIMIT = 1_000;

/** What D1 keeps of a key: its SHA-256 in hex. */
export const digestOf = (key: string) => sha256Hex(key);

/** A new key, its digest and the part of it shown in lists. */
export async function newApiKey() {
  const key = `${API_KEY_PREFIX}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { key, digest: await digestOf(key), prefix: key.slice(0, VISIBLE_PREFIX_LENGTH) };
}

export const wellFormed = (key: string) => KEY_PATTERN.test(key);

/** The user a key acts as, and what the key itself holds. */
export interface KeyHolder {
  keyId: number;
  scopes: string[];
  expiresAt: number | null;
  revoked: boolean;
  user: Omit<SessionUser, "apiKey">;
}

let cache = new Map<string, { holder: KeyHolder | null; until: number }>();

/** Forgets every cached key (tests that revoke and expect the next request to see it). */
export const clearKeyCache = () => {
  cache = new Map();
};

async function loadKeyHolder(db: Db, digest: string): Promise<KeyHolder | null> {
  const row = await db
    .select({
      keyId: apiKeys.id,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      id: users.id,
      username: users.username,
      role: users.role,
      twoFactorEnabled: sql<number>`${users.totpSecret} is not null`,
      twoFactorRequired: sql<number>`exists (select 1 from ${settings} where ${settings.key} = ${REQUIRE_TWO_FACTOR_KEY} and ${settings.value} = 'true')`,
      permissions: sql<string | null>`(select group_concat(${userPermissions.feature}) from ${userPermissions} where ${userPermissions.userId} = ${users.id})`,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.digest, digest))
    .get();
  if (!row) return null;
  return {
    keyId: row.keyId,
    scopes: row.scopes,
    expiresAt: row.expiresAt,
    revoked: row.revokedAt !== null,
    user: {
      id: row.id,
      username: row.username,
      role: row.role,
      permissions: row.permissions ? (row.permissions.split(",") as Feature[]) : [],
      // Not a session: nothing a key can call reads or writes it (account routes refuse keys).
      sessionId: `api-key:${row.keyId}`,
      // As at sign-in: while an admin requires two-factor sign-in, a user without it may only set
      // it up, which a key cannot do, so their keys are refused until they have.
      stage: row.twoFactorRequired === 1 && row.twoFactorEnabled !== 1 ? "enroll" : "active",
      twoFactorEnabled: row.twoFactorEnabled === 1,
      // Never re-authenticated: admin changes that ask for a fresh password are refused to keys.
      reauthenticatedAt: null,
    },
  };
}

/**
 * The user a Bearer key acts as, or null for a malformed, unknown, revoked or expired key (one
 * answer for all four, so a caller learns nothing about which). Reads D1 at most once per key and
 * KEY_CACHE_MS in this isolate; an unknown digest is cached too, so a flood of one bad key does
 * not reach D1 either.
 */
export async function keyHolder(db: Db, digest: string, now = Date.now()): Promise<KeyHolder | null> {
  let cached = cache.get(digest);
  if (!cached || cached.until <= now) {
    if (cache.size >= CACHE_LIMIT) cache = new Map();
    cached = { holder: await loadKeyHolder(db, digest), until: now + KEY_CACHE_MS };
    cache.set(digest, cached);
  }
  const holder = cached.holder;
  if (!holder || holder.revoked || (holder.expiresAt !== null && holder.expiresAt <= now)) return null;
  return holder;
}

/** Per key: when this isolate last wrote its use, and the addresses it has written. */
const written = new Map<number, { at: number; addresses: Set<string> }>();

/**
 * The writes a key's use needs, if any: its last-used time and address at most once a minute, and
 * at once for an address this isolate has not written yet, whose first use anywhere is audited.
 * Null: nothing to write (the caller runs the batch in waitUntil, after the answer).
 */
export function recordUse(db: Db, holder: KeyHolder, ip: string, now = Date.now()) {
  const seen = written.get(holder.keyId);
  if (seen && now - seen.at < LAST_USED_GRANULARITY_MS && seen.addresses.has(ip)) return null;
  if (written.size >= CACHE_LIMIT) written.clear();
  const entry = seen ?? { at: now, addresses: new Set<string>() };
  entry.at = now;
  entry.addresses.add(ip);
  written.set(holder.keyId, entry);
  const keyId = holder.keyId;
  return db.batch([
    db.update(apiKeys).set({ lastUsedAt: now, lastUsedIp: ip }).where(eq(apiKeys.id, keyId)),
    db.insert(apiKeyAddresses).values({ keyId, ip, firstUsedAt: now }).onConflictDoNothing(),
    auditStatement(
      db,
      { id: holder.user.id, username: holder.user.username },
      ip,
      { action: "api_key.new_address", kind: "api_key", id: keyId, summary: `API key #${keyId} of ${holder.user.username} used from a new address ${ip}` },
      // Only when the insert just before it added the address: its first use from there.
      { ifChanged: true },
    ),
  ]);
}

/** The one answer to every key that does not let its caller in. */
export const INVALID_KEY_MESSAGE = "The API key is not valid: it is unknown, revoked, expired or malformed";
