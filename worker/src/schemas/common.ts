import { z } from "zod";

/** Path ids of integer-keyed resources. */
export const idParam = z.object({ id: z.coerce.number({ error: "Invalid id" }).int("Invalid id").positive("Invalid id") });
/** Path ids of users (UUIDs). */
export const userIdParam = z.object({ id: z.uuid("Invalid user id") });

/** A money amount as the API speaks it: a decimal string (or number) with at most two places. */
export const moneyString = (label: string) =>
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => v !== "", `${label} is required`)
    .refine((v) => /^-?\d{1,8}(\.\d{1,2})?$/.test(v), `${label} must be a number with at most 2 decimals`);

export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Dates must look like YYYY-MM-DD");
