const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/**
 * "United States (US)" for a country code Cloudflare sent; the code alone when the runtime does
 * not know it. Shared by the stats report and the web app's Click Log.
 */
export function countryLabel(code: string): string {
  try {
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}
