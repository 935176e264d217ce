import { Hono } from "hono";
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

export const invoiceRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listInvoices(c.get("db"))).map(invoiceJson), 200))

  .post("/", validate("json", invoiceSchema), async (c) => {
    const input = c.req.valid("json");
    const row = await insertInvoice(c.get("db"), {
      mediaBuyer: input.mediaBuyer,
      invoiceDate: input.invoiceDate,
      amountPaidCents: hundredths(input.amountPaid, "Amount paid"),
      revenueShareBps: hundredths(input.revenueSharePercent, "Revenue share %"),
      profitCents: hundredths(input.profit, "Profit"),
      notes: input.notes ?? null,
    });
    return c.json(invoiceJson(row), 201);
  })

  .get("/:id", validate("param", idParam), async (c) => {
    const row = await getInvoice(c.get("db"), c.req.valid("param").id);
    if (!row) throw notFound("Invoice not found");
    return c.json(invoiceJson(row), 200);
  })

  .patch("/:id", validate("param", idParam), validate("json", invoiceUpdateSchema), async (c) => {
    const row = await updateInvoice(c.get("db"), c.req.valid("param").id, toColumns(c.req.valid("json")));
    if (!row) throw notFound("Invoice not found");
    return c.json(invoiceJson(row), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    if (!(await deleteInvoice(c.get("db"), c.req.valid("param").id))) throw notFound("Invoice not found");
    return c.json({ ok: true }, 200);
  });
