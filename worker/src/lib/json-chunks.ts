/**
 * Rows as JSON arrays of tuples, split so each piece stays well under D1's 2 MB limit on one
 * value. A bulk write then binds one parameter per statement and reads it with `json_each`,
 * instead of hitting D1's 100-parameter cap every few rows.
 */
import { sql, type SQL } from "drizzle-orm";

const encoder = new TextEncoder();

/** Column `i` of a chunk's tuple, read back inside `json_each` over it. */
export const jsonAt = (i: number): SQL => sql.raw(`json_extract(value, '$[${i}]')`);

export function jsonChunks(rows: readonly unknown[][], maxBytes = 800_000): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    const bytes = encoder.encode(text).length;
    if (parts.length && size + bytes + 1 > maxBytes) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      size = 2;
    }
    parts.push(text);
    size += bytes + 1;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}
