/**
 * CLICKS_RETENTION_DAYS: how long raw clicks (and their exits) stay in D1 before the cron archives
 * them to R2 and deletes them (README "Retention and archives").
 */
export const DEFAULT_CLICKS_RETENTION_DAYS = 90;
/**
 * A week at least: the cron's CAKE re-pulls and their attribution need the raw clicks of the days
 * they cover (README "Retention and archives" says what a retention under 16 or 28 days gives up).
 * At a million clicks a day D1's 10 GB holds under three weeks of raw clicks, so the floor stays low.
 */
export const MIN_CLICKS_RETENTION_DAYS = 7;
/** Ten years: a typo such as "9000" should not quietly keep every click for ever. */
export const MAX_CLICKS_RETENTION_DAYS = 3650;

export interface RetentionSetting {
  days: number;
  /** Why the configured value was not used (it was invalid), for a log line and the Click Log. */
  problem: string | null;
}

/** CLICKS_RETENTION_DAYS as days; unset is the default, an unusable value the default with a reason. */
export function clicksRetention(value: string | undefined): RetentionSetting {
  const raw = value?.trim() ?? "";
  if (raw === "") return { days: DEFAULT_CLICKS_RETENTION_DAYS, problem: null };
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (Number.isInteger(n) && n >= MIN_CLICKS_RETENTION_DAYS && n <= MAX_CLICKS_RETENTION_DAYS) return { days: n, problem: null };
  return {
    days: DEFAULT_CLICKS_RETENTION_DAYS,
    problem:
      `CLICKS_RETENTION_DAYS is ${JSON.stringify(value)}, not a whole number of days from ${MIN_CLICKS_RETENTION_DAYS} ` +
      `to ${MAX_CLICKS_RETENTION_DAYS}; using the default of ${DEFAULT_CLICKS_RETENTION_DAYS} days`,
  };
}
