const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/** "United States (US)" for a country code; the code alone when the browser does not know it. */
export function countryLabel(code: string): string {
  try {
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** "Mobile · iOS · TikTok": what the user agent said, the unknown parts left out. */
export const agentLabel = (c: { deviceType: string | null; os: string | null; browser: string | null }) =>
  [c.deviceType, c.os, c.browser].filter(Boolean).join(" · ");
