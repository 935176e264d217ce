/**
 * An ad-platform macro the platform left unfilled (`__CLICKID__`, `__CAMPAIGN_ID__`: upper-case
 * between double underscores) reaches /r/ as its own name, which is no value at all: it becomes
 * empty. (A minimal rule used for the ttclid; the other tracking fields may share it.)
 */
const UNFILLED_MACRO = /^__[A-Z0-9_]+__$/;

export const withoutUnfilledMacro = (value: string | null | undefined): string | null =>
  value == null || value === "" || UNFILLED_MACRO.test(value) ? null : value;
