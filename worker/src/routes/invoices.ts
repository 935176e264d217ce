import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { audit, diff, fields, unlessUnchanged } from "../audit/record";
import { deleteInvoice, getInvoice, insertInvoice, listInvoices, updateInvoice, type InvoiceRow, type InvoiceValues } from "../db/queries/invoices";
import type { AppEnv } from "../env";
import { badRequest, notFound } from "../lib/errors";
import { formatCents, parseCents } from "../lib/money";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { invoiceSchema, invoiceUpdateSchema, type InvoiceUpdate } from "../schemas/invoices";

/** The schemas admit only exact decimal text with two places at most, so this never refuses. */
function hundredths(text: string, label: string) {
  const value = parseCents(text);
  if (value === null) throw badRequest(`${label} must be a number with at most 2 decimals`);
  return value;
}

/** Form values to columns: money in cents, the percent in basis points (hundredths of a percent). */
function toColumns(input: InvoiceUpdate): Partial<InvoiceValues> {
  const columns: Partial<InvoiceValues> = {};
  if (input.mediaBuyer !== undefined) columns.mediaBuyer = input.mediaBuyer;
  if (input.invoiceDate !== undefined) columns.invoiceDate = input.invoiceDate;
  if (input.amountPaid !== undefined) columns.amountPaidCents = hundredths(input.amountPaid, "Amount paid");
  if (input.revenueSharePercent !== undefined) columns.revenueShareBps = hundredths(input.revenueSharePercent, "Revenue share %");
  if (input.profit !== undefined) columns.profitCents = hundredths(input.profit, "Profit");
  if (input.notes !== undefined) columns.notes = input.notes;
  return columns;
}

const invoiceJson = (row: InvoiceRow) => ({
  id: row.id,
  mediaBuyer: row.mediaBuyer,
  invoiceDate: row.invoiceDate,
  amountPaid: formatCents(row.amountPaidCents),
  revenueSharePercent: formatCents(row.revenueShareBps),
  profit: formatCents(row.profitCents),
  notes: row.notes,
  createdAt: iso(row.createdAt),
});

const LABELS = {
  mediaBuyer: "Media buyer",
  invoiceDate: "Date",
  amountPaid: "Amount paid",
  revenueSharePercent: "Revenue share %",
  profit: "Profit",
  notes: "Notes",
};

export const invoiceRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listInvoices(c.get("db"))).map(invoiceJson), 200))

  .post("/", validate("json", invoiceSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    const values = {
      mediaBuyer: input.mediaBuyer,
      invoiceDate: input.invoiceDate,
      amountPaidCents: hundredths(input.amountPaid, "Amount paid"),
      revenueShareBps: hundredths(input.revenueSharePercent, "Revenue share %"),
      profitCents: hundredths(input.profit, "Profit"),
      notes: input.notes ?? null,
    };
    const [[row]] = await db.batch([
      insertInvoice(db, values),
      audit(c, {
        action: "invoice.create",
        kind: "invoice",
        id: sql`last_insert_rowid()`,
        summary: fields(invoiceJson({ id: 0, createdAt: 0, ...values }), LABELS),
      }),
    ]);
    return c.json(invoiceJson(row!), 201);
  })

  .get("/:id", validate("param", idParam), async (c) => {
    const row = await getInvoice(c.get("db"), c.req.valid("param").id);
    if (!row) throw notFound("Invoice not found");
    return c.json(invoiceJson(row), 200);
  })

  .patch("/:id", validate("param", idParam), validate("json", invoiceUpdateSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const before = await getInvoice(db, id);
    if (!before) throw notFound("Invoice not found");
    const columns = toColumns(input);
    const [[row]] = await db.batch([
      updateInvoice(db, id, columns),
      ...unlessUnchanged(diff(invoiceJson(before), invoiceJson({ ...before, ...columns }), LABELS), (change) =>
        audit(c, { action: "invoice.update", kind: "invoice", id, summary: `${before.mediaBuyer} ${before.invoiceDate}: ${change}` }, { ifChanged: true }),
      ),
    ]);
    if (!row) throw notFound("Invoice not found");
    return c.json(invoiceJson(row), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getInvoice(db, id);
    if (!before) throw notFound("Invoice not found");
    const [deleted] = await db.batch([
      deleteInvoice(db, id),
      audit(c, { action: "invoice.delete", kind: "invoice", id, summary: fields(invoiceJson(before), LABELS) }, { ifChanged: true }),
    ]);
    if (!deleted.length) throw notFound("Invoice not found");
    return c.json({ ok: true }, 200);
  });
