import { eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { audit } from "../audit/record";
import { hashPassword, verifyPassword } from "../auth/password";
import { deleteOtherSessions } from "../auth/session";
import { claimAttempt, forgetAttempt } from "../auth/throttle";
import {
  decryptSecret,
  encryptSecret,
  hashRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  totpUri,
  twoFactorConfigured,
  twoFactorKeys,
} from "../auth/two-factor";
import { disableTwoFactor, enableTwoFactor, recoveryCodesLeft, setPendingSecret, twoFactorRequired, twoFactorState } from "../db/queries/two-factor";
import { findUserByUsername } from "../db/queries/users";
import { sessions, users } from "../db/schema";
import type { AppEnv, SessionUser } from "../env";
import { ApiError, badRequest, conflict } from "../lib/errors";
import { clientIp } from "../lib/request";
import { validate } from "../lib/validate";
import { changePasswordSchema, passwordCheckSchema, totpCodeSchema } from "../schemas/auth";

/** Access control already refused anonymous callers; this only narrows the type. */
function me(c: Context<AppEnv>): SessionUser {
  const user = c.get("user");
  if (!user) throw new ApiError(401, "You are not signed in");
  return user;
}

/**
 * Checks the caller's own password again. A guess counts against the sign-in throttle like a
 * sign-in, so a borrowed session cannot be used to try passwords; a wrong one is a 400 (bad input),
 * not a 401 that would read as "signed out".
 */
async function checkOwnPassword(c: Context<AppEnv>, user: SessionUser, password: string, field: string) {
  const db = c.get("db");
  const claim = await claimAttempt(db, user.username, clientIp(c.req.raw));
  if (claim.attemptId === null) {
    throw new ApiError(429, `Too many wrong passwords. Try again in ${Math.ceil(claim.waitSeconds / 60)} minutes.`, undefined, {
      "Retry-After": String(claim.waitSeconds),
    });
  }
  const row = await findUserByUsername(db, user.username);
  if (!row || !(await verifyPassword(password, row.passwordHash))) {
    throw badRequest("Your current password is not right", [`${field}: Your current password is not right`]);
  }
  await forgetAttempt(db, claim.attemptId);
}

async function twoFactorStatus(c: Context<AppEnv>, userId: string) {
  const db = c.get("db");
  const [state, left, required] = await Promise.all([twoFactorState(db, userId), recoveryCodesLeft(db, userId), twoFactorRequired(db)]);
  return {
    enabled: state?.totpSecret != null,
    enabledAt: state?.totpEnabledAt != null ? new Date(state.totpEnabledAt).toISOString() : null,
    recoveryCodesLeft: left,
    requiredByAdmin: required,
    configured: twoFactorConfigured(c.env.TWO_FACTOR_KEY),
  };
}

/** The signed-in user's own account: their password and their second factor. */
export const accountRoutes = new Hono<AppEnv>()
  /** Changes the caller's password; every other session of theirs is signed out, this one stays. */
  .post("/password", validate("json", changePasswordSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    const { currentPassword, newPassword } = c.req.valid("json");
    await checkOwnPassword(c, user, currentPassword, "currentPassword");
    if (currentPassword === newPassword)
      throw badRequest("The new password must differ from the current one", ["newPassword: The new password must differ from the current one"]);
    await db.batch([
      db
        .update(users)
        .set({ passwordHash: await hashPassword(newPassword) })
        .where(eq(users.id, user.id)),
      deleteOtherSessions(db, user.id, user.sessionId),
      audit(c, { action: "user.password_change", kind: "user", id: user.id, summary: `${user.username} changed their password; other sessions signed out` }),
    ]);
    return c.json({ ok: true }, 200);
  })

  .get("/two-factor", async (c) => c.json(await twoFactorStatus(c, me(c).id), 200))

  /**
   * A new secret to scan: kept as pending (encrypted) until a code from the app confirms it, so a
   * half-done setup never locks anyone out. Setting up again (a new phone) replaces the old one
   * only when confirmed.
   */
  .post("/two-factor/setup", async (c) => {
    const user = me(c);
    const keys = await twoFactorKeys(c.env.TWO_FACTOR_KEY);
    const secret = newTotpSecret();
    await setPendingSecret(c.get("db"), user.id, await encryptSecret(keys, user.id, secret));
    return c.json({ secret, uri: totpUri(user.username, secret) }, 200);
  })

  /** The first code confirms the setup; the answer carries the ten recovery codes, shown this once. */
  .post("/two-factor/confirm", validate("json", totpCodeSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    const keys = await twoFactorKeys(c.env.TWO_FACTOR_KEY);
    const state = await twoFactorState(db, user.id);
    if (!state?.totpPendingSecret) throw conflict("Start the setup first: there is no new secret waiting for a code");
    const step = matchTotp(await decryptSecret(keys, user.id, state.totpPendingSecret), c.req.valid("json").code);
    if (step === null) {
      throw badRequest("That code is not right. Check that the app shows Trackyard and enter its current 6-digit code.", ["code: That code is not right"]);
    }
    const codes = newRecoveryCodes();
    const hashes = await Promise.all(codes.map((code) => hashRecoveryCode(keys, code)));
    await db.batch([
      ...enableTwoFactor(db, user.id, state.totpPendingSecret, step, hashes),
      // A session that was only allowed to set this up is now a full one.
      db.update(sessions).set({ stage: "active" }).where(eq(sessions.id, user.sessionId)),
      audit(c, {
        action: "user.2fa_enable",
        kind: "user",
        id: user.id,
        summary: `${user.username} turned on two-factor sign-in${state.totpSecret ? " (new device)" : ""}; ${codes.length} recovery codes issued`,
      }),
    ]);
    return c.json({ recoveryCodes: codes }, 200);
  })

  /** Turning it off asks for the password again, and is refused while an admin requires it. */
  .post("/two-factor/disable", validate("json", passwordCheckSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    if (await twoFactorRequired(db)) throw conflict("An admin requires two-factor sign-in for everyone: it cannot be turned off");
    await checkOwnPassword(c, user, c.req.valid("json").password, "password");
    if (!user.twoFactorEnabled) return c.json(await twoFactorStatus(c, user.id), 200);
    await db.batch([
      ...disableTwoFactor(db, user.id),
      audit(c, { action: "user.2fa_disable", kind: "user", id: user.id, summary: `${user.username} turned off two-factor sign-in` }),
    ]);
    return c.json(await twoFactorStatus(c, user.id), 200);
  });
