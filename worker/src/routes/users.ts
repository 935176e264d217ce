import { asc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { audit, listChange, named, unlessUnchanged } from "../audit/record";
import { hashPassword } from "../auth/password";
import { requireRecentReauth } from "../auth/reauth";
import { deleteOtherSessions } from "../auth/session";
import { twoFactorConfigured } from "../auth/two-factor";
import { disableTwoFactor, setTwoFactorRequired, twoFactorRequired } from "../db/queries/two-factor";
import {
  deleteUserKeepingAnAdmin,
  getUser,
  insertUser,
  knownMediaBuyers,
  listMediaBuyerAssignments,
  listPermissions,
  listSparkAssignments,
  listUsers,
  listVcnAssignments,
  replaceMediaBuyerAssignments,
  replacePermissions,
  replaceSparkAssignments,
  replaceVcnAssignments,
  setRoleKeepingAnAdmin,
  sparkNames,
} from "../db/queries/users";
import { sparks, transactions, users } from "../db/schema";
import type { AppEnv, Db } from "../env";
import { ApiError, badRequest, conflict, notFound } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { userIdParam } from "../schemas/common";
import {
  createUserSchema,
  mediaBuyerAssignmentsSchema,
  permissionsSchema,
  resetPasswordSchema,
  roleSchema,
  sparkAssignmentsSchema,
  twoFactorRequirementSchema,
  vcnAssignmentsSchema,
} from "../schemas/users";

const userJson = <T extends { createdAt: number }>({ createdAt, ...rest }: T) => ({ ...rest, createdAt: iso(createdAt) });

/** Assignments and permissions only mean something for members: admins see everything. */
async function requireUser(db: Db, id: string) {
  const user = await getUser(db, id);
  if (!user) throw notFound("User not found");
  return user;
}

/** Admin actions on someone else's account: your own password and second factor are on your Account page. */
function notYourself(callerId: string | undefined, id: string, what: string) {
  if (callerId === id) throw badRequest(`Change your own ${what} on your Account page`);
}

async function requireMember(db: Db, id: string) {
  const user = await requireUser(db, id);
  if (user.role === "admin") throw badRequest("Admins always have full access; nothing to assign");
  return user;
}

export const userRoutes = new Hono<AppEnv>()
  .get("/", async (c) =>
    c.json(
      (await listUsers(c.get("db"))).map(({ twoFactorEnabledAt, ...row }) => ({ ...userJson(row), twoFactorEnabledAt: isoOrNull(twoFactorEnabledAt) })),
      200,
    ),
  )

  .post("/", validate("json", createUserSchema), async (c) => {
    const db = c.get("db");
    const { username, password, role } = c.req.valid("json");
    const id = crypto.randomUUID();
    const [[user]] = await db.batch([
      insertUser(db, { id, username, role, passwordHash: await hashPassword(password) }),
      audit(c, { action: "user.create", kind: "user", id, summary: `${username} (${role})` }, { ifChanged: true }),
    ]);
    if (!user) throw conflict(`The username "${username}" is already taken`);
    return c.json(userJson(user), 201);
  })

  /** Choices for the assignment dialogs (and the campaign dialog's media buyer): card nicknames, media buyers and sparks that exist. */
  .get("/assignment-options", async (c) => {
    const db = c.get("db");
    const [vcns, buyers, sparkRows] = await db.batch([
      db
        .selectDistinct({ v: transactions.vcnNickname })
        .from(transactions)
        .where(sql`${transactions.vcnNickname} is not null and ${transactions.vcnNickname} <> ''`)
        .orderBy(asc(transactions.vcnNickname)),
      knownMediaBuyers(db),
      db.select({ id: sparks.id, name: sparks.name, sparkId: sparks.sparkId }).from(sparks).orderBy(asc(sparks.name)),
    ]);
    return c.json(
      {
        vcnNicknames: vcns.map((r) => r.v).filter((v): v is string => v !== null),
        mediaBuyers: buyers.map((r) => r.v),
        sparks: sparkRows,
      },
      200,
    );
  })

  /** Whether everyone must use two-factor sign-in, and whether this server can do it at all. */
  .get("/two-factor-requirement", async (c) =>
    c.json({ required: await twoFactorRequired(c.get("db")), configured: twoFactorConfigured(c.env.TWO_FACTOR_KEY) }, 200),
  )
  /** Users without two-factor sign-in are sent to set it up at their next sign-in. */
  .put("/two-factor-requirement", validate("json", twoFactorRequirementSchema), async (c) => {
    const db = c.get("db");
    const { required } = c.req.valid("json");
    if (required && !twoFactorConfigured(c.env.TWO_FACTOR_KEY)) {
      throw new ApiError(409, "Two-factor sign-in is not set up on this server (TWO_FACTOR_KEY is missing): nobody could turn it on");
    }
    const before = await twoFactorRequired(db);
    if (before !== required) {
      await db.batch([
        setTwoFactorRequired(db, required),
        audit(c, {
          action: "setting.update",
          kind: "setting",
          id: "require_two_factor",
          summary: `Require two-factor sign-in for everyone: ${before ? "on" : "off"} → ${required ? "on" : "off"}`,
        }),
      ]);
    }
    return c.json({ required, configured: true }, 200);
  })

  .delete("/:id", validate("param", userIdParam), async (c) => {
    const { id } = c.req.valid("param");
    if (id === c.get("user")?.id) throw badRequest("You cannot delete your own account");
    const db = c.get("db");
    const target = await getUser(db, id);
    const entry = audit(
      c,
      { action: "user.delete", kind: "user", id, summary: `${target?.username ?? id} (${target?.role ?? "unknown role"})` },
      { ifChanged: true },
    );
    const outcome = await deleteUserKeepingAnAdmin(db, id, [entry.getSQL()]);
    if (outcome === "missing") throw notFound("User not found");
    if (outcome === "last-admin") throw conflict("You cannot delete the last admin");
    // The user's sessions go with it (sessions.user_id cascades), so it is signed out everywhere.
    return c.json({ ok: true }, 200);
  })

  /** A role change applies on the user's very next request (the session reads the role each time). */
  .put("/:id/role", validate("param", userIdParam), validate("json", roleSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { role } = c.req.valid("json");
    notYourself(c.get("user")?.id, id, "role: ask another admin");
    requireRecentReauth(c.get("user"));
    const target = await requireUser(db, id);
    if (target.role === role) return c.json(userJson(target), 200);
    const entry = audit(c, { action: "user.role_change", kind: "user", id, summary: `${target.username}: ${target.role} → ${role}` }, { ifChanged: true });
    const outcome = await setRoleKeepingAnAdmin(db, id, role, [entry.getSQL()]);
    if (outcome === "missing") throw notFound("User not found");
    if (outcome === "last-admin") throw conflict("You cannot demote the last admin: make another user an admin first");
    return c.json(userJson({ ...target, role }), 200);
  })

  /** An admin sets a new password for someone; every session of theirs is signed out. */
  .post("/:id/password", validate("param", userIdParam), validate("json", resetPasswordSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    notYourself(c.get("user")?.id, id, "password");
    requireRecentReauth(c.get("user"));
    const target = await requireUser(db, id);
    await db.batch([
      db
        .update(users)
        .set({ passwordHash: await hashPassword(c.req.valid("json").password) })
        .where(eq(users.id, id)),
      deleteOtherSessions(db, id, null),
      audit(c, { action: "user.password_reset", kind: "user", id, summary: `New password set for ${target.username}; signed out everywhere` }),
    ]);
    return c.json({ ok: true }, 200);
  })

  /**
   * For a lost phone: two-factor sign-in off and the recovery codes gone; the password still works.
   * Every session of theirs is signed out, as whoever has the phone may be signed in.
   */
  .post("/:id/two-factor/reset", validate("param", userIdParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    notYourself(c.get("user")?.id, id, "two-factor sign-in");
    requireRecentReauth(c.get("user"));
    const target = await requireUser(db, id);
    await db.batch([
      ...disableTwoFactor(db, id),
      deleteOtherSessions(db, id, null),
      audit(c, { action: "user.2fa_reset", kind: "user", id, summary: `Two-factor sign-in reset for ${target.username}; signed out everywhere` }),
    ]);
    return c.json({ ok: true }, 200);
  })

  .get("/:id/permissions", validate("param", userIdParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    await requireUser(db, id);
    return c.json(await listPermissions(db, id), 200);
  })
  .post("/:id/permissions", validate("param", userIdParam), validate("json", permissionsSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const target = await requireMember(db, id);
    const { features } = c.req.valid("json");
    const before = (await listPermissions(db, id)).map((p) => p.feature);
    await db.batch([
      ...replacePermissions(db, id, features),
      ...unlessUnchanged(listChange(before, features), (change) =>
        audit(c, { action: "user.permissions", kind: "user", id, summary: `${target.username}: ${change}` }),
      ),
    ]);
    return c.json(await listPermissions(db, id), 200);
  })

  .get("/:id/vcn-assignments", validate("param", userIdParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    await requireUser(db, id);
    return c.json(await listVcnAssignments(db, id), 200);
  })
  .post("/:id/vcn-assignments", validate("param", userIdParam), validate("json", vcnAssignmentsSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const target = await requireMember(db, id);
    const { vcnNicknames } = c.req.valid("json");
    const before = (await listVcnAssignments(db, id)).map((v) => v.vcnNickname);
    await db.batch([
      ...replaceVcnAssignments(db, id, vcnNicknames),
      ...unlessUnchanged(listChange(before, vcnNicknames), (change) =>
        audit(c, { action: "user.vcn_assignments", kind: "user", id, summary: `${target.username}: ${change}` }),
      ),
    ]);
    return c.json(await listVcnAssignments(db, id), 200);
  })

  .get("/:id/media-buyers", validate("param", userIdParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    await requireUser(db, id);
    return c.json(await listMediaBuyerAssignments(db, id), 200);
  })
  .post("/:id/media-buyers", validate("param", userIdParam), validate("json", mediaBuyerAssignmentsSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const target = await requireMember(db, id);
    const { subid1s } = c.req.valid("json");
    const before = (await listMediaBuyerAssignments(db, id)).map((v) => v.subid1);
    await db.batch([
      ...replaceMediaBuyerAssignments(db, id, subid1s),
      ...unlessUnchanged(listChange(before, subid1s), (change) =>
        audit(c, { action: "user.media_buyers", kind: "user", id, summary: `${target.username}: ${change}` }),
      ),
    ]);
    return c.json(await listMediaBuyerAssignments(db, id), 200);
  })

  .get("/:id/spark-assignments", validate("param", userIdParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    await requireUser(db, id);
    return c.json(await listSparkAssignments(db, id), 200);
  })
  .post("/:id/spark-assignments", validate("param", userIdParam), validate("json", sparkAssignmentsSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const target = await requireMember(db, id);
    const { sparkIds } = c.req.valid("json");
    const names = await sparkNames(db, sparkIds);
    const unknown = sparkIds.filter((sparkId) => !names.has(sparkId));
    if (unknown.length)
      throw new ApiError(
        400,
        "Some sparks do not exist",
        unknown.map((s) => `sparkIds: no spark ${s}`),
      );
    // Sparks by name with their id ("Hook A (#3)"), as every summary names what it points at.
    const before = (await listSparkAssignments(db, id)).map((s) => named(s.name, s.sparkId));
    const after = sparkIds.map((sparkId) => named(names.get(sparkId), sparkId));
    await db.batch([
      ...replaceSparkAssignments(db, id, sparkIds),
      ...unlessUnchanged(listChange(before, after), (change) =>
        audit(c, { action: "user.spark_assignments", kind: "user", id, summary: `${target.username}: sparks ${change}` }),
      ),
    ]);
    return c.json(await listSparkAssignments(db, id), 200);
  });
