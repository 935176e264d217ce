import { z } from "zod";

/** Path ids of integer-keyed resources. */
export const idParam = z.object({ id: z.coerce.number({ error: "Invalid id" }).int("Invalid id").positive("Invalid id") });
/** Path ids of users (UUIDs). */
export const userIdParam = z.object({ id: z.uuid("Invalid user id") });
