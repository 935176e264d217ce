import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { offers } from "../schema";

const columns = { id: offers.id, name: offers.name, url: offers.url, utmTemplate: offers.utmTemplate, createdAt: offers.createdAt };

export const listOffers = (db: Db) => db.select(columns).from(offers).orderBy(desc(offers.createdAt), desc(offers.id));

export const getOffer = (db: Db, id: number) => db.select(columns).from(offers).where(eq(offers.id, id)).get();

// The writes are returned unrun, so a route can batch them with their audit entry.

export const insertOffer = (db: Db, values: { name: string; url: string; utmTemplate: string }) =>
  db
    .insert(offers)
    .values({ ...values, createdAt: Date.now() })
    .returning(columns);

/** No row back when there is no such offer. */
export const updateOffer = (db: Db, id: number, values: { name?: string; url?: string; utmTemplate?: string }) =>
  db.update(offers).set(values).where(eq(offers.id, id)).returning(columns);

/** Campaigns using the offer keep running without one (set null); its exit records go with it. No row back: no such offer. */
export const deleteOffer = (db: Db, id: number) => db.delete(offers).where(eq(offers.id, id)).returning({ id: offers.id });
