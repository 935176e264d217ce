import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { offers } from "../schema";

const columns = { id: offers.id, name: offers.name, url: offers.url, utmTemplate: offers.utmTemplate, createdAt: offers.createdAt };

export const listOffers = (db: Db) => db.select(columns).from(offers).orderBy(desc(offers.createdAt), desc(offers.id));

export const insertOffer = async (db: Db, values: { name: string; url: string; utmTemplate: string }) =>
  (await db.insert(offers).values({ ...values, createdAt: Date.now() }).returning(columns))[0]!;

/** Undefined when there is no such offer. */
export const updateOffer = (db: Db, id: number, values: { name?: string; url?: string; utmTemplate?: string }) =>
  db.update(offers).set(values).where(eq(offers.id, id)).returning(columns).get();

/** Campaigns using the offer keep running without one (set null); its exit records go with it. */
export const deleteOffer = async (db: Db, id: number) =>
  (await db.delete(offers).where(eq(offers.id, id)).returning({ id: offers.id })).length === 1;
