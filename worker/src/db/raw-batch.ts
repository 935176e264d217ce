import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../env";

const dialect = new SQLiteAsyncDialect();

/** The D1 binding behind a Db (drizzle keeps it as `$client`; the Db type does not show it). */
function d1Of(db: Db): D1Database {
  const client = (db as { $client?: Partial<D1Database> }).$client;
  if (typeof client?.batch !== "function" || typeof client.prepare !== "function") {
    throw new Error("rawBatch needs a Db made by createDb (drizzle over a D1 binding)");
  }
  return client as D1Database;
}

/**
 * Runs raw SQL statements as one D1 batch: one transaction, all or nothing. Drizzle's own
 * db.batch cannot take a raw statement that has parameters (it looks for a prepared statement
 * its raw queries never make), so the statements go to the D1 binding directly.
 */
export async function rawBatch(db: Db, statements: SQL[]): Promise<D1Result[]> {
  const d1 = d1Of(db);
  return d1.batch(
    statements.map((statement) => {
      const query = dialect.sqlToQuery(statement);
      return d1.prepare(query.sql).bind(...query.params);
    }),
  );
}

/** How many rows a statement of a batch inserted, updated or deleted. */
export const changed = (result: D1Result) => result.meta.changes ?? 0;
