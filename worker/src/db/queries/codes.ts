import { desc, lt, sql } from "drizzle-orm";
import { verificationCodes } from "../schema";
import type { Db } from "../../env";

export type NewCode = typeof verificationCodes.$inferInsert;

/** Stores a code; false when a message with the same Message-ID is already stored. */
export async function insertCode(db: Db, row: NewCode): Promise<boolean> {
  // The unique index on message_id settles concurrent deliveries of one message inside D1,
  // so a duplicate is a no-op however many arrive at once. NULL ids never conflict.
  const inserted = await db
    .insert(verificationCodes)
    .values(row)
    .onConflictDoNothing({ target: verificationCodes.messageId })
    .returning({ id: verificationCodes.id });
  return inserted.length > 0;
}

export interface CodesVersion {
  total: number;
  lastId: number;
  lastExtractedAt: number;
}

/**
 * What identifies the list's state, from indexes only (the rowid b-tree and the smallest index for
 * the count), so answering "unchanged" never reads the rows. Codes are only inserted and deleted:
 * an insert raises the highest id, a deletion lowers the count. SQLite reuses the highest id once
 * its row is deleted, so the extraction time of the newest row tells a reused id apart.
 */
const versionQuery = (db: Db) =>
  db
    .select({
      total: sql<number>`count(*)`,
      lastId: sql<number>`coalesce(max(${verificationCodes.id}), 0)`,
      lastExtractedAt: sql<number>`coalesce((select ${verificationCodes.extractedAt} from ${verificationCodes} order by ${verificationCodes.id} desc limit 1), 0)`,
    })
    .from(verificationCodes);

const EMPTY: CodesVersion = { total: 0, lastId: 0, lastExtractedAt: 0 };

export async function codesVersion(db: Db): Promise<CodesVersion> {
  const [row] = await versionQuery(db);
  return row ?? EMPTY;
}

/** The newest codes first (by the time the message was received). */
const recentQuery = (db: Db, limit: number) =>
  db
    .select({
      id: verificationCodes.id,
      code: verificationCodes.code,
      subject: verificationCodes.subject,
      sender: verificationCodes.sender,
      receivedAt: verificationCodes.receivedAt,
      extractedAt: verificationCodes.extractedAt,
    })
    .from(verificationCodes)
    .orderBy(desc(verificationCodes.receivedAt), desc(verificationCodes.id))
    .limit(limit);

/** The newest codes and the version they belong to, read in one batch (one D1 transaction). */
export async function codesSnapshot(db: Db, limit: number) {
  const [[version], rows] = await db.batch([versionQuery(db), recentQuery(db, limit)]);
  return { version: version ?? EMPTY, rows };
}

/** Deletes codes received before `cutoff` (epoch ms); returns how many. */
export async function deleteCodesReceivedBefore(db: Db, cutoff: number): Promise<number> {
  const result = await db.delete(verificationCodes).where(lt(verificationCodes.receivedAt, cutoff)).run();
  return result.meta.changes;
}
