import { z } from "zod";

/** How long codes are kept when CODES_RETENTION_HOURS is unset or not a usable number. */
export const DEFAULT_RETENTION_HOURS = 72;

// A year at most: the inbox holds short-lived secrets, and a typo like "7200000" should not keep
// codes for centuries.
const retentionSchema = z.coerce
  .number()
  .positive()
  .max(24 * 366);

/** CODES_RETENTION_HOURS as a number of hours; invalid values fall back to the default. */
export function retentionHours(value: string | undefined): number {
  const parsed = retentionSchema.safeParse(value?.trim() || undefined);
  return parsed.success ? parsed.data : DEFAULT_RETENTION_HOURS;
}

const addressList = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((a) => a.trim().toLowerCase())
    .filter((a) => a !== "");

/**
 * CODES_RECIPIENTS: which recipient addresses the inbox takes. It fails closed: unset or empty
 * takes none (a deployed inbox must name its addresses, or anyone could plant a code every user
 * sees), `*` takes any (local development, where addresses are made up; `npm start` writes it
 * into .dev.vars), anything else is a comma-separated list, compared without case.
 */
export type RecipientRule = { kind: "none" } | { kind: "any" } | { kind: "list"; addresses: Set<string> };

export function acceptedRecipients(value: string | undefined): RecipientRule {
  const list = addressList(value);
  if (!list.length) return { kind: "none" };
  if (list.includes("*")) return { kind: "any" };
  return { kind: "list", addresses: new Set(list) };
}

export function recipientAccepted(rule: RecipientRule, to: string): boolean {
  if (rule.kind === "none") return false;
  return rule.kind === "any" || rule.addresses.has(to.trim().toLowerCase());
}

/**
 * CODES_SENDERS, optional: the forwarding mailboxes (envelope senders) the inbox takes mail from.
 * Unset or empty takes any sender. Entries are addresses (`team@gmail.com`, which also covers the
 * `team+caf_=...@gmail.com` form Gmail's auto-forwarding writes) or whole domains (`@example.com`).
 */
export function acceptedSenders(value: string | undefined): ((from: string) => boolean) | null {
  const list = addressList(value);
  if (!list.length) return null;
  const addresses = new Set(list.filter((a) => !a.startsWith("@")));
  const domains = new Set(list.filter((a) => a.startsWith("@")).map((a) => a.slice(1)));
  return (from) => {
    const address = from.trim().toLowerCase();
    const at = address.lastIndexOf("@");
    if (at <= 0) return false;
    const local = address.slice(0, at);
    const domain = address.slice(at + 1);
    return domains.has(domain) || addresses.has(address) || addresses.has(`${local.split("+")[0]}@${domain}`);
  };
}
