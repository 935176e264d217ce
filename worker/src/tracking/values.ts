/**
 * The one rule for a value /r/ reads from the ad's URL or the request before it is recorded, and
 * for a recorded value before it fills an offer template.
 *
 * - An ad platform that did not fill in a macro leaves its placeholder in the URL: TikTok's
 *   `__AID__`, `__CAMPAIGN_ID__`, `__CLICKID__`, ... arrive as typed when the tracking URL is opened
 *   by hand or from a preview. Such a value is no data: it is stored as empty (null) and fills a
 *   template as empty, so no ad group is named `__AID__` and no offer receives `s4=__CAMPAIGN_ID__`.
 * - Every value is cut to 255 characters (code points, so an emoji is never split).
 * - Empty or missing is null.
 */
export const VALUE_MAX = 255;

/** `__WORD__`: two underscores, capitals, digits and underscores, two underscores. */
const MACRO = /^__[A-Z][A-Z0-9_]*__$/;

/** Whether a value is still an ad platform's unfilled macro placeholder. */
export function isUnfilledMacro(value: string): boolean {
  // The first check keeps the common case (a real value) to one character comparison.
  return value.charCodeAt(0) === 95 /* _ */ && value.length >= 5 && MACRO.test(value);
}

/** A value as it is recorded: null when empty, missing or an unfilled macro; cut to 255 characters. */
export function recordedValue(value: string | null | undefined): string | null {
  if (value == null || value === "" || isUnfilledMacro(value)) return null;
  if (value.length <= VALUE_MAX) return value;
  return Array.from(value.slice(0, VALUE_MAX * 2))
    .slice(0, VALUE_MAX)
    .join("");
}
