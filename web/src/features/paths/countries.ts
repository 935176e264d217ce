import { countryLabel } from "../../../../worker/src/lib/country";
import { COUNTRY_CODES } from "../../../../worker/src/schemas/paths";

/** Cloudflare's own codes, which the browser does not name. */
const CLOUDFLARE_CODES: Record<string, string> = { XX: "Unknown country (XX)", T1: "Tor network (T1)" };

/**
 * What a country condition and the preview offer: the codes the API accepts (COUNTRY_CODES), named
 * by the browser ("Germany (DE)"), sorted by name, Cloudflare's own codes last.
 */
export const COUNTRIES: { code: string; label: string }[] = [...COUNTRY_CODES]
  .filter((code) => !(code in CLOUDFLARE_CODES))
  .map((code) => ({ code, label: countryLabel(code) }))
  .sort((a, b) => a.label.localeCompare(b.label))
  .concat(Object.entries(CLOUDFLARE_CODES).map(([code, label]) => ({ code, label })));

/** A chosen code as shown on its chip. */
export const countryName = (code: string) => CLOUDFLARE_CODES[code] ?? countryLabel(code);
