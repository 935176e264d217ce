import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { landers } from "../schema";

const columns = { id: landers.id, name: landers.name, url: landers.url, createdAt: landers.createdAt };

export const listLanders = (db: Db) => db.select(columns).from(landers).orderBy(desc(landers.createdAt), desc(landers.id));

export const getLander = (db: Db, id: number) => db.select(columns).from(landers).where(eq(landers.id, id)).get();

// The writes are returned unrun, so a route can batch them with their audit entry.

export const insertLander = (db: Db, values: { name: string; url: string }) =>
  db
    .insert(landers)
    .values({ ...values, createdAt: Date.now() })
    .returning(columns);

/** No row back when there is no such lander. */
export const updateLander = (db: Db, id: number, values: { name?: string; url?: string }) =>
  db.update(landers).set(values).where(eq(landers.id, id)).returning(columns);

/** Deleting a lander deletes its campaigns and their clicks (the model's cascade). No row back: no such lander. */
export const deleteLander = (db: Db, id: number) => db.delete(landers).where(eq(landers.id, id)).returning({ id: landers.id });
