import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../auth/password";
import {
  createSession,
  deleteSession,
  readSessionToken,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
} from "../auth/session";
import { claimAttempt, clearFailures, forgetAttempt } from "../auth/throttle";
import { countUsers, findUserByUsername, insertFirstAdmin, listPermissions } from "../db/queries/users";
import type { AppEnv, SessionUser } from "../env";
import { ApiError } from "../lib/errors";
import { clientIp } from "../lib/request";
import { validate } from "../lib/validate";
import { loginSchema, registerSchema } from "../schemas/auth";

/** What the client sees of the signed-in user. */
export const publicUser = (user: Pick<SessionUser, "id" | "username" | "role" | "permissions">) => ({
  id: user.id,
  username: user.username,
  role: user.role,
  permissions: user.permissions,
});

async function signIn(c: Context<AppEnv>, userId: string) {
  const token = await createSession(c.get("db"), c.env.SESSION_SECRET, userId, {
    ip: clientIp(c.req.raw),
    userAgent: c.req.header("user-agent")?.slice(0, 255) ?? null,
  });
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
  });
}

const waitMessage = (seconds: number) => {
  const minutes = Math.ceil(seconds / 60);
  return `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
};

export const authRoutes = new Hono<AppEnv>()
  .get("/setup", async (c) => c.json({ needsSetup: (await countUsers(c.get("db"))) === 0 }, 200))

  .post("/register", validate("json", registerSchema), async (c) => {
    const { username, password } = c.req.valid("json");
    const db = c.get("db");
    if ((await countUsers(db)) > 0) {
      throw new ApiError(403, "Registration is closed: an admin already exists. Ask an admin for an account.");
    }
    const user = await insertFirstAdmin(db, username, await hashPassword(password));
    if (!user) throw new ApiError(403, "Registration is closed: an admin already exists. Ask an admin for an account.");
    await signIn(c, user.id);
    return c.json(publicUser({ ...user, permissions: [] }), 201);
  })

  .post("/login", validate("json", loginSchema), async (c) => {
    const { username, password } = c.req.valid("json");
    const db = c.get("db");
    const ip = clientIp(c.req.raw);
    const claim = await claimAttempt(db, username, ip);
    if (claim.attemptId === null) {
      throw new ApiError(429, waitMessage(claim.waitSeconds), undefined, { "Retry-After": String(claim.waitSeconds) });
    }
    const user = await findUserByUsername(db, username);
    // Unknown users cost a full hash too, so timing does not reveal which usernames exist.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    // A wrong password leaves its attempt counted as a failure.
    if (!user || !ok) throw new ApiError(401, "Invalid username or password");
    await forgetAttempt(db, claim.attemptId);
    await clearFailures(db, username);
    await signIn(c, user.id);
    const permissions = (await listPermissions(db, user.id)).map((p) => p.feature);
    return c.json(publicUser({ ...user, permissions }), 200);
  })

  .post("/logout", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    const sessionId = token ? await readSessionToken(c.env.SESSION_SECRET, token) : null;
    if (sessionId) await deleteSession(c.get("db"), sessionId);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
    return c.json({ ok: true }, 200);
  })

  .get("/user", (c) => {
    const user = c.get("user");
    if (!user) throw new ApiError(401, "You are not signed in");
    return c.json(publicUser(user), 200);
  });
