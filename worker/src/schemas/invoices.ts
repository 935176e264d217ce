import { z } from "zod";
import { calendarDate } from "./calendar-date";

/**
 * Invoice fields as the form sends them (docs/screens.md §5: values are text, with its messages). Money is
 * validated as exact decimal text here and converted to cents (the percent to basis points) by
 * the server, never through floating point.
 */
const decimalText = (label: string) =>
  z
    .union([z.string(), z.number()], { error: `${label} is required` })
    .transform((v) => String(v).trim())
    .refine((v) => v !== "", { message: `${label} is required`, abort: true })
    .refine((v) => /^-?\d{1,8}(\.\d{1,2})?$/.test(v), { message: `${label} must be a number with at most 2 decimals`, abort: true });

export const invoiceSchema = z.object({
  mediaBuyer: z.string({ error: "Media buyer is required" }).trim().min(1, "Media buyer is required").max(255, "Media buyer must be at most 255 characters"),
  invoiceDate: calendarDate("Invoice date"),
  amountPaid: decimalText("Amount paid").refine((v) => !v.startsWith("-"), "Amount paid cannot be negative"),
  revenueSharePercent: decimalText("Revenue share %").refine((v) => !v.startsWith("-") && Number(v) <= 100, "Revenue share % must be between 0 and 100"),
  profit: decimalText("Profit"),
  notes: z
    .string({ error: "Notes must be text" })
    .trim()
    .max(2000, "Notes must be at most 2000 characters")
    .nullable()
    .transform((v) => (v === "" ? null : v))
    .optional(),
});
export type InvoiceInput = z.infer<typeof invoiceSchema>;

/** PATCH: any subset of the fields, at least one. */
export const invoiceUpdateSchema = invoiceSchema.partial().refine((v) => Object.values(v).some((x) => x !== undefined), "Send at least one field to change");
export type InvoiceUpdate = z.infer<typeof invoiceUpdateSchema>;
