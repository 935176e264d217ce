import { countryLabel } from "../../../../worker/src/lib/country";

/**
 * Codes the runtime names that are not current ISO 3166-1 countries (unions, pseudo-locales, areas
 * with no code of their own, and withdrawn codes it still maps to their successor, such as UK and
 * YU): a rule on one of them would never match a visitor.
 */
const NOT_COUNTRIES = new Set("AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB YD YU ZR ZZ".split(" "));

const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

function named(code: string): boolean {
  try {
    return regions.of(code) !== code;
  } catch {
    return false;
  }
}

/**
 * The ISO 3166-1 alpha-2 codes a country condition offers, as "Germany (DE)", sorted by name: the
 * browser's own region names (Intl.DisplayNames) rather than a list of our own to keep current.
 * Kosovo (XK) stays: Cloudflare reports it.
 */
export const COUNTRIES: { code: string; label: string }[] = (() => {
  const codes: string[] = [];
  for (let a = 65; a <= 90; a++)
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (!NOT_COUNTRIES.has(code) && named(code)) codes.push(code);
    }
  return codes.map((code) => ({ code, label: countryLabel(code) })).sort((x, y) => x.label.localeCompare(y.label));
})();

export { countryLabel };
