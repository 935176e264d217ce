import { z } from "zod";
import { calendarDate, dayNumber } from "./calendar-date";
import { blankIsNone } from "./common";

/**
 * What an audit entry is about. `domain` is for the domain purchase and configuration routes.
 * Adding a kind here makes it filterable on the Audit screen.
 */
export const AUDIT_KINDS = [
  "user",
  "session",
  "setting",
  "lander",
  "offer",
  "campaign",
  "spark",
  "invoice",
  "statement",
  "sync",
  "domain",
  "channel",
  "rule",
  "api_key",
  "webhook",
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AUDIT_KIND_LABELS: Record<AuditKind, string> = {
  user: "Users",
  session: "Sign-ins",
  setting: "Settings",
  lander: "Landers",
  offer: "Offers",
  campaign: "Campaigns",
  spark: "Sparks",
  invoice: "Invoices",
  statement: "Statements",
  sync: "Syncs",
  domain: "Domains",
  channel: "Alert channels",
  rule: "Rules",
  api_key: "API keys",
  webhook: "Webhooks",
};

export const AUDIT_PAGE_SIZE = 50;
/** How long entries are kept (the cron deletes older ones), and so the longest range worth asking for. */
export const AUDIT_RETENTION_DAYS = 400;

const filters = {
  userId: blankIsNone(z.string().uuid("userId must be a user id")),
  entityKind: blankIsNone(z.enum(AUDIT_KINDS, { error: `entityKind must be one of ${AUDIT_KINDS.join(", ")}` })),
  startDate: blankIsNone(calendarDate("startDate")),
  endDate: blankIsNone(calendarDate("endDate")),
};

type Range = { startDate?: string; endDate?: string };
const inOrder = (v: Range) => !v.startDate || !v.endDate || v.startDate <= v.endDate;
const notTooLong = (v: Range) => !v.startDate || !v.endDate || dayNumber(v.endDate) - dayNumber(v.startDate) < AUDIT_RETENTION_DAYS;
const ORDER = { message: "startDate must not be after endDate", path: ["startDate"] };
const LENGTH = { message: `The date range can be at most ${AUDIT_RETENTION_DAYS} days: the audit log keeps no more`, path: ["endDate"] };

/** The CSV export's filters. startDate and endDate are days in the report time zone, both included; an empty one is no filter. */
export const auditExportQuery = z.object(filters).refine(inOrder, ORDER).refine(notTooLong, LENGTH);

export const auditListQuery = z
  .object({
    ...filters,
    page: blankIsNone(
      z.coerce
        .number({ error: "page must be a whole number from 1" })
        .int("page must be a whole number from 1")
        .min(1, "page must be a whole number from 1")
        .max(100_000, "page must be a whole number from 1"),
    ).transform((v) => v ?? 1),
  })
  .refine(inOrder, ORDER)
  .refine(notTooLong, LENGTH);
