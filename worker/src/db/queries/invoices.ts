import { desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { invoices } from "../schema";

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceValues = Omit<typeof invoices.$inferInsert, "id" | "createdAt">;

/** Newest invoice date first; invoices of one day newest-created first. */
export const listInvoices = (db: Db) => db.select().from(invoices).orderBy(desc(invoices.invoiceDate), desc(invoices.id));

export const getInvoice = (db: Db, id: number) => db.select().from(invoices).where(eq(invoices.id, id)).get();

export async function insertInvoice(db: Db, values: InvoiceValues): Promise<InvoiceRow> {
  const [row] = await db.insert(invoices).values(values).returning();
  if (!row) throw new Error("insert into invoices returned no row");
  return row;
}

/** Returns the updated invoice, or undefined when there is none with this id. */
export const updateInvoice = (db: Db, id: number, values: Partial<InvoiceValues>) =>
  db.update(invoices).set(values).where(eq(invoices.id, id)).returning().get();

/** Whether an invoice was deleted. */
export const deleteInvoice = async (db: Db, id: number) =>
  (await db.delete(invoices).where(eq(invoices.id, id)).returning({ id: invoices.id })).length === 1;
