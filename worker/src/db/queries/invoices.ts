import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { invoices } from "../schema";

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceValues = Omit<typeof invoices.$inferInsert, "id" | "createdAt">;

/** Newest invoice date first; invoices of one day newest-created first. */
export const listInvoices = (db: Db) => db.select().from(invoices).orderBy(desc(invoices.invoiceDate), desc(invoices.id));

export const getInvoice = (db: Db, id: number) => db.select().from(invoices).where(eq(invoices.id, id)).get();

// The writes are returned unrun, so a route can batch them with their audit entry.

export const insertInvoice = (db: Db, values: InvoiceValues) => db.insert(invoices).values(values).returning();

/** No row back when there is no invoice with this id. */
export const updateInvoice = (db: Db, id: number, values: Partial<InvoiceValues>) => db.update(invoices).set(values).where(eq(invoices.id, id)).returning();

/** No row back when there is no invoice with this id. */
export const deleteInvoice = (db: Db, id: number) => db.delete(invoices).where(eq(invoices.id, id)).returning({ id: invoices.id });
