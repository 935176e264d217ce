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
 * Unset or empty takes any sender, and says so (SENDERS_UNSET); `*` takes any sender as a choice
 * (local development: `npm start` writes it into .dev.vars). Entries are addresses
 * (`team@gmail.com`, which also covers the `team+caf_=...@gmail.com` form Gmail's auto-forwarding
 * writes) or whole domains (`@example.com`). Null: any sender.
 */
export function acceptedSenders(value: string | undefined): ((from: string) => boolean) | null {
  const list = addressList(value);
  if (!list.length || list.includes("*")) return null;
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

/** CODES_SENDERS names no sender and no `*`: any sender gets in without anyone having chosen that. */
export const sendersUnset = (value: string | undefined) => addressList(value).length === 0;

/** What an empty CODES_RECIPIENTS does, and what to set. */
export const RECIPIENTS_EMPTY =
  "CODES_RECIPIENTS is empty: set it to the inbox addresses (comma-separated), or to * to accept any address; until then every message is rejected";
/** What an unset CODES_SENDERS lets through, and what to set. */
export const SENDERS_UNSET =
  "CODES_SENDERS is not set, so mail from any sender is accepted and anyone who learns the inbox address can plant a code: set it to the forwarding mailboxes (comma-separated, or @domain for a whole domain), or to * to accept any sender";

/**
 * The inbox settings an admin should fix, in words: the handler logs them with every message they
 * concern, and the Codes screen shows them to admins (`GET /api/codes/setup`).
 */
export function inboxWarnings(env: { CODES_RECIPIENTS?: string; CODES_SENDERS?: string }): string[] {
  const warnings: string[] = [];
  if (acceptedRecipients(env.CODES_RECIPIENTS).kind === "none") warnings.push(RECIPIENTS_EMPTY);
  if (sendersUnset(env.CODES_SENDERS)) warnings.push(SENDERS_UNSET);
  return warnings;
}
