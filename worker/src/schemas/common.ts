import { z } from "zod";

/** Path ids of integer-keyed resources. */
export const idParam = z.object({ id: z.coerce.number({ error: "Invalid id" }).int("Invalid id").positive("Invalid id") });
/** Path ids of users (UUIDs). */
export const userIdParam = z.object({ id: z.uuid("Invalid user id") });
/**
 * An optional query parameter where an empty value (`?offerId=`) means the same as none: no filter.
 * The parameter stays typed in the API's client, which a preprocess of the whole query would lose.
 */
export const blankIsNone = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
