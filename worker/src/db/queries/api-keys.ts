import { and, eq, sql } from "drizzle-orm";
import { apiKeys, users } from "../schema";
import type { Db } from "../../env";

/** Keys a user may see: their own, or (`userId` undefined) everyone's, newest first. */
export const listApiKeys = (db: Db, userId?: string) =>
  db
    .select({
      id: apiKeys.id,
      userId: apiKeys.userId,
      username: users.username,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      scopes: apiKeys.scopes,
      createdAt: apiKeys.createdAt,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
      lastUsedIp: apiKeys.lastUsedIp,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(sql`${apiKeys.revokedAt} is null`, userId === undefined ? undefined : eq(apiKeys.userId, userId)))
    .orderBy(sql`${apiKeys.createdAt} desc`, sql`${apiKeys.id} desc`);

/** A key still in force (not revoked), with its owner's name, for revoking it. */
export const activeApiKey = (db: Db, id: number) =>
  db
    .select({ id: apiKeys.id, userId: apiKeys.userId, name: apiKeys.name, prefix: apiKeys.prefix, username: users.username })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.id, id), sql`${apiKeys.revokedAt} is null`))
    .get();
