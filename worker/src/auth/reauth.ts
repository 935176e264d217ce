/**
 * Proving it is still the account's owner: the password again, and the current code where
 * two-factor sign-in is on (docs/accounts-security.md "Accounts, roles and permissions"). A change of one's own
 * factors asks for them in the same request; an admin's change to another user's password, role
 * or second factor asks for a re-authentication of the admin's session within 5 minutes.
 */
import type { Context } from "hono";
import { audit } from "../audit/record";
import { claimTotpStep, recoveryCodesLeft, useRecoveryCode } from "../db/queries/two-factor";
import { findUserByUsername } from "../db/queries/users";
import type { AppEnv, Db, SessionUser } from "../env";
import { ApiError, badRequest } from "../lib/errors";
import { clientIp } from "../lib/request";
import { verifyPassword } from "./password";
import { recentlyReauthenticated } from "./session";
import { claimAttempt, forgetAttempt } from "./throttle";
import { decryptSecret, hashRecoveryCode, matchTotp, normaliseRecoveryCode, twoFactorKeys } from "./two-factor";

/** The `code` of a 403 that the web app answers with its re-authentication dialog, then retries. */
export const REAUTH_NEEDED = "reauth-needed";

export type SecondFactorCheck = { ok: true; method: string } | { ok: false; refusal: string; message: string };

/**
 * A 6-digit code (each time step good once) or an unused recovery code (used up by this check)
 * against a user's stored, encrypted secret.
 */
export async function checkSecondFactor(db: Db, master: string | undefined, userId: string, totpSecret: string, typed: string): Promise<SecondFactorCheck> {
  const keys = await twoFactorKeys(master);
  const recovery = normaliseRecoveryCode(typed);
  if (recovery) {
    if (!(await useRecoveryCode(db, userId, await hashRecoveryCode(keys, recovery)))) {
      return { ok: false, refusal: "Recovery code wrong or already used", message: "That recovery code is wrong or was already used" };
    }
    return { ok: true, method: `recovery code (${await recoveryCodesLeft(db, userId)} left)` };
  }
  const step = matchTotp(await decryptSecret(keys, userId, totpSecret), typed.replace(/\s/g, ""));
  if (step === null) {
    return { ok: false, refusal: "Wrong code", message: "That code is not right. Enter the current 6-digit code from your authenticator app." };
  }
  if (!(await claimTotpStep(db, userId, step))) {
    return { ok: false, refusal: "Code already used", message: "That code was already used. Wait for the next code in your app." };
  }
  return { ok: true, method: "authenticator code" };
}

/**
 * Checks the caller's own password, and their code when two-factor sign-in is on. A guess counts
 * against the sign-in throttle like a sign-in, so a borrowed session cannot be used to try
 * passwords; a wrong one is a 400 naming the field (bad input), not a 401 that would read as
 * "signed out". `passwordField` is the name the form uses for the password.
 */
export async function checkOwnFactors(
  c: Context<AppEnv>,
  user: SessionUser,
  input: { password: string; code?: string | undefined },
  passwordField = "password",
) {
  const db = c.get("db");
  const claim = await claimAttempt(db, user.username, clientIp(c.req.raw));
  if (claim.attemptId === null) {
    throw new ApiError(429, `Too many wrong passwords or codes. Try again in ${Math.ceil(claim.waitSeconds / 60)} minutes.`, undefined, {
      "Retry-After": String(claim.waitSeconds),
    });
  }
  const row = await findUserByUsername(db, user.username);
  if (!row || !(await verifyPassword(input.password, row.passwordHash))) {
    throw badRequest("Your current password is not right", [`${passwordField}: Your current password is not right`]);
  }
  if (row.totpSecret !== null) {
    const code = input.code?.trim();
    if (!code) throw badRequest("Enter the current code from your authenticator app, or a recovery code", ["code: Enter the current code from your app"]);
    const check = await checkSecondFactor(db, c.env.TWO_FACTOR_KEY, user.id, row.totpSecret, code);
    if (!check.ok) {
      await db.batch([audit(c, { action: "session.second_factor_refused", kind: "session", id: user.id, summary: `Re-authentication: ${check.refusal}` })]);
      throw badRequest(check.message, [`code: ${check.message}`]);
    }
  }
  await forgetAttempt(db, claim.attemptId);
}

/** Admin changes to another user: refused with REAUTH_NEEDED unless the session re-authenticated within 5 minutes. */
export function requireRecentReauth(user: SessionUser | null) {
  if (!user || !recentlyReauthenticated(user)) {
    throw new ApiError(
      403,
      "Confirm it is you: enter your password (and code) again to change another user's sign-in or role",
      undefined,
      undefined,
      REAUTH_NEEDED,
    );
  }
}
