import type { ArchiveSpan } from "../db/queries/click-archives";

/**
 * CLICKS_RETENTION_DAYS: how long raw clicks (and their exits) stay in D1 before the cron archives
 * them to R2 and deletes them (docs/data.md "Retention and archives").
 */
export const DEFAULT_CLICKS_RETENTION_DAYS = 90;
/**
 * A week at least: the cron's CAKE re-pulls and their attribution need the raw clicks of the days
 * they cover (docs/data.md "Retention and archives" says what a retention under 16 or 28 days gives up).
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

/** How a day is cut up. Tests and the benchmark use smaller ones; the Workflow's params may say. */
export interface ArchiveSizes {
  /**
   * Bytes of every part but the last: R2 wants them of one size and at least 5 MiB. A day of a
   * million clicks is about 110 MB gzipped: 14 parts.
   */
  partBytes: number;
  /**
   * Rows per export step. At about 110 bytes a click gzipped (docs/data.md "Retention and archives") a
   * step writes about 5.5 MB, and takes a second or two of CPU: a day of a million clicks is 20
   * steps, each far inside a step's 30 s of CPU and 128 MB of memory.
   */
  chunkRows: number;
  /** Rows per D1 read, and per deflated piece (about 3 MB of CSV). */
  pageRows: number;
  /** Rows per delete statement: each stays a short transaction that never holds up the clicks. */
  deleteRows: number;
  /** Delete statements per step (50,000 clicks, with their exits: a few seconds of D1). */
  deletesPerStep: number;
}

export const ARCHIVE_SIZES: ArchiveSizes = {
  partBytes: 8 * 1024 * 1024,
  chunkRows: 50_000,
  pageRows: 5_000,
  deleteRows: 5_000,
  deletesPerStep: 10,
};

/** The Workflow instance's params: the day, and the run (click_archive_runs) it belongs to. */
export interface ArchiveRunParams extends ArchiveSpan {
  runId: number;
  /** When the cron started the run (the ledger keeps it as the archive's claimedAt). */
  startedAt: number;
  sizes?: Partial<ArchiveSizes>;
}
