/**
 * Money as the networks send it ("180.000000", "12.34", sometimes a JSON number) to integer cents,
 * digit by digit: going through a double would turn "0.29" into 28.999… cents. Amounts finer
 * than a cent (CAKE keeps 4 to 6 places) are rounded half away from zero, the way the networks'
 * own totals round. Null when the value is not a decimal amount at all.
 */
const DECIMAL = /^([+-]?)(\d+)?(?:\.(\d*))?$/;

export function decimalToCents(value: unknown): number | null {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    // toFixed keeps the decimal a JSON number was written as, up to the places money can have.
    text = value.toFixed(6);
  } else if (typeof value === "string") {
    // A currency sign or thousands separators are formatting, not part of the amount. ⚠ CAKE is
    // documented as sending plain decimal strings; the sign and commas are tolerated defensively.
    text = value
      .trim()
      .replace(/^([+-]?)\$/, "$1")
      .replace(/,(?=\d{3}(?:\D|$))/g, "");
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === undefined && !m[3])) return null;
  const [, sign, whole = "0", fraction = ""] = m;
  if (whole.length > 13) return null;
  let cents = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, "0"));
  if ((fraction[2] ?? "0") >= "5") cents += 1;
  return sign === "-" && cents !== 0 ? -cents : cents;
}
