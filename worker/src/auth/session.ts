import { and, eq, gt, sql } from "drizzle-orm";
import { jwtVerify, SignJWT } from "jose";
import { sessions, userPermissions, users, type Feature } from "../db/schema";
import type { Db, SessionUser } from "../env";

/** `__Host-` pins the cookie to this host, Secure and Path=/ (no Domain can widen it). */
export const SESSION_COOKIE = "__Host-session";
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
const ISSUER = "trackyard";
const AUDIENCE = "trackyard-app";
const ALGORITHM = "HS256";

const keyFor = (secret: string) => {
  if (!secret || secret.length < 32) {
    throw new Error("SESSION_SECRET is missing or shorter than 32 characters");
  }
  return new TextEncoder().encode(secret);
};

const newSessionId = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

export async function createSession(
  db: Db,
  secret: string,
  userId: string,
  meta: { ip: string | null; userAgent: string | null },
  now = Date.now(),
): Promise<string> {
  const id = newSessionId();
  const expiresAt = now + SESSION_TTL_SECONDS * 1000;
  await db.insert(sessions).values({ id, userId, createdAt: now, expiresAt, ...meta });
  return new SignJWT({ sid: id })
    .setProtectedHeader({ alg: ALGORITHM })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(keyFor(secret));
}

/** The session id inside a valid token, or null for anything forged, expired or malformed. */
export async function readSessionToken(secret: string, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, keyFor(secret), {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return typeof payload.sid === "string" ? payload.sid : null;
  } catch {
    return null;
  }
}

/**
 * Session, user, role and permissions in one read, so a logout, a deleted user or a changed
 * permission takes effect on the very next request.
 */
export async function loadSessionUser(db: Db, sessionId: string, now = Date.now()): Promise<SessionUser | null> {
  const row = await db
    .select({
      sessionId: sessions.id,
      id: users.id,
      username: users.username,
      role: users.role,
      permissions: sql<string | null>`(select group_concat(${userPermissions.feature}) from ${userPermissions} where ${userPermissions.userId} = ${users.id})`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sessionId), gt(sessions.expiresAt, now)))
    .get();
  if (!row) return null;
  return {
    sessionId: row.sessionId,
    id: row.id,
    username: row.username,
    role: row.role,
    permissions: row.permissions ? (row.permissions.split(",") as Feature[]) : [],
  };
}

export const deleteSession = (db: Db, sessionId: string) => db.delete(sessions).where(eq(sessions.id, sessionId));

