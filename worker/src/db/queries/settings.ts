import { inArray } from "drizzle-orm";
import { canonicalTimeZone, DEFAULT_MAX_DOMAIN_PRICE, DEFAULT_REPORT_TIMEZONE, DEFAULT_SESSION_IDLE_HOURS, SETTING_KEY_NAMES } from "../../schemas/settings";
import { settings, type SettingKey } from "../schema";
import type { Db } from "../../env";

export const SETTING_DEFAULTS: Record<SettingKey, string> = {
  redirect_domain: "",
  global_exit_domain: "",
  max_domain_price: DEFAULT_MAX_DOMAIN_PRICE,
  report_timezone: DEFAULT_REPORT_TIMEZONE,
  session_idle_hours: String(DEFAULT_SESSION_IDLE_HOURS),
};

/** Every known setting with its stored value or default. */
export async function readSettings(db: Db): Promise<Record<SettingKey, string>> {
  const rows = await db
    .select()
    .from(settings)
    .where(inArray(settings.key, [...SETTING_KEY_NAMES]));
  const values = { ...SETTING_DEFAULTS };
  for (const row of rows) values[row.key as SettingKey] = row.value;
  return values;
}

/**
 * The report time zone (setting report_timezone): the days of the stats, the click rollup and the
 * Click Log, so the screens agree on "today".
 */
export async function reportTimeZone(db: Db): Promise<string> {
  const { report_timezone } = await readSettings(db);
  return canonicalTimeZone(report_timezone) ?? "UTC";
}

/** The upsert of one setting, unrun (awaiting it runs it): a route batches it with its audit entry. */
export function writeSetting(db: Db, key: SettingKey, value: string) {
  const updatedAt = Date.now();
  return db.insert(settings).values({ key, value, updatedAt }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } });
}
