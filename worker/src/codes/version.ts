import { codesVersion, type CodesVersion } from "../db/queries/codes";
import type { Db } from "../env";

/**
 * How long an isolate trusts the inbox version it last read. Every open Codes screen polls every
 * 2 seconds; with this, an unchanged poll costs no query of its own (only the session lookup
 * every API call makes), and D1 sees at most one version read a second per isolate. A code
 * stored through another isolate shows up to this much later; one stored or deleted through
 * this isolate shows at once (the writers call `forgetCodesVersion`).
 */
export const VERSION_FRESH_MS = 1_000;

let remembered: { version: CodesVersion; at: number } | null = null;

export function rememberCodesVersion(version: CodesVersion, now = Date.now()) {
  remembered = { version, at: now };
}

export function forgetCodesVersion() {
  remembered = null;
}

/** The inbox version, from this isolate's memory when read less than a second ago. */
export async function recentCodesVersion(db: Db, now = Date.now()): Promise<CodesVersion> {
  if (remembered && now - remembered.at < VERSION_FRESH_MS && now >= remembered.at) return remembered.version;
  const version = await codesVersion(db);
  rememberCodesVersion(version, now);
  return version;
}

/** The ETag of a version (strong: the same version always renders the same body). */
export const codesEtag = (v: CodesVersion) => `"codes-${v.total}-${v.lastId}-${v.lastExtractedAt}"`;
