/**
 * Money as D1 stores it (integer cents) and as the API speaks it (decimal strings with two
 * places). Conversions work on the digits, never through floating point: "0.29" * 100 is
 * 28.999999999999996 in a double.
 */

const DECIMAL = /^([+-]?)(\d+)?(?:\.(\d*))?$/;

/**
 * The one decimal-to-cents parser, for the Worker and the web alike (the web's totals import it):
 * digit by digit, never through a double. Null when the value is not a decimal amount.
 *
 * - `exact` (the default, for amounts people and files give us: statements, settings, postbacks,
 *   the API's own money text): a plain decimal ("1234.5", "-45.00", "+3"); a non-zero digit past
 *   the cents ("1.005") is refused, trailing zeros ("28.270") are fine.
 * - `round` (for amounts networks send: CAKE keeps 4 to 6 places, TikTok sends JSON numbers):
 *   finer amounts round half away from zero, as the networks' own totals do; a JSON number, a
 *   leading currency sign and thousands separators are accepted as formatting.
 */
export function decimalToCents(value: unknown, mode: "exact" | "round" = "exact"): number | null {
  let text: string;
  if (typeof value === "number" && mode === "round") {
    if (!Number.isFinite(value)) return null;
    // toFixed keeps the decimal a JSON number was written as, up to the places money can have.
    text = value.toFixed(6);
  } else if (typeof value === "string") {
    text =
      mode === "round"
        ? value
            .trim()
            .replace(/^([+-]?)\$/, "$1")
            .replace(/,(?=\d{3}(?:\D|$))/g, "")
        : value;
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, sign, digits, fraction = ""] = m;
  // Digits before the point are required ("0.5"), except that a network's ".5" is read too.
  if (digits === undefined && (mode === "exact" || !fraction)) return null;
  const whole = digits ?? "0";
  if (whole.length > 13) return null;
  if (mode === "exact" && /[1-9]/.test(fraction.slice(2))) return null;
  let cents = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, "0"));
  if (mode === "round" && (fraction[2] ?? "0") >= "5") cents += 1;
  return sign === "-" && cents !== 0 ? -cents : cents;
}

/** Exact cents from a plain decimal string: `decimalToCents(text, "exact")`. */
export const parseCents = (text: string): number | null => decimalToCents(text, "exact");

/** An integer count of 10^-places units as exact decimal text: (-4500, 2) is "-45.00". */
export function formatScaled(units: number, places: number): string {
  const scale = 10 ** places;
  const abs = Math.abs(units);
  const text = `${Math.floor(abs / scale)}.${String(abs % scale).padStart(places, "0")}`;
  return units < 0 ? `-${text}` : text;
}

/** n / d rounded half away from zero, in integers (no floating point on money). */
function divRound(n: number, d: number): number {
  const q = Math.trunc(n / d);
  const r = n - q * d;
  return 2 * Math.abs(r) >= Math.abs(d) ? q + Math.sign(n) * Math.sign(d) : q;
}

/**
 * Money per visit (CAKE click) as "0.123": Stats' EPV and CPV, and the Offers screen's EPC (for
 * an offer, the same figure as its EPV), rounded half away from zero on whole thousandths; 0
 * without visits (docs/screens.md §9).
 */
export const perVisit = (cents: number, visits: number) => formatScaled(visits === 0 ? 0 : divRound(cents * 10, visits), 3);

/** "1234.50", "-45.00": the API's money format. */
export const formatCents = (cents: number) => formatScaled(cents, 2);

export const formatCentsOrNull = (cents: number | null) => (cents === null ? null : formatCents(cents));
