import { and, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import { loginAttempts } from "../db/schema";
import type { Db } from "../env";

/** decisions.md: 5 failures for a username or 20 from an IP within 15 minutes lock sign-in. */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_USERNAME = 5;
export const MAX_FAILURES_PER_IP = 20;

const normalise = (username: string) => username.trim().toLowerCase();

/**
 * Seconds until sign-in is allowed again, or 0 when it is allowed now. With `limit` or more
 * failures in the window, the lock lifts when the `limit`-th newest of them leaves the window.
 */
export async function throttleWait(db: Db, username: string, ip: string, now = Date.now()): Promise<number> {
  const since = now - THROTTLE_WINDOW_MS;
  const nthNewest = (where: SQL | undefined, limit: number) =>
    db
      .select({ at: loginAttempts.attemptedAt })
      .from(loginAttempts)
      .where(and(where, gt(loginAttempts.attemptedAt, since)))
      .orderBy(desc(loginAttempts.attemptedAt))
      .limit(1)
      .offset(limit - 1);
  const [byUser, byIp] = await db.batch([
    nthNewest(eq(loginAttempts.username, normalise(username)), MAX_FAILURES_PER_USERNAME),
    nthNewest(eq(loginAttempts.ip, ip), MAX_FAILURES_PER_IP),
  ]);
  const locks = [...byUser, ...byIp].map((row) => row.at + THROTTLE_WINDOW_MS - now);
  return locks.length ? Math.max(1, Math.ceil(Math.max(...locks) / 1000)) : 0;
}

export async function recordFailure(db: Db, username: string, ip: string, now = Date.now()) {
  await db.batch([
    db.insert(loginAttempts).values({ username: normalise(username), ip, attemptedAt: now }),
    // Keep the table small: nothing older than the window matters.
    db.delete(loginAttempts).where(lt(loginAttempts.attemptedAt, now - THROTTLE_WINDOW_MS)),
  ]);
}

/** A successful sign-in clears that username's failures (the IP's count stays). */
export const clearFailures = (db: Db, username: string) =>
  db.delete(loginAttempts).where(eq(loginAttempts.username, normalise(username)));
