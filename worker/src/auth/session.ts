import { and, eq, gt, inArray, ne, sql } from "drizzle-orm";
import { jwtVerify, SignJWT } from "jose";
import { sessions, settings, userPermissions, users, type Feature, type SessionStage } from "../db/schema";
import { DEFAULT_SESSION_IDLE_HOURS } from "../schemas/settings";
import type { Db, SessionUser } from "../env";
import { base64url } from "../lib/encoding";

/** `__Host-` pins the cookie to this host, Secure and Path=/ (no Domain can widen it). */
export const SESSION_COOKIE = "__Host-session";
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
/** How long a re-authentication lets an admin change other users' passwords, roles and second factors. */
export const REAUTH_TTL_MS = 5 * 60 * 1000;
/** A session's last-seen time is written at most this often (one write a minute, not one per request). */
export const LAST_SEEN_GRANULARITY_MS = 60 * 1000;
/** How long a password-checked sign-in waits for its second factor. */
export const SECOND_FACTOR_TTL_SECONDS = 5 * 60;
const ISSUER = "trackyard";
const AUDIENCE = "trackyard-app";
const ALGORITHM = "HS256";

const keyFor = (secret: string) => {
  if (!secret || secret.length < 32) {
    throw new Error("SESSION_SECRET is missing or shorter than 32 characters");
  }
  return new TextEncoder().encode(secret);
};

const newSessionId = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

export interface SessionMeta {
  ip: string | null;
  userAgent: string | null;
}

/**
 * A new session's row insert (unrun, to batch with the sign-in's audit entry) and its signed
 * token. `stage` limits what it may do (see SESSION_STAGES in db/schema.ts).
 */
export async function prepareSession(
  db: Db,
  secret: string,
  userId: string,
  meta: SessionMeta,
  { stage = "active", ttlSeconds = SESSION_TTL_SECONDS, now = Date.now() }: { stage?: SessionStage; ttlSeconds?: number; now?: number } = {},
) {
  const id = newSessionId();
  const expiresAt = now + ttlSeconds * 1000;
  const token = await new SignJWT({ sid: id })
    .setProtectedHeader({ alg: ALGORITHM })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(keyFor(secret));
  return { id, token, ttlSeconds, insert: db.insert(sessions).values({ id, userId, createdAt: now, lastSeenAt: now, expiresAt, stage, ...meta }) };
}

export async function createSession(db: Db, secret: string, userId: string, meta: SessionMeta, now = Date.now()): Promise<string> {
  const session = await prepareSession(db, secret, userId, meta, { now });
  await session.insert;
  return session.token;
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

/** The idle time in ms (setting session_idle_hours), read inside the statement that needs it. */
const idleMs = sql<number>`3600000 * coalesce((select cast(${settings.value} as real) from ${settings} where ${settings.key} = 'session_idle_hours'), ${DEFAULT_SESSION_IDLE_HOURS})`;

/** A session still in use: not past its fixed 7 days, and a request within the idle time. */
export const liveSession = (now: number) => and(gt(sessions.expiresAt, now), sql`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt}) > ${now} - ${idleMs}`);

/**
 * Session, user, role and permissions in one read, so a logout, a deleted user or a changed
 * permission or role takes effect on the very next request. A session still waiting for its
 * second factor is no signed-in user; one idle longer than the idle time is signed out.
 */
export async function loadSessionUser(db: Db, sessionId: string, now = Date.now()): Promise<(SessionUser & { lastSeenAt: number }) | null> {
  const row = await db
    .select({
      sessionId: sessions.id,
      id: users.id,
      username: users.username,
      role: users.role,
      stage: sessions.stage,
      lastSeenAt: sql<number>`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt})`,
      reauthenticatedAt: sessions.reauthenticatedAt,
      twoFactorEnabled: sql<number>`${users.totpSecret} is not null`,
      permissions: sql<string | null>`(select group_concat(${userPermissions.feature}) from ${userPermissions} where ${userPermissions.userId} = ${users.id})`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sessionId), liveSession(now), inArray(sessions.stage, ["active", "enroll"])))
    .get();
  if (!row || row.stage === "second-factor") return null;
  return {
    sessionId: row.sessionId,
    id: row.id,
    username: row.username,
    role: row.role,
    stage: row.stage,
    twoFactorEnabled: row.twoFactorEnabled === 1,
    reauthenticatedAt: row.reauthenticatedAt,
    lastSeenAt: row.lastSeenAt,
    permissions: row.permissions ? (row.permissions.split(",") as Feature[]) : [],
  };
}

/** A user's signed-in sessions (not those waiting for a second factor), the most recently used first. */
export const listUserSessions = (db: Db, userId: string, now = Date.now()) =>
  db
    .select({
      id: sessions.id,
      createdAt: sessions.createdAt,
      lastSeenAt: sql<number>`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt})`,
      ip: sessions.ip,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), liveSession(now), inArray(sessions.stage, ["active", "enroll"])))
    .orderBy(sql`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt}) desc`);

/** Records a request of the session, at most once a minute (the idle time and Account's "last seen" read it). */
export const touchSession = (db: Db, sessionId: string, now = Date.now()) => db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, sessionId));

/** Whether the session gave its password (and code) again within the last 5 minutes. */
export const recentlyReauthenticated = (user: Pick<SessionUser, "reauthenticatedAt">, now = Date.now()) =>
  user.reauthenticatedAt !== null && now - user.reauthenticatedAt < REAUTH_TTL_MS;

/** Stamps a re-authentication on the session (auth/reauth.ts). */
export const markReauthenticated = (db: Db, sessionId: string, now = Date.now()) =>
  db.update(sessions).set({ reauthenticatedAt: now }).where(eq(sessions.id, sessionId));

export const deleteSession = (db: Db, sessionId: string) => db.delete(sessions).where(eq(sessions.id, sessionId));

/** Every session of a user but one (a password change keeps the session that made it). */
export const deleteOtherSessions = (db: Db, userId: string, keepSessionId: string | null) =>
  db.delete(sessions).where(keepSessionId === null ? eq(sessions.userId, userId) : and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)));

/** A session waiting for its second factor, if the token names one that has not expired. */
export async function loadSecondFactorSession(db: Db, sessionId: string, now = Date.now()) {
  return db
    .select({ id: sessions.id, userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.stage, "second-factor"), gt(sessions.expiresAt, now)))
    .get();
}
