import { sql, type SQL } from "drizzle-orm";
import type { SessionUser } from "../../env";

/**
 * docs/product-rules.md: members see only the stats of the media buyers (CAKE sub1) assigned to them in
 * user_subid1_assignments; admins see everything. A SQL condition on `column` (a subid1 column
 * of the table being read), or undefined when nothing is filtered. A member with no assignment
 * sees nothing, never everything.
 */
export function mediaBuyerScope(user: Pick<SessionUser, "id" | "role">, column: SQL = sql.raw("subid1")): SQL | undefined {
  if (user.role === "admin") return undefined;
  return sql`${column} in (select subid1 from user_subid1_assignments where user_id = ${user.id})`;
}
