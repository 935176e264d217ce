import { z } from "zod";

export const SETTING_KEY_NAMES = ["redirect_domain", "global_exit_domain", "max_domain_price", "report_timezone", "session_idle_hours"] as const;

export const DEFAULT_MAX_DOMAIN_PRICE = "5.00";
/** What "today" and each day mean for our own clicks in the stats (README: Performance data sources). */
export const DEFAULT_REPORT_TIMEZONE = "UTC";
/** A session ends after this many hours without a request, as well as after its fixed 7 days (docs/accounts-security.md "Accounts, roles and permissions"). */
export const DEFAULT_SESSION_IDLE_HOURS = 12;
export const MAX_SESSION_IDLE_HOURS = 168;

/**
 * The canonical spelling of an IANA time zone name, or null when the runtime does not know it.
 * Offsets such as "+05:00" are refused although Intl takes them: they ignore daylight saving.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * A redirect or exit base as we store it: `https://host[:port]` (docs/product-rules.md: a value without
 * http(s):// gets https://; the exit domain's trailing /click is removed). Returns null when the
 * value is not a plain domain.
 */
export function normaliseBaseUrl(raw: string, { stripClick = false } = {}): string | null {
  let value = raw.trim();
  if (!value) return null;
  if (!/^https?:\/\//i.test(value)) value = `https://${value}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  let path = url.pathname.replace(/\/+$/, "");
  if (stripClick && path.toLowerCase() === "/click") path = "";
  const host = url.hostname;
  const validHost = host === "localhost" || /^(?!-)[a-z0-9-]{1,63}(?:\.(?!-)[a-z0-9-]{1,63})+$/i.test(host);
  if (path || url.search || url.hash || url.username || url.password || !validHost) return null;
  return url.origin;
}

const domainMessage = "Enter a domain such as trk.example.com (optionally with https://)";

/**
 * Each setting's value as POST /api/settings checks it; the Settings screen's forms validate with
 * these same schemas.
 */
export const settingValueSchemas = {
  redirect_domain: z
    .string({ error: "Redirect domain is required" })
    .trim()
    .min(1, "Redirect domain is required")
    .max(253, domainMessage)
    .transform((v, ctx) => normaliseBaseUrl(v) ?? (ctx.addIssue({ code: "custom", message: domainMessage }), z.NEVER)),
  global_exit_domain: z
    .string()
    .trim()
    .max(253, domainMessage)
    .transform((v, ctx) =>
      v === "" ? "" : (normaliseBaseUrl(v, { stripClick: true }) ?? (ctx.addIssue({ code: "custom", message: domainMessage }), z.NEVER)),
    ),
  max_domain_price: z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => /^\d{1,6}(\.\d{1,2})?$/.test(v), "Maximum domain price must be a number of at least 0 with at most 2 decimals")
    .transform((v) => Number(v).toFixed(2)),
  report_timezone: z
    .string({ error: "Report time zone is required" })
    .trim()
    .min(1, "Report time zone is required")
    .max(64, "Report time zone must be an IANA name such as UTC or America/New_York")
    .transform(
      (v, ctx) =>
        canonicalTimeZone(v) ?? (ctx.addIssue({ code: "custom", message: "Report time zone must be an IANA name such as UTC or America/New_York" }), z.NEVER),
    ),
  session_idle_hours: z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine(
      (v) => /^\d{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_SESSION_IDLE_HOURS,
      `Idle time must be a whole number of hours from 1 to ${MAX_SESSION_IDLE_HOURS}`,
    )
    .transform((v) => String(Number(v))),
} satisfies Record<(typeof SETTING_KEY_NAMES)[number], z.ZodType>;

export const settingSchema = z.discriminatedUnion(
  "key",
  [
    z.object({ key: z.literal("redirect_domain"), value: settingValueSchemas.redirect_domain }),
    z.object({ key: z.literal("global_exit_domain"), value: settingValueSchemas.global_exit_domain }),
    z.object({ key: z.literal("max_domain_price"), value: settingValueSchemas.max_domain_price }),
    z.object({ key: z.literal("report_timezone"), value: settingValueSchemas.report_timezone }),
    z.object({ key: z.literal("session_idle_hours"), value: settingValueSchemas.session_idle_hours }),
  ],
  { error: "Unknown setting" },
);
export type SettingInput = z.input<typeof settingSchema>;
