import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../env";
import { isUniqueViolation } from "../../lib/db-errors";
import { sparks, userSparkAssignments } from "../schema";

const columns = { id: sparks.id, name: sparks.name, code: sparks.code, sparkId: sparks.sparkId, createdAt: sparks.createdAt };

const SPARK_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SPARK_ID_LENGTH = 12;

/**
 * A random spark id: 12 lowercase letters and digits (about 62 bits), short enough to travel as an
 * affiliate sub-id. Bytes from 252 up are skipped so every character is equally likely.
 */
export function randomSparkId(): string {
  let id = "";
  while (id.length < SPARK_ID_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(SPARK_ID_LENGTH * 2))) {
      if (byte < 252 && id.length < SPARK_ID_LENGTH) id += SPARK_ID_ALPHABET[byte % 36];
    }
  }
  return id;
}

const assignedTo = (userId: string) =>
  sql`exists (select 1 from ${userSparkAssignments} where ${userSparkAssignments.sparkId} = ${sparks.id} and ${userSparkAssignments.userId} = ${userId})`;

/** All sparks (scope null, admins) or those assigned to one member; newest first. */
export const listSparks = (db: Db, scopeUserId: string | null) =>
  db
    .select(columns)
    .from(sparks)
    .where(scopeUserId === null ? undefined : assignedTo(scopeUserId))
    .orderBy(desc(sparks.createdAt), desc(sparks.id));

export const SPARK_ID_ATTEMPTS = 5;

export interface CreateSparkOptions {
  /** Makes the random spark id (tests pin it). */
  generateId?: () => string;
  /** Statements written in the same batch, given SQL naming the new spark's integer id (its audit entry). */
  alongside?: (newSparkId: SQL) => BatchItem<"sqlite">[];
}

/**
 * Creates a spark with a fresh sparkId, assigned to `assignTo` when given, in one atomic batch. The
 * unique index decides whether an id is free: on a collision the batch rolls back whole and the
 * next random id is tried.
 */
export async function createSpark(
  db: Db,
  values: { name: string; code: string },
  assignTo: string | null,
  { generateId = randomSparkId, alongside = () => [] }: CreateSparkOptions = {},
) {
  for (let attempt = 1; ; attempt++) {
    const sparkId = generateId();
    const now = Date.now();
    // The new spark's integer id is only known inside the batch: found by its unique sparkId.
    const newId = sql`(select ${sparks.id} from ${sparks} where ${sparks.sparkId} = ${sparkId})`;
    try {
      const [created] = await db.batch([
        db
          .insert(sparks)
          .values({ ...values, sparkId, createdAt: now })
          .returning(columns),
        ...(assignTo === null
          ? []
          : [
              db.insert(userSparkAssignments).select(
                db
                  .select({
                    id: sql<number>`null`.as("id"),
                    userId: sql<string>`${assignTo}`.as("user_id"),
                    sparkId: sparks.id,
                    createdAt: sql<number>`${now}`.as("created_at"),
                  })
                  .from(sparks)
                  .where(eq(sparks.sparkId, sparkId)),
              ),
            ]),
        ...alongside(newId),
      ]);
      return created[0]!;
    } catch (err) {
      if (attempt >= SPARK_ID_ATTEMPTS || !isUniqueViolation(err, "sparks.spark_id")) throw err;
    }
  }
}

/** A spark the caller may see: all for admins (scope null), a member's assigned ones. */
export const getSpark = (db: Db, id: number, scopeUserId: string | null) =>
  db
    .select(columns)
    .from(sparks)
    .where(scopeUserId === null ? eq(sparks.id, id) : and(eq(sparks.id, id), assignedTo(scopeUserId)))
    .get();

/** Deletes a spark, unrun; a member (scope) only one assigned to them. No row back: no such spark in scope. */
export const deleteSpark = (db: Db, id: number, scopeUserId: string | null) =>
  db
    .delete(sparks)
    .where(scopeUserId === null ? eq(sparks.id, id) : and(eq(sparks.id, id), assignedTo(scopeUserId)))
    .returning({ id: sparks.id });
