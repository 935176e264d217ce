import { and, desc, eq, gt, sql, type SQL } from "drizzle-orm";
import { loginAttempts } from "../db/schema";
import { rawBatch } from "../db/raw-batch";
import type { Db } from "../env";
import { visitorKey } from "../tracking/rate-limit";

/** docs/accounts-security.md "Accounts, roles and permissions": 5 failures for a username or 20 from an IP within 15 minutes lock sign-in. */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_USERNAME = 5;
export const MAX_FAILURES_PER_IP = 20;

const normalise = (username: string) => username.trim().toLowerCase();
/**
 * Whom the per-IP count is against: an IPv4 address, or an IPv6 address's /64 (one subscriber's
 * network, in which a device picks new addresses at will), as the click limiter counts visitors.
 */
const ipKey = (ip: string) => visitorKey(ip) ?? ip;

/**
 * Seconds until sign-in is allowed again, or 0 when it is allowed now. With `limit` or more
 * attempts in the window, the lock lifts when the `limit`-th newest of them leaves the window.
 */
export async function throttleWait(db: Db, username: string, address: string, now = Date.now()): Promise<number> {
  const ip = ipKey(address);
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

export type AttemptClaim = { attemptId: number; waitSeconds: 0 } | { attemptId: null; waitSeconds: number };

/**
 * Counts a sign-in attempt BEFORE its password or code is compared: the row is inserted only
 * while the username and the IP are under their limits, in one statement, so any number of
 * requests racing for one account get at most the limit of comparisons between them. An attempt
 * that turns out right is taken back with `forgetAttempt`; a wrong one simply stays as a failure.
 */
export async function claimAttempt(db: Db, username: string, address: string, now = Date.now()): Promise<AttemptClaim> {
  const name = normalise(username);
  const ip = ipKey(address);
  const since = now - THROTTLE_WINDOW_MS;
  const [claimed] = await rawBatch(db, [
    sql`insert into ${loginAttempts} (username, ip, attempted_at)
        select ${name}, ${ip}, ${now}
        where (select count(*) from ${loginAttempts} where username = ${name} and attempted_at > ${since}) < ${MAX_FAILURES_PER_USERNAME}
          and (select count(*) from ${loginAttempts} where ip = ${ip} and attempted_at > ${since}) < ${MAX_FAILURES_PER_IP}
        returning id`,
    // Keep the table small: nothing older than the window matters.
    sql`delete from ${loginAttempts} where attempted_at <= ${since}`,
  ]);
  const row = claimed?.results[0] as { id: number } | undefined;
  if (row) return { attemptId: row.id, waitSeconds: 0 };
  return { attemptId: null, waitSeconds: Math.max(1, await throttleWait(db, username, address, now)) };
}

/** An attempt that was right is no failure: its slot is given back. */
export const forgetAttempt = (db: Db, attemptId: number) => db.delete(loginAttempts).where(eq(loginAttempts.id, attemptId));

/** A completed sign-in clears that username's failures (the IP's count stays). */
export const clearFailures = (db: Db, username: string) => db.delete(loginAttempts).where(eq(loginAttempts.username, normalise(username)));

/**
 * Conditions that hold when this failed attempt starts a lock: it is the limit-th failure in the
 * window for its username (or its IP), counting by id, so exactly one attempt starts each lock
 * however many race. The audit log records a lockout once, when it starts, not every refused try
 * during it. The attempt's own row gives the username and IP, keyed as `claimAttempt` stored them.
 */
export function lockStartedBy(attemptId: number, now = Date.now()) {
  const since = now - THROTTLE_WINDOW_MS;
  const nth = (column: "username" | "ip", limit: number) =>
    sql`(select count(*) from ${loginAttempts} a join ${loginAttempts} me on me.id = ${attemptId}
         where a.${sql.raw(column)} = me.${sql.raw(column)} and a.attempted_at > ${since} and a.id <= me.id) = ${limit}`;
  return { username: nth("username", MAX_FAILURES_PER_USERNAME), ip: nth("ip", MAX_FAILURES_PER_IP) };
}
