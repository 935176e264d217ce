import { count, eq, inArray, sql } from "drizzle-orm";
import {
  sparks,
  userPermissions,
  users,
  userSparkAssignments,
  userSubid1Assignments,
  userVcnAssignments,
  type Feature,
  type Role,
} from "../schema";
import type { Db } from "../../env";

const publicColumns = { id: users.id, username: users.username, role: users.role, createdAt: users.createdAt };

export const countUsers = async (db: Db) => (await db.select({ n: count() }).from(users).get())?.n ?? 0;

export const findUserByUsername = (db: Db, username: string) =>
  db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`)
    .get();

export const listUsers = (db: Db) => db.select(publicColumns).from(users).orderBy(users.createdAt, users.username);

export const getUser = (db: Db, id: string) => db.select(publicColumns).from(users).where(eq(users.id, id)).get();

/** Inserts a user; returns null when the username is taken (the unique index decides, not a pre-check). */
export async function insertUser(db: Db, values: { username: string; passwordHash: string; role: Role }) {
  const row = await db
    .insert(users)
    .values({ id: crypto.randomUUID(), createdAt: Date.now(), ...values })
    .onConflictDoNothing()
    .returning(publicColumns)
    .get();
  return row ?? null;
}

/**
 * The first admin, only while there are no users: one statement, so two racing registrations
 * cannot both succeed.
 */
export async function insertFirstAdmin(db: Db, username: string, passwordHash: string) {
  const id = crypto.randomUUID();
  const now = Date.now();
  const inserted = await db.all<{ id: string }>(
    sql`insert into ${users} (id, username, password_hash, role, created_at)
        select ${id}, ${username}, ${passwordHash}, 'admin', ${now}
        where not exists (select 1 from ${users})
        returning id`,
  );
  return inserted.length === 1 ? { id, username, role: "admin" as const, createdAt: now } : null;
}

/** Deletes a user unless it would remove the last admin. The guard and the delete are one statement. */
export async function deleteUserKeepingAnAdmin(db: Db, id: string): Promise<"deleted" | "last-admin" | "missing"> {
  // `returning` rather than meta.changes: D1 counts the cascaded session rows as changes too.
  const deleted = await db.all<{ id: string }>(
    sql`delete from ${users} where id = ${id}
        and (role <> 'admin' or (select count(*) from ${users} where role = 'admin' and id <> ${id}) > 0)
        returning id`,
  );
  if (deleted.length === 1) return "deleted";
  return (await getUser(db, id)) ? "last-admin" : "missing";
}

export const listPermissions = (db: Db, userId: string) =>
  db.select({ feature: userPermissions.feature }).from(userPermissions).where(eq(userPermissions.userId, userId));

export const replacePermissions = (db: Db, userId: string, features: Feature[]) =>
  db.batch([
    db.delete(userPermissions).where(eq(userPermissions.userId, userId)),
    ...features.map((feature) => db.insert(userPermissions).values({ userId, feature })),
  ]);

export const listVcnAssignments = (db: Db, userId: string) =>
  db
    .select({ vcnNickname: userVcnAssignments.vcnNickname })
    .from(userVcnAssignments)
    .where(eq(userVcnAssignments.userId, userId))
    .orderBy(userVcnAssignments.vcnNickname);

export const replaceVcnAssignments = (db: Db, userId: string, nicknames: string[]) =>
  db.batch([
    db.delete(userVcnAssignments).where(eq(userVcnAssignments.userId, userId)),
    ...nicknames.map((vcnNickname) => db.insert(userVcnAssignments).values({ userId, vcnNickname })),
  ]);

export const listMediaBuyerAssignments = (db: Db, userId: string) =>
  db
    .select({ subid1: userSubid1Assignments.subid1 })
    .from(userSubid1Assignments)
    .where(eq(userSubid1Assignments.userId, userId))
    .orderBy(userSubid1Assignments.subid1);

export const replaceMediaBuyerAssignments = (db: Db, userId: string, subid1s: string[]) =>
  db.batch([
    db.delete(userSubid1Assignments).where(eq(userSubid1Assignments.userId, userId)),
    ...subid1s.map((subid1) => db.insert(userSubid1Assignments).values({ userId, subid1 })),
  ]);

export const listSparkAssignments = (db: Db, userId: string) =>
  db
    .select({ sparkId: sparks.id, name: sparks.name, sparkCode: sparks.sparkId })
    .from(userSparkAssignments)
    .innerJoin(sparks, eq(sparks.id, userSparkAssignments.sparkId))
    .where(eq(userSparkAssignments.userId, userId))
    .orderBy(sparks.name);

/** Replaces a user's sparks; returns the ids that name no spark (nothing is written then). */
export async function replaceSparkAssignments(db: Db, userId: string, sparkIds: number[]): Promise<number[]> {
  if (sparkIds.length) {
    const known = await db.select({ id: sparks.id }).from(sparks).where(inArray(sparks.id, sparkIds));
    const knownIds = new Set(known.map((s) => s.id));
    const unknown = sparkIds.filter((id) => !knownIds.has(id));
    if (unknown.length) return unknown;
  }
  await db.batch([
    db.delete(userSparkAssignments).where(eq(userSparkAssignments.userId, userId)),
    ...sparkIds.map((sparkId) => db.insert(userSparkAssignments).values({ userId, sparkId })),
  ]);
  return [];
}
