import { and, count, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../env";
import { recoveryCodes, settings, users } from "../schema";

/** The settings row of the admin's "require two-factor sign-in for everyone" (not a Settings-screen value). */
export const REQUIRE_TWO_FACTOR_KEY = "require_two_factor";

export async function twoFactorRequired(db: Db): Promise<boolean> {
  const row = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, REQUIRE_TWO_FACTOR_KEY)).get();
  return row?.value === "true";
}

/** Unrun, to batch with its audit entry. */
export function setTwoFactorRequired(db: Db, required: boolean) {
  const value = String(required);
  const updatedAt = Date.now();
  return db.insert(settings).values({ key: REQUIRE_TWO_FACTOR_KEY, value, updatedAt }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } });
}

export const twoFactorState = (db: Db, userId: string) =>
  db
    .select({
      username: users.username,
      totpSecret: users.totpSecret,
      totpPendingSecret: users.totpPendingSecret,
      totpEnabledAt: users.totpEnabledAt,
      totpLastStep: users.totpLastStep,
    })
    .from(users)
    .where(eq(users.id, userId))
    .get();

export async function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
    .get();
  return row?.n ?? 0;
}

/**
 * Takes a TOTP time step for a user: only a step later than the last one taken, in one
 * statement, so the same code sent twice (or twice at once) signs in once.
 */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return rows.length === 1;
}

/** Marks an unused recovery code used, in one statement: a code works once. False: wrong or used. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string, now = Date.now()): Promise<boolean> {
  const rows = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return rows.length === 1;
}

/** Statements that turn two-factor sign-in on with `secret` (encrypted) and fresh recovery codes. */
export const enableTwoFactor = (db: Db, userId: string, secret: string, step: number, codeHashes: string[], now = Date.now()) =>
  [
    db.update(users).set({ totpSecret: secret, totpPendingSecret: null, totpEnabledAt: now, totpLastStep: step }).where(eq(users.id, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
    db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash, createdAt: now }))),
  ] as const;

/** Statements that turn two-factor sign-in off (the user's own choice, or an admin's reset). */
export const disableTwoFactor = (db: Db, userId: string) =>
  [
    db.update(users).set({ totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
  ] as const;

export const setPendingSecret = (db: Db, userId: string, secret: string) => db.update(users).set({ totpPendingSecret: secret }).where(eq(users.id, userId));
