import { eq } from "drizzle-orm";
import type { Db } from "../../env";
import { STATS_COLUMNS, type StatsColumn, type StatsPreferences } from "../../schemas/stats";
import { userDashboardPreferences } from "../schema";

const isColumn = (key: string): key is StatsColumn => (STATS_COLUMNS as readonly string[]).includes(key);

/**
 * The stored preference as the API answers it. Columns a later version no longer knows are
 * dropped on the way out, so an old row can never hand the screen a key it cannot place.
 */
function clean(row: { visibleColumns: unknown; columnWidths: unknown } | undefined): StatsPreferences {
  const visible = Array.isArray(row?.visibleColumns) ? row.visibleColumns : [];
  const widths = row?.columnWidths && typeof row.columnWidths === "object" ? (row.columnWidths as Record<string, unknown>) : {};
  return {
    visibleColumns: visible.filter((c): c is StatsColumn => typeof c === "string" && isColumn(c)),
    columnWidths: Object.fromEntries(Object.entries(widths).filter((e): e is [StatsColumn, number] => isColumn(e[0]) && typeof e[1] === "number")),
  };
}

export async function readPreferences(db: Db, userId: string): Promise<StatsPreferences> {
  const [row] = await db
    .select({ visibleColumns: userDashboardPreferences.visibleColumns, columnWidths: userDashboardPreferences.columnWidths })
    .from(userDashboardPreferences)
    .where(eq(userDashboardPreferences.userId, userId));
  return clean(row);
}

/** Replaces the user's preference and returns it as stored. */
export async function writePreferences(db: Db, userId: string, prefs: StatsPreferences, now: number): Promise<StatsPreferences> {
  const values = { visibleColumns: prefs.visibleColumns, columnWidths: prefs.columnWidths, updatedAt: now };
  const [row] = await db
    .insert(userDashboardPreferences)
    .values({ userId, ...values })
    .onConflictDoUpdate({ target: userDashboardPreferences.userId, set: values })
    .returning({ visibleColumns: userDashboardPreferences.visibleColumns, columnWidths: userDashboardPreferences.columnWidths });
  return clean(row);
}
