import { asc, count, eq, inArray, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import { union } from "drizzle-orm/sqlite-core";
import { rawBatch } from "../raw-batch";
import {
  cakeAttributedDaily,
  campaigns,
  recoveryCodes,
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
const listColumns = {
  ...publicColumns,
  twoFactorEnabled: sql<number>`${users.totpSecret} is not null`.mapWith((v) => v === 1),
  twoFactorEnabledAt: sql<number | null>`case when ${users.totpSecret} is not null then ${users.totpEnabledAt} end`,
  // Table-qualified by hand: inside a select, Drizzle writes columns unqualified ("id" would be the code's).
  recoveryCodesLeft: sql<number>`(select count(*) from ${recoveryCodes} rc where rc.user_id = "users"."id" and rc.used_at is null)`,
};

export const countUsers = async (db: Db) => (await db.select({ n: count() }).from(users).get())?.n ?? 0;

export const findUserByUsername = (db: Db, username: string) =>
  db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`)
    .get();

export const listUsers = (db: Db) => db.select(listColumns).from(users).orderBy(users.createdAt, users.username);

export const getUser = (db: Db, id: string) => db.select(publicColumns).from(users).where(eq(users.id, id)).get();

/**
 * Inserts a user, unrun (to batch with its audit entry); no row back when the username is taken
 * (the unique index decides, not a pre-check).
 */
export const insertUser = (db: Db, values: { id: string; username: string; passwordHash: string; role: Role }) =>
  db
    .insert(users)
    .values({ createdAt: Date.now(), ...values })
    .onConflictDoNothing()
    .returning(publicColumns);

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

/** Guards that keep at least one admin: the statement changes nothing when it would remove the last. */
const keepsAnAdmin = (id: string) => sql`(role <> 'admin' or (select count(*) from ${users} where role = 'admin' and id <> ${id}) > 0)`;

/**
 * Deletes a user unless it would remove the last admin; the guard and the delete are one
 * statement. `alongside` (the audit entry) runs in the same batch, after it.
 */
export async function deleteUserKeepingAnAdmin(db: Db, id: string, alongside: SQL[] = []): Promise<"deleted" | "last-admin" | "missing"> {
  // `returning` rather than meta.changes: D1 counts the cascaded session rows as changes too.
  const [deleted] = await rawBatch(db, [sql`delete from ${users} where id = ${id} and ${keepsAnAdmin(id)} returning id`, ...alongside]);
  if (deleted?.results.length === 1) return "deleted";
  return (await getUser(db, id)) ? "last-admin" : "missing";
}

/** Changes a role unless it would demote the last admin, in one statement (and `alongside` in the same batch). */
export async function setRoleKeepingAnAdmin(db: Db, id: string, role: Role, alongside: SQL[] = []): Promise<"changed" | "last-admin" | "missing"> {
  const [changed] = await rawBatch(db, [
    sql`update ${users} set role = ${role} where id = ${id} and (${role} = 'admin' or ${keepsAnAdmin(id)}) returning id`,
    ...alongside,
  ]);
  if (changed?.results.length === 1) return "changed";
  return (await getUser(db, id)) ? "last-admin" : "missing";
}

export const listPermissions = (db: Db, userId: string) =>
  db.select({ feature: userPermissions.feature }).from(userPermissions).where(eq(userPermissions.userId, userId));

// The replace* statements are returned unrun: a route batches them with the audit entry.

export const replacePermissions = (db: Db, userId: string, features: Feature[]) =>
  [
    db.delete(userPermissions).where(eq(userPermissions.userId, userId)),
    ...features.map((feature) => db.insert(userPermissions).values({ userId, feature })),
  ] as const;

export const listVcnAssignments = (db: Db, userId: string) =>
  db
    .select({ vcnNickname: userVcnAssignments.vcnNickname })
    .from(userVcnAssignments)
    .where(eq(userVcnAssignments.userId, userId))
    .orderBy(userVcnAssignments.vcnNickname);

export const replaceVcnAssignments = (db: Db, userId: string, nicknames: string[]) =>
  [
    db.delete(userVcnAssignments).where(eq(userVcnAssignments.userId, userId)),
    ...nicknames.map((vcnNickname) => db.insert(userVcnAssignments).values({ userId, vcnNickname })),
  ] as const;

export const listMediaBuyerAssignments = (db: Db, userId: string) =>
  db
    .select({ subid1: userSubid1Assignments.subid1 })
    .from(userSubid1Assignments)
    .where(eq(userSubid1Assignments.userId, userId))
    .orderBy(userSubid1Assignments.subid1);

/**
 * Every media buyer (CAKE sub1 value) known so far: seen in CAKE's stats (their rollup, which
 * keeps every day: retention deletes the per-click rows of archived days), assigned to a member,
 * or set on a campaign before its first conversion. The choices wherever a media buyer is picked.
 */
export const knownMediaBuyers = (db: Db) =>
  union(
    db.select({ v: cakeAttributedDaily.subid1 }).from(cakeAttributedDaily).where(ne(cakeAttributedDaily.subid1, "")),
    db.select({ v: userSubid1Assignments.subid1 }).from(userSubid1Assignments).where(ne(userSubid1Assignments.subid1, "")),
    db
      .select({ v: sql<string>`${campaigns.mediaBuyer}`.as("v") })
      .from(campaigns)
      .where(isNotNull(campaigns.mediaBuyer)),
  ).orderBy(asc(sql`v`));

export const replaceMediaBuyerAssignments = (db: Db, userId: string, subid1s: string[]) =>
  [
    db.delete(userSubid1Assignments).where(eq(userSubid1Assignments.userId, userId)),
    ...subid1s.map((subid1) => db.insert(userSubid1Assignments).values({ userId, subid1 })),
  ] as const;

export const listSparkAssignments = (db: Db, userId: string) =>
  db
    .select({ sparkId: sparks.id, name: sparks.name, sparkCode: sparks.sparkId })
    .from(userSparkAssignments)
    .innerJoin(sparks, eq(sparks.id, userSparkAssignments.sparkId))
    .where(eq(userSparkAssignments.userId, userId))
    .orderBy(sparks.name);

/** The names of the sparks with these ids; an id that names no spark is missing from the map. */
export async function sparkNames(db: Db, sparkIds: number[]): Promise<Map<number, string>> {
  if (!sparkIds.length) return new Map();
  const known = await db.select({ id: sparks.id, name: sparks.name }).from(sparks).where(inArray(sparks.id, sparkIds));
  return new Map(known.map((s) => [s.id, s.name]));
}

export const replaceSparkAssignments = (db: Db, userId: string, sparkIds: number[]) =>
  [
    db.delete(userSparkAssignments).where(eq(userSparkAssignments.userId, userId)),
    ...sparkIds.map((sparkId) => db.insert(userSparkAssignments).values({ userId, sparkId })),
  ] as const;
