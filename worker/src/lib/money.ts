/**
 * Money as D1 stores it (integer cents) and as the API speaks it (decimal strings with two
 * places). Conversions work on the digits, never through floating point: "0.29" * 100 is
 * 28.999999999999996 in a double.
 */

const DECIMAL_RE = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/**
 * Cents from a plain decimal string ("1234.5", "-45.00", "+3"). Null when the text is not such a
 * number or has a non-zero digit past the cents ("1.005"); trailing zeros ("28.270") are fine.
 */
export function parseCents(text: string): number | null {
  const m = DECIMAL_RE.exec(text);
  if (!m) return null;
  const [, sign, whole, fraction = ""] = m;
  if (whole!.length > 13 || /[1-9]/.test(fraction.slice(2))) return null;
  const cents = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, "0"));
  return sign === "-" && cents !== 0 ? -cents : cents;
}

/** An integer count of 10^-places units as exact decimal text: (-4500, 2) is "-45.00". */
export function formatScaled(units: number, places: number): string {
  const scale = 10 ** places;
  const abs = Math.abs(units);
  const text = `${Math.floor(abs / scale)}.${String(abs % scale).padStart(places, "0")}`;
  return units < 0 ? `-${text}` : text;
}

/** "1234.50", "-45.00": the API's money format. */
export const formatCents = (cents: number) => formatScaled(cents, 2);

export const formatCentsOrNull = (cents: number | null) => (cents === null ? null : formatCents(cents));
