import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { landers } from "../schema";

const columns = { id: landers.id, name: landers.name, url: landers.url, createdAt: landers.createdAt };

export const listLanders = (db: Db) => db.select(columns).from(landers).orderBy(desc(landers.createdAt), desc(landers.id));

export const insertLander = async (db: Db, values: { name: string; url: string }) =>
  (await db.insert(landers).values({ ...values, createdAt: Date.now() }).returning(columns))[0]!;

/** Undefined when there is no such lander. */
export const getLander = (db: Db, id: number) => db.select(columns).from(landers).where(eq(landers.id, id)).get();

/** Undefined when there is no such lander. */
export const updateLander = (db: Db, id: number, values: { name?: string; url?: string }) =>
  db.update(landers).set(values).where(eq(landers.id, id)).returning(columns).get();

/** Deleting a lander deletes its campaigns and their clicks (the model's cascade). */
export const deleteLander = async (db: Db, id: number) =>
  (await db.delete(landers).where(eq(landers.id, id)).returning({ id: landers.id })).length === 1;
