import { z } from "zod";
import { NAME_MAX } from "./landers";

export const SPARK_CODE_MAX = 20_000;

/** Messages as docs/screens.md §5 words them. */
export const createSparkSchema = z.object({
  name: z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(NAME_MAX, `Name must be at most ${NAME_MAX} characters`),
  code: z.string({ error: "Code is required" }).trim().min(1, "Code is required").max(SPARK_CODE_MAX, `Code must be at most ${SPARK_CODE_MAX} characters`),
});
export type CreateSparkInput = z.input<typeof createSparkSchema>;
