import { eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { audit } from "../audit/record";
import { hashPassword } from "../auth/password";
import { checkOwnFactors } from "../auth/reauth";
import { deleteOtherSessions, listUserSessions, markReauthenticated, REAUTH_TTL_MS } from "../auth/session";
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
import { sessions, users } from "../db/schema";
import type { AppEnv, SessionUser } from "../env";
import { ApiError, badRequest, conflict } from "../lib/errors";
import { iso } from "../lib/time";
import { deviceOf } from "../lib/user-agent";
import { validate } from "../lib/validate";
import { changePasswordSchema, ownFactorsSchema, totpCodeSchema } from "../schemas/auth";

/** Access control already refused anonymous callers; this only narrows the type. */
function me(c: Context<AppEnv>): SessionUser {
  const user = c.get("user");
  if (!user) throw new ApiError(401, "You are not signed in");
  return user;
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
    const { currentPassword, code, newPassword } = c.req.valid("json");
    await checkOwnFactors(c, user, { password: currentPassword, code }, "currentPassword");
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
   * only when confirmed. It asks for the password (and the current code when two-factor sign-in
   * is already on), so a borrowed session cannot put its own phone on the account.
   */
  .post("/two-factor/setup", validate("json", ownFactorsSchema), async (c) => {
    const user = me(c);
    await checkOwnFactors(c, user, c.req.valid("json"));
    const keys = await twoFactorKeys(c.env.TWO_FACTOR_KEY);
    const secret = newTotpSecret();
    await setPendingSecret(c.get("db"), user.id, await encryptSecret(keys, user.id, secret));
    return c.json({ secret, uri: totpUri(user.username, secret) }, 200);
  })

  /**
   * The first code confirms the setup; the answer carries the ten recovery codes, shown this once.
   * Every other session of the user is signed out: they signed in without this phone.
   */
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
      deleteOtherSessions(db, user.id, user.sessionId),
      audit(c, {
        action: "user.2fa_enable",
        kind: "user",
        id: user.id,
        summary: `${user.username} turned on two-factor sign-in${state.totpSecret ? " (new device)" : ""}; ${codes.length} recovery codes issued; other sessions signed out`,
      }),
    ]);
    return c.json({ recoveryCodes: codes }, 200);
  })

  /**
   * Turning it off asks for the password and the current code again, and is refused while an admin
   * requires it; every other session of the user is signed out.
   */
  .post("/two-factor/disable", validate("json", ownFactorsSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    if (await twoFactorRequired(db)) throw conflict("An admin requires two-factor sign-in for everyone: it cannot be turned off");
    await checkOwnFactors(c, user, c.req.valid("json"));
    if (!user.twoFactorEnabled) return c.json(await twoFactorStatus(c, user.id), 200);
    await db.batch([
      ...disableTwoFactor(db, user.id),
      deleteOtherSessions(db, user.id, user.sessionId),
      audit(c, { action: "user.2fa_disable", kind: "user", id: user.id, summary: `${user.username} turned off two-factor sign-in; other sessions signed out` }),
    ]);
    return c.json(await twoFactorStatus(c, user.id), 200);
  })

  /**
   * Re-authentication: the password (and current code) again stamps this session, and for 5
   * minutes its admin may change other users' passwords, roles and second factors (auth/reauth.ts).
   */
  .post("/reauth", validate("json", ownFactorsSchema), async (c) => {
    const user = me(c);
    const db = c.get("db");
    await checkOwnFactors(c, user, c.req.valid("json"));
    const now = Date.now();
    await db.batch([
      markReauthenticated(db, user.sessionId, now),
      audit(c, {
        action: "session.reauth",
        kind: "session",
        id: user.id,
        summary: `${user.username} confirmed their password${user.twoFactorEnabled ? " and code" : ""}`,
      }),
    ]);
    return c.json({ validUntil: iso(now + REAUTH_TTL_MS) }, 200);
  })

  /** The caller's own signed-in sessions: device, IP, last seen, and which one is this device. */
  .get("/sessions", async (c) => {
    const user = me(c);
    const rows = await listUserSessions(c.get("db"), user.id);
    return c.json(
      rows.map((s, index) => ({
        // A position, not the session id: the id is half of what signs a session in.
        key: index,
        device: deviceOf(s.userAgent),
        ip: s.ip,
        signedInAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        current: s.id === user.sessionId,
      })),
      200,
    );
  })

  /** Signs out every other session of the caller (a lost laptop, a shared computer); this one stays. */
  .post("/sessions/sign-out-others", async (c) => {
    const user = me(c);
    const db = c.get("db");
    const [deleted] = await db.batch([
      deleteOtherSessions(db, user.id, user.sessionId).returning({ id: sessions.id }),
      audit(c, { action: "session.sign_out_others", kind: "session", id: user.id, summary: `${user.username} signed out their other sessions` }),
    ]);
    return c.json({ signedOut: deleted.length }, 200);
  });
