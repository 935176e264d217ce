import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { audit, type Actor } from "../audit/record";
import { accessKey } from "../auth/access-key";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../auth/password";
import { deleteSession, loadSecondFactorSession, prepareSession, readSessionToken, SECOND_FACTOR_TTL_SECONDS, SESSION_COOKIE } from "../auth/session";
import {
  claimAttempt,
  clearFailures,
  forgetAttempt,
  lockStartedBy,
  MAX_FAILURES_PER_IP,
  MAX_FAILURES_PER_USERNAME,
  THROTTLE_WINDOW_MS,
} from "../auth/throttle";
import { checkSecondFactor } from "../auth/reauth";
import { twoFactorRequired, twoFactorState } from "../db/queries/two-factor";
import {
  countUsers,
  findUserByUsername,
  insertFirstAdmin,
  listMediaBuyerAssignments,
  listPermissions,
  listSparkAssignments,
  listVcnAssignments,
} from "../db/queries/users";
import type { SessionStage } from "../db/schema";
import type { AppEnv, SessionUser } from "../env";
import { constantTimeEqual } from "../lib/constant-time";
import { ApiError } from "../lib/errors";
import { clientIp } from "../lib/request";
import { validate } from "../lib/validate";
import { loginSchema, registerSchema, secondFactorSchema } from "../schemas/auth";

/** What the client sees of the signed-in user. */
export const publicUser = (user: Pick<SessionUser, "id" | "username" | "role" | "permissions" | "stage" | "twoFactorEnabled">) => ({
  id: user.id,
  username: user.username,
  role: user.role,
  permissions: user.permissions,
  twoFactorEnabled: user.twoFactorEnabled,
  /** An admin requires two-factor sign-in and this user has none yet: they may only set it up. */
  mustSetUpTwoFactor: user.stage === "enroll",
  /** What every later answer's X-Access-Key must match for this to be current (auth/access-key.ts). */
  accessKey: accessKey(user),
});

/** Starts a session (its row written in one batch with the sign-in's audit entry) and sets its cookie. */
async function signIn(c: Context<AppEnv>, actor: Actor & { id: string }, how: { stage?: SessionStage; summary: string; also?: BatchItem<"sqlite">[] }) {
  const db = c.get("db");
  const stage = how.stage ?? "active";
  const session = await prepareSession(
    db,
    c.env.SESSION_SECRET,
    actor.id,
    { ip: clientIp(c.req.raw), userAgent: c.req.header("user-agent")?.slice(0, 255) ?? null },
    stage === "second-factor" ? { stage, ttlSeconds: SECOND_FACTOR_TTL_SECONDS } : { stage },
  );
  const entry = stage === "second-factor" ? [] : [audit(c, { action: "session.sign_in", kind: "session", id: actor.id, summary: how.summary }, { actor })];
  await db.batch([session.insert, ...entry, ...(how.also ?? [])]);
  setCookie(c, SESSION_COOKIE, session.token, { httpOnly: true, secure: true, sameSite: "Lax", path: "/", maxAge: session.ttlSeconds });
}

const waitMessage = (seconds: number) => {
  const minutes = Math.ceil(seconds / 60);
  return `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
};

/** Counts the attempt before anything is compared (auth/throttle.ts); 429 when over the limit. */
async function attempt(c: Context<AppEnv>, username: string) {
  const claim = await claimAttempt(c.get("db"), username, clientIp(c.req.raw));
  if (claim.attemptId === null) {
    throw new ApiError(429, waitMessage(claim.waitSeconds), undefined, { "Retry-After": String(claim.waitSeconds) });
  }
  return claim.attemptId;
}

/**
 * A refused sign-in step on record (docs/accounts-security.md "Audit log"): a wrong password or an unknown username,
 * a wrong second-factor code; and, when this failure is the one that locks sign-in, the lockout.
 * An unknown username is not written down: what was typed may be a password in the wrong field.
 */
async function recordRefusal(c: Context<AppEnv>, attemptId: number, actor: Actor, entry: { action: string; summary: string }) {
  const locks = lockStartedBy(attemptId);
  const minutes = THROTTLE_WINDOW_MS / 60_000;
  const whose = actor.id ? actor.username : "an unknown username";
  const lockout = (summary: string, onlyIf: SQL) => audit(c, { action: "session.locked_out", kind: "session", id: actor.id, summary }, { actor, onlyIf });
  await c
    .get("db")
    .batch([
      audit(c, { kind: "session", id: actor.id, ...entry }, { actor }),
      lockout(`Sign-in for ${whose} locked for ${minutes} minutes: ${MAX_FAILURES_PER_USERNAME} failed attempts`, locks.username),
      lockout(`Sign-in from this IP address locked for ${minutes} minutes: ${MAX_FAILURES_PER_IP} failed attempts`, locks.ip),
    ]);
}

const encoder = new TextEncoder();

/**
 * The first admin on a deployment with a SETUP_TOKEN secret needs it. Guesses count against the
 * sign-in throttle's per-IP limit (as the username "(first admin)"), and each refusal is audited.
 */
async function checkSetupToken(c: Context<AppEnv>, expected: string, username: string, typed: string | undefined) {
  const db = c.get("db");
  const attemptId = await attempt(c, "(first admin)");
  if (!constantTimeEqual(encoder.encode(typed ?? ""), encoder.encode(expected))) {
    await db.batch([
      audit(c, { action: "session.setup_refused", kind: "session", summary: `First admin "${username}" refused: ${typed ? "wrong" : "no"} setup token` }),
    ]);
    throw new ApiError(403, "Enter the setup token: the SETUP_TOKEN secret of this deployment", ["setupToken: The setup token is not right"]);
  }
  await forgetAttempt(db, attemptId);
}

const SIGN_IN_EXPIRED = "Your sign-in took too long or was replaced. Enter your username and password again.";

export const authRoutes = new Hono<AppEnv>()
  /** Whether the first admin is still to be created, and whether that takes the SETUP_TOKEN secret. */
  .get("/setup", async (c) => c.json({ needsSetup: (await countUsers(c.get("db"))) === 0, needsSetupToken: !!c.env.SETUP_TOKEN }, 200))

  .post("/register", validate("json", registerSchema), async (c) => {
    const { username, password, setupToken } = c.req.valid("json");
    const db = c.get("db");
    if ((await countUsers(db)) > 0) {
      throw new ApiError(403, "Registration is closed: an admin already exists. Ask an admin for an account.");
    }
    if (c.env.SETUP_TOKEN) await checkSetupToken(c, c.env.SETUP_TOKEN, username, setupToken);
    const user = await insertFirstAdmin(db, username, await hashPassword(password));
    if (!user) throw new ApiError(403, "Registration is closed: an admin already exists. Ask an admin for an account.");
    await signIn(c, user, { summary: "First admin account created" });
    return c.json(publicUser({ ...user, permissions: [], stage: "active", twoFactorEnabled: false }), 201);
  })

  /**
   * The password step. With two-factor sign-in on, the answer is `{ secondFactor: "required" }`
   * and a short-lived session that can only send its code (POST /api/login/second-factor). When an
   * admin requires two-factor sign-in and the user has none, the session may only set it up.
   */
  .post("/login", validate("json", loginSchema), async (c) => {
    const { username, password } = c.req.valid("json");
    const db = c.get("db");
    const attemptId = await attempt(c, username);
    const user = await findUserByUsername(db, username);
    // Unknown users cost a full hash too, so timing does not reveal which usernames exist.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    // A wrong password leaves its attempt counted as a failure.
    if (!user || !ok) {
      await recordRefusal(c, attemptId, user ? { id: user.id, username: user.username } : { id: null, username: "anonymous" }, {
        action: "session.sign_in_refused",
        summary: user ? "Wrong password" : "Unknown username (not recorded: it may be a mistyped password)",
      });
      throw new ApiError(401, "Invalid username or password");
    }
    // The password was right: not a failure. The username's earlier failures stay until the
    // whole sign-in succeeds, so a known password cannot reset the count of wrong codes.
    await forgetAttempt(db, attemptId);

    if (user.totpSecret !== null) {
      await signIn(c, user, { stage: "second-factor", summary: "" });
      return c.json({ secondFactor: "required" as const }, 200);
    }
    const stage = (await twoFactorRequired(db)) ? "enroll" : "active";
    await clearFailures(db, username);
    await signIn(c, user, { stage, summary: stage === "enroll" ? "Password; sent to set up two-factor sign-in" : "Password" });
    const permissions = (await listPermissions(db, user.id)).map((p) => p.feature);
    return c.json(publicUser({ ...user, permissions, stage, twoFactorEnabled: false }), 200);
  })

  /** The second step: a 6-digit code (each good once) or a one-time recovery code, throttled like passwords. */
  .post("/login/second-factor", validate("json", secondFactorSchema), async (c) => {
    const db = c.get("db");
    const token = getCookie(c, SESSION_COOKIE);
    const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
    const pending = sessionId ? await loadSecondFactorSession(db, sessionId) : undefined;
    if (!pending) throw new ApiError(401, SIGN_IN_EXPIRED);
    const state = await twoFactorState(db, pending.userId);
    if (!state?.totpSecret) throw new ApiError(401, SIGN_IN_EXPIRED);
    const actor = { id: pending.userId, username: state.username };
    const attemptId = await attempt(c, state.username);

    const check = await checkSecondFactor(db, c.env.TWO_FACTOR_KEY, pending.userId, state.totpSecret, c.req.valid("json").code);
    if (!check.ok) {
      await recordRefusal(c, attemptId, actor, { action: "session.second_factor_refused", summary: check.refusal });
      throw new ApiError(401, check.message);
    }
    const method = `Password + ${check.method}`;
    await Promise.all([forgetAttempt(db, attemptId), clearFailures(db, state.username)]);
    // The waiting session is replaced by a new one: a fresh id once fully signed in.
    await signIn(c, actor, { summary: method, also: [deleteSession(db, pending.id)] });
    const user = await findUserByUsername(db, state.username);
    if (!user) throw new ApiError(401, SIGN_IN_EXPIRED);
    const permissions = (await listPermissions(db, user.id)).map((p) => p.feature);
    return c.json(publicUser({ ...user, permissions, stage: "active", twoFactorEnabled: true }), 200);
  })

  .post("/logout", async (c) => {
    const db = c.get("db");
    const token = getCookie(c, SESSION_COOKIE);
    const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
    const user = c.get("user");
    if (sessionId) {
      await db.batch([
        deleteSession(db, sessionId),
        ...(user ? [audit(c, { action: "session.sign_out", kind: "session", id: user.id, summary: "Signed out" }, { ifChanged: true })] : []),
      ]);
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
    return c.json({ ok: true }, 200);
  })

  .get("/user", (c) => {
    const user = c.get("user");
    if (!user) throw new ApiError(401, "You are not signed in");
    return c.json(publicUser(user), 200);
  })

  /**
   * What limits the caller's view of the data (docs/product-rules.md "Who may do what"), so a
   * member's screens can say it: the media buyers (Stats, Offers), cards (Billing) and sparks
   * assigned to them. Admins see everything. Its own call, not part of /api/user: only the
   * screens that show it ask, and the session load stays one read.
   */
  .get("/user/scope", async (c) => {
    const user = c.get("user");
    if (!user) throw new ApiError(401, "You are not signed in");
    if (user.role === "admin") return c.json({ scoped: false as const }, 200);
    const db = c.get("db");
    const [buyers, cards, sparkRows] = await db.batch([
      listMediaBuyerAssignments(db, user.id),
      listVcnAssignments(db, user.id),
      listSparkAssignments(db, user.id),
    ]);
    return c.json(
      {
        scoped: true as const,
        mediaBuyers: buyers.map((b) => b.subid1),
        vcnNicknames: cards.map((v) => v.vcnNickname),
        sparks: sparkRows.map((s) => s.name),
      },
      200,
    );
  });
