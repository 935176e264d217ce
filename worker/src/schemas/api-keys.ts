import { z } from "zod";
import type { Access } from "../access-rules";

/**
 * What an API key may be granted (docs/accounts-security.md "API keys"): the access table's
 * features, the signed-in areas, and the admin areas. `grant` is who may put the resource on a key,
 * in the access table's own terms: a member grants only the features they hold, and no admin area.
 */
export const API_KEY_RESOURCES = {
  dashboard: { label: "Dashboard and stats", grant: { feature: ["dashboard"] } },
  offers: { label: "Offers", grant: { feature: ["offers"] } },
  campaigns: { label: "Campaigns", grant: { feature: ["campaigns"] } },
  landers: { label: "Landers", grant: { feature: ["landers"] } },
  clicks: { label: "Click log", grant: { feature: ["clicks"] } },
  sparks: { label: "Sparks", grant: { feature: ["sparks"] } },
  performance: { label: "Performance data", grant: { feature: ["performance"] } },
  profile: { label: "Profile and preferences", grant: "signed-in" },
  codes: { label: "Verification codes", grant: "signed-in" },
  billing: { label: "Billing statements", grant: "signed-in" },
  users: { label: "Users", grant: "admin" },
  settings: { label: "Settings", grant: "admin" },
  invoicing: { label: "Invoicing", grant: "admin" },
  syncs: { label: "Data syncs and TikTok events", grant: "admin" },
  domains: { label: "Domains", grant: "admin" },
  audit: { label: "Audit log", grant: "admin" },
  rules: { label: "Rules and alerts", grant: "admin" },
} as const satisfies Record<string, { label: string; grant: Exclude<Access, "public"> }>;

/**
 * wrangler.toml [[ratelimits]] API_KEY_LIMITER's `limit`: the two must be changed together. Here,
 * shared with the web app, so Account states the same limit the X-RateLimit-Limit header sends.
 */
export const API_KEY_LIMIT_PER_MINUTE = 600;

export type ApiKeyResource = keyof typeof API_KEY_RESOURCES;
export const API_KEY_RESOURCE_NAMES = Object.keys(API_KEY_RESOURCES) as ApiKeyResource[];

/** `read` covers GET and HEAD; `write` every other method, and includes read. */
export const API_KEY_LEVELS = ["read", "write"] as const;
export type ApiKeyLevel = (typeof API_KEY_LEVELS)[number];
export type ApiKeyScope = `${ApiKeyResource}:${ApiKeyLevel}`;

export const API_KEY_SCOPES: readonly ApiKeyScope[] = API_KEY_RESOURCE_NAMES.flatMap((r) => API_KEY_LEVELS.map((l) => `${r}:${l}` as const));

/** Whether `scopes` allow `level` on `resource` (write includes read). */
export const scopeAllows = (scopes: readonly string[], resource: ApiKeyResource, level: ApiKeyLevel) =>
  scopes.includes(`${resource}:write`) || (level === "read" && scopes.includes(`${resource}:read`));

/** The longest expiry a key may be given; no expiry at all is also allowed. */
export const API_KEY_MAX_DAYS = 3650;
export const API_KEY_NAME_MAX = 80;

export const createApiKeySchema = z.object({
  name: z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(API_KEY_NAME_MAX, `Name must be at most ${API_KEY_NAME_MAX} characters`),
  scopes: z
    .array(z.enum(API_KEY_SCOPES as [ApiKeyScope, ...ApiKeyScope[]], { error: (issue) => `${String(issue.input)} is not a scope` }), {
      error: "Scopes must be a list",
    })
    .min(1, "Choose at least one scope")
    .max(API_KEY_SCOPES.length, "Too many scopes"),
  expiresInDays: z
    .number({ error: "expiresInDays must be a whole number of days" })
    .int("expiresInDays must be a whole number of days")
    .min(1, "expiresInDays must be at least 1")
    .max(API_KEY_MAX_DAYS, `expiresInDays must be at most ${API_KEY_MAX_DAYS}`)
    .nullable()
    .optional(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeySchema>;
