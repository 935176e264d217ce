import { z } from "zod";

/** Domain automation buys .xyz names only (README, "Domain automation"). */
export const SUPPORTED_TLD = "xyz";
export const DEFAULT_SUBDOMAIN = "trk";

export const DOMAIN_MESSAGES = {
  required: "Domain name is required",
  format: "Invalid domain format (e.g., example.com, example.co.uk)",
  tld: "Only .xyz domains are supported",
  subdomainInName: "Enter the domain itself, like brightdeals.xyz: the tracking subdomain is chosen when you configure DNS",
} as const;

export const SUBDOMAIN_MESSAGES = {
  required: "Subdomain is required",
  format: "Invalid subdomain format (e.g., trk, go, click)",
} as const;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Dot-separated labels of lower-case letters, digits and hyphens, ending in 2+ letters. */
export const isDomainName = (v: string) => v.length <= 253 && /^[a-z0-9.-]+\.[a-z]{2,}$/.test(v) && v.split(".").every((l) => LABEL.test(l));

// Names are compared and stored in lower case; surrounding spaces are dropped.
const normalised = z.string({ error: DOMAIN_MESSAGES.required }).transform((v) => v.trim().toLowerCase());

/** A domain we can buy: a valid name, .xyz, and the registrable name itself (no subdomain). */
export const domainNameSchema = normalised
  .refine((v) => v.length > 0, { message: DOMAIN_MESSAGES.required, abort: true })
  .refine((v) => v.length === 0 || isDomainName(v), { message: DOMAIN_MESSAGES.format, abort: true })
  .refine((v) => v.endsWith(`.${SUPPORTED_TLD}`), { message: DOMAIN_MESSAGES.tld, abort: true })
  .refine((v) => v.split(".").length === 2, DOMAIN_MESSAGES.subdomainInName);

export const subdomainSchema = z
  .string({ error: SUBDOMAIN_MESSAGES.required })
  .transform((v) => v.trim().toLowerCase())
  .refine((v) => v.length > 0, { message: SUBDOMAIN_MESSAGES.required, abort: true })
  .refine((v) => LABEL.test(v), SUBDOMAIN_MESSAGES.format);

export const domainBodySchema = z.object({ domain: domainNameSchema });
export type DomainBody = z.input<typeof domainBodySchema>;

export const PURCHASE_PRICE_MESSAGE = "price must be the first-year price you confirmed, as Check Availability answered it (e.g. 1.36)";

/**
 * POST /api/domains/purchase: the name and the first-year price the admin confirmed. The server
 * buys only at that price (409 when Namecheap's fresh price differs).
 */
export const purchaseBodySchema = domainBodySchema.extend({
  price: z
    .string({ error: PURCHASE_PRICE_MESSAGE })
    .trim()
    .regex(/^\d{1,6}(\.\d{1,2})?$/, PURCHASE_PRICE_MESSAGE),
});
export type PurchaseBody = z.input<typeof purchaseBodySchema>;

export const configureBodySchema = z.object({ subdomain: subdomainSchema.default(DEFAULT_SUBDOMAIN) });
export type ConfigureBody = z.input<typeof configureBodySchema>;

/** Bodies of the calls that take none (spec: an empty object). */
export const emptyBodySchema = z.object({}).optional();
