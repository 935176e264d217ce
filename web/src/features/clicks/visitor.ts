/** "Mobile · iOS · TikTok": what the user agent said, the unknown parts left out. */
export const agentLabel = (c: { deviceType: string | null; os: string | null; browser: string | null }) =>
  [c.deviceType, c.os, c.browser].filter(Boolean).join(" · ");
