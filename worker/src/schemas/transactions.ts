import { z } from "zod";
import { calendarDate } from "./calendar-date";

/** Mirrors `TRANSACTION_STATUSES` in db/schema.ts; schemas import only zod so the web app can use them. */
export const TRANSACTION_STATUS_VALUES = ["PENDING", "CLEARED", "DECLINED"] as const;
export type TransactionStatusValue = (typeof TRANSACTION_STATUS_VALUES)[number];

export const TRANSACTIONS_PAGE_SIZE = 50;
/** The largest statement file the upload accepts (the target limit). */
export const MAX_STATEMENT_BYTES = 10 * 1024 * 1024;

/**
 * A card's last four digits as we store, filter and show them. The export masks them (`*2375`):
 * the mask is dropped, so `*2375` is stored as `2375`. A spreadsheet that re-saved the file may
 * have dropped leading zeros (`*0042` -> `42`); last-4 values are always four digits, so shorter
 * all-digit values are padded back.
 */
export function normalizeLast4(raw: string): string {
  const value = raw.trim().replace(/^\*+/, "").trim();
  return /^\d{1,3}$/.test(value) ? value.padStart(4, "0") : value;
}

/** The filter selects send 'all' (or nothing) for "no filter". */
const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== "string") return v;
    const t = v.trim();
    return t === "" || t.toLowerCase() === "all" ? undefined : t;
  }, schema.optional());

const amountFilter = (label: string) => optionalText(z.string().regex(/^-?\d{1,8}(\.\d{1,2})?$/, `${label} must be a number with at most 2 decimals`));

export const transactionListQuerySchema = z.object({
  status: optionalText(
    z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(TRANSACTION_STATUS_VALUES, { error: "Status must be PENDING, CLEARED or DECLINED" })),
  ),
  vcnLast4: optionalText(z.string().max(32, "VCN Last 4 is at most 32 characters").transform(normalizeLast4)),
  minAmount: amountFilter("Min amount"),
  maxAmount: amountFilter("Max amount"),
  page: optionalText(
    z.coerce
      .number({ error: "Page must be a whole number of 1 or more" })
      .int("Page must be a whole number of 1 or more")
      .min(1, "Page must be a whole number of 1 or more")
      .max(1_000_000, "Page is too large"),
  ).transform((v) => v ?? 1),
});
export type TransactionListQuery = z.infer<typeof transactionListQuerySchema>;

export const vcnSummaryQuerySchema = z
  .object({
    startDate: optionalText(calendarDate("Start date")),
    endDate: optionalText(calendarDate("End date")),
  })
  .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, {
    message: "End date must be on or after the start date",
    path: ["endDate"],
  });
export type VcnSummaryQuery = z.infer<typeof vcnSummaryQuerySchema>;

/** The upload form: one field `file`, a .csv. The size limit answers 413, so the route checks it. */
export const statementUploadSchema = z.object({
  file: z
    .instanceof(File, { error: 'Choose a CSV file to upload (form field "file")' })
    .refine((f) => /\.csv$/i.test(f.name), "Only .csv files can be uploaded"),
});
