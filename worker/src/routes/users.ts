import { Hono } from "hono";
import { asc, ne, sql } from "drizzle-orm";
import { hashPassword } from "../auth/password";
import {
  deleteUserKeepingAnAdmin,
  getUser,
  insertUser,
  listMediaBuyerAssignments,
  listPermissions,
  listSparkAssignments,
  listUsers,
  listVcnAssignments,
  replaceMediaBuyerAssignments,
  replacePermissions,
  replaceSparkAssignments,
  replaceVcnAssignments,
} from "../db/queries/users";
import { cakeStats, sparks, transactions } from "../db/schema";
import type { AppEnv, Db } from "../env";
import { ApiError, badRequest, conflict, notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { userIdParam } from "../schemas/common";
import {
  createUserSchema,
  mediaBuyerAssignmentsSchema,
  permissionsSchema,
  sparkAssignmentsSchema,
  vcnAssignmentsSchema,
} from "../schemas/users";

const userJson = (u: { id: string; username: string; role: "user" | "admin"; createdAt: number }) => ({
  ...u,
  createdAt: iso(u.createdAt),
});

/** Assignments and permissions only mean something for members: admins see everything. */
async function requireUser(db: Db, id: string) {
  const user = await getUser(db, id);
  if (!user) throw notFound("User not found");
  return user;
}

async function requireMember(db: Db, id: string) {
  const user = await requireUser(db, id);
  if (user.role === "admin") throw badRequest("Admins always have full access; nothing to assign");
  return user;
}

export const userRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listUsers(c.get("db"))).map(userJson), 200))

  .post("/", validate("json", createUserSchema), async (c) => {
    const { username, password, role } = c.req.valid("json");
    const user = await insertUser(c.get("db"), { username, role, passwordHash: await hashPassword(password) });
    if (!user) throw conflict(`The username "${username}" is already taken`);
    return c.json(userJson(user), 201);
  })

  /** Choices for the assignment dialogs: card nicknames, media buyers and sparks that exist. */
  .get("/assignment-options", async (c) => {
    const db = c.get("db");
    const [vcns, buyers, sparkRows] = await db.batch([
      db
        .selectDistinct({ v: transactions.vcnNickname })
        .from(transactions)
        .where(sql`${transactions.vcnNickname} is not null and ${transactions.vcnNickname} <> ''`)
        .orderBy(asc(transactions.vcnNickname)),
      db.selectDistinct({ v: cakeStats.subid1 }).from(cakeStats).where(ne(cakeStats.subid1, "")).orderBy(asc(cakeStats.subid1)),
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

  .delete("/:id", validate("param", userIdParam), async (c) => {
    const { id } = c.req.valid("param");
    if (id === c.get("user")?.id) throw badRequest("You cannot delete your own account");
    const db = c.get("db");
    const outcome = await deleteUserKeepingAnAdmin(db, id);
    if (outcome === "missing") throw notFound("User not found");
    if (outcome === "last-admin") throw conflict("You cannot delete the last admin");
    // The user's sessions go with it (sessions.user_id cascades), so it is signed out everywhere.
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
    await requireMember(db, id);
    await replacePermissions(db, id, c.req.valid("json").features);
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
    await requireMember(db, id);
    await replaceVcnAssignments(db, id, c.req.valid("json").vcnNicknames);
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
    await requireMember(db, id);
    await replaceMediaBuyerAssignments(db, id, c.req.valid("json").subid1s);
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
    await requireMember(db, id);
    const unknown = await replaceSparkAssignments(db, id, c.req.valid("json").sparkIds);
    if (unknown.length) throw new ApiError(400, "Some sparks do not exist", unknown.map((s) => `sparkIds: no spark ${s}`));
    return c.json(await listSparkAssignments(db, id), 200);
  });
