/**
 * Recognising SQLite constraint failures. D1 reports them as an Error whose message carries
 * SQLite's text ("UNIQUE constraint failed: sparks.spark_id"); Drizzle may wrap that error in its
 * own, with the original as `cause`, so the whole chain is searched.
 */
function messages(err: unknown): string[] {
  const found: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    found.push(current.message);
    current = current.cause;
  }
  return found;
}

/** A UNIQUE violation, optionally on one `table.column`. */
export const isUniqueViolation = (err: unknown, column?: string) =>
  messages(err).some((m) => m.includes("UNIQUE constraint failed") && (!column || m.includes(column)));

export const isForeignKeyViolation = (err: unknown) => messages(err).some((m) => m.includes("FOREIGN KEY constraint failed"));
