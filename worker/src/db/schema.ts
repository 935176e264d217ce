/**
 * The whole Trackyard data model (docs/screens.md §3 plus sessions and login throttling).
 *
 * Conventions (docs/product-rules.md):
 * - ids: `users.id` is a UUID (docs/screens.md §3); every other table uses an integer primary key
 *   (SQLite's rowid: the smallest and fastest key for the high-volume tables like clicks).
 *   `sessions.id` is the one exception: a random token, because it travels in the cookie.
 * - money is integer cents (`*_cents`), revenue share is basis points; the API speaks decimal strings.
 * - instants are integer epoch milliseconds (`*_at`); calendar dates are `YYYY-MM-DD` text.
 * - D1 always enforces foreign keys, so the cascade / set-null rules below are real.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CHANNEL_KINDS, type AlertTarget, type ChannelDelivery } from "../schemas/alerts";
import {
  RULE_ACTIONS,
  RULE_ACTS,
  RULE_FIRING_STATUSES,
  RULE_WINDOW_UNITS,
  type AdGroupOutcome,
  type RuleCondition,
  type RuleFigures,
  type RuleScope,
} from "../schemas/rules";
import type { PathWeights } from "../schemas/paths";
import type { WebhookEventType } from "../schemas/webhooks";

const nowMs = sql`(cast(unixepoch('subsec') * 1000 as integer))`;
const createdAt = () => integer("created_at").notNull().default(nowMs);

export const ROLES = ["user", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    username: text("username").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ROLES }).notNull().default("user"),
    createdAt: createdAt(),
    // Two-factor sign-in (TOTP, auth/two-factor.ts). Secrets are AES-GCM ciphertext, never plain.
    /** The confirmed TOTP secret; null: two-factor sign-in is off. */
    totpSecret: text("totp_secret"),
    /** A secret being set up, until its first code confirms it. */
    totpPendingSecret: text("totp_pending_secret"),
    totpEnabledAt: integer("totp_enabled_at"),
    /** The last 30-second time step a code was accepted for: a code is good once (no replay). */
    totpLastStep: integer("totp_last_step"),
  },
  (t) => [uniqueIndex("users_username_unique").on(sql`lower(${t.username})`)],
);

/** One-time recovery codes for two-factor sign-in, kept as keyed hashes only. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("recovery_codes_user_hash_unique").on(t.userId, t.codeHash)],
);

/**
 * What a session may do: `active` is signed in; `second-factor` has passed the password and may
 * only send its code (for a few minutes); `enroll` is signed in but may only set up two-factor
 * sign-in, which an admin requires of everyone.
 */
export const SESSION_STAGES = ["active", "second-factor", "enroll"] as const;
export type SessionStage = (typeof SESSION_STAGES)[number];

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    stage: text("stage", { enum: SESSION_STAGES }).notNull().default("active"),
    /** The last request it made (kept to the minute): it ends after the idle time without one (auth/session.ts). */
    lastSeenAt: integer("last_seen_at"),
    /** When its user last gave their password (and code) again: admin changes to others need this within 5 minutes. */
    reauthenticatedAt: integer("reauthenticated_at"),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/**
 * Personal API keys (docs/accounts-security.md "API keys"): a key acts as its user through the
 * access table, narrowed to its scopes. Only the SHA-256 digest of the key is stored, with its
 * first characters (`prefix`) so its owner can recognise it; the key itself is shown once.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Hex SHA-256 of the whole key. */
    digest: text("digest").notNull(),
    prefix: text("prefix").notNull(),
    /** `resource:read` / `resource:write` (schemas/api-keys.ts). */
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: createdAt(),
    /** Null: never expires. */
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    /** Written at most once a minute per key and isolate (auth/api-key.ts). */
    lastUsedAt: integer("last_used_at"),
    lastUsedIp: text("last_used_ip"),
  },
  (t) => [uniqueIndex("api_keys_digest_unique").on(t.digest), index("api_keys_user_idx").on(t.userId)],
);

/** Every address a key was used from: the first use from a new one is audited. */
export const apiKeyAddresses = sqliteTable(
  "api_key_addresses",
  {
    keyId: integer("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    ip: text("ip").notNull(),
    firstUsedAt: integer("first_used_at").notNull(),
  },
  (t) => [uniqueIndex("api_key_addresses_key_ip_unique").on(t.keyId, t.ip)],
);

/** Failed sign-ins only: the throttle counts these per username and per IP over 15 minutes. */
export const loginAttempts = sqliteTable(
  "login_attempts",
  {
    id: integer("id").primaryKey(),
    username: text("username").notNull(),
    ip: text("ip").notNull(),
    attemptedAt: integer("attempted_at").notNull(),
  },
  (t) => [index("login_attempts_username_idx").on(t.username, t.attemptedAt), index("login_attempts_ip_idx").on(t.ip, t.attemptedAt)],
);

export const FEATURES = ["dashboard", "offers", "campaigns", "landers", "clicks", "sparks", "performance"] as const;
export type Feature = (typeof FEATURES)[number];

export const userPermissions = sqliteTable(
  "user_permissions",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    feature: text("feature", { enum: FEATURES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_permissions_user_feature_unique").on(t.userId, t.feature)],
);

export const userDashboardPreferences = sqliteTable("user_dashboard_preferences", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  visibleColumns: text("visible_columns", { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  columnWidths: text("column_widths", { mode: "json" })
    .$type<Record<string, number>>()
    .notNull()
    .default(sql`'{}'`),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

export const sparks = sqliteTable("sparks", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  code: text("code").notNull(),
  sparkId: text("spark_id").notNull().unique(),
  createdAt: createdAt(),
});

export const userSparkAssignments = sqliteTable(
  "user_spark_assignments",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sparkId: integer("spark_id")
      .notNull()
      .references(() => sparks.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_spark_assignments_unique").on(t.userId, t.sparkId)],
);

/** Media buyers are CAKE sub1 values; a member sees the stats of the ones assigned here. */
export const userSubid1Assignments = sqliteTable(
  "user_subid1_assignments",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    subid1: text("subid1").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_subid1_assignments_unique").on(t.userId, t.subid1)],
);

export const userVcnAssignments = sqliteTable(
  "user_vcn_assignments",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    vcnNickname: text("vcn_nickname").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_vcn_assignments_unique").on(t.userId, t.vcnNickname)],
);

/** Affiliate-network stats, one row per (date, offer, sub1 media buyer, sub2 click id, sub3 spark id). */
export const cakeStats = sqliteTable(
  "cake_stats",
  {
    id: integer("id").primaryKey(),
    date: text("date").notNull(),
    offerId: integer("offer_id").notNull().default(0),
    offerName: text("offer_name").notNull().default(""),
    subid1: text("subid1").notNull().default(""),
    subid2: text("subid2").notNull().default(""),
    subid3: text("subid3").notNull().default(""),
    clicks: integer("clicks").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    revenueCents: integer("revenue_cents").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("cake_stats_key_unique").on(t.date, t.offerId, t.subid1, t.subid2, t.subid3),
    index("cake_stats_date_idx").on(t.date),
    // Whether CAKE reported a click: the move of D1's clicks copies those it reports (tracking/click-move.ts).
    index("cake_stats_subid2_idx")
      .on(t.subid2)
      .where(sql`subid2 <> ''`),
  ],
);

export const verificationCodes = sqliteTable(
  "verification_codes",
  {
    id: integer("id").primaryKey(),
    code: text("code").notNull(),
    subject: text("subject").notNull().default(""),
    sender: text("sender").notNull().default(""),
    /** The message's Message-ID, so a message delivered twice is stored once. */
    messageId: text("message_id").unique(),
    receivedAt: integer("received_at").notNull(),
    extractedAt: integer("extracted_at").notNull(),
  },
  (t) => [index("verification_codes_received_idx").on(t.receivedAt)],
);

export const TRANSACTION_STATUSES = ["PENDING", "CLEARED", "DECLINED"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const transactions = sqliteTable(
  "transactions",
  {
    id: integer("id").primaryKey(),
    registeredCardLast4: text("registered_card_last4").notNull(),
    fundingSource: text("funding_source"),
    typeOfAccount: text("type_of_account"),
    transactionDate: text("transaction_date"),
    clearDate: text("clear_date"),
    type: text("type"),
    status: text("status", { enum: TRANSACTION_STATUSES }).notNull(),
    nameOnCard: text("name_on_card"),
    authBillingAmountCents: integer("auth_billing_amount_cents"),
    merchantName: text("merchant_name"),
    merchantCity: text("merchant_city"),
    merchantState: text("merchant_state"),
    vcnNickname: text("vcn_nickname"),
    vcnLast4: text("vcn_last4"),
    referenceId: text("reference_id"),
    /** Reference Id, or card/VCN/date/amount/merchant when the export has none (docs/product-rules.md). */
    dedupeKey: text("dedupe_key").notNull().unique(),
    uploadedAt: integer("uploaded_at").notNull().default(nowMs),
  },
  (t) => [
    index("transactions_status_idx").on(t.status),
    index("transactions_vcn_last4_idx").on(t.vcnLast4),
    index("transactions_vcn_nickname_date_idx").on(t.vcnNickname, t.transactionDate),
    index("transactions_date_idx").on(t.transactionDate),
  ],
);

/**
 * A large statement upload in progress (billing/import-statement.ts): its rows are staged here as
 * they are read, one per transaction the file changes (`row`: the transactions row as a JSON
 * array, the file's last change of it; `first_line`: where the file first changed it, the order of
 * the write), and applied to `transactions` in one atomic batch that also deletes them. A failed
 * upload deletes its rows; the cron deletes what an upload cut off left behind.
 */
export const statementImportRows = sqliteTable(
  "statement_import_rows",
  {
    id: integer("id").primaryKey(),
    uploadId: text("upload_id").notNull(),
    dedupeKey: text("dedupe_key").notNull(),
    firstLine: integer("first_line").notNull(),
    row: text("row").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("statement_import_rows_upload_key").on(t.uploadId, t.dedupeKey), index("statement_import_rows_created_idx").on(t.createdAt)],
);

export const landers = sqliteTable("landers", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url").notNull(),
  createdAt: createdAt(),
});

export const offers = sqliteTable("offers", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url").notNull(),
  utmTemplate: text("utm_template").notNull(),
  createdAt: createdAt(),
});

export const DOMAIN_STATUSES = ["pending", "purchasing", "purchased", "configuring_dns", "active", "dns_failed", "failed"] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

export const domains = sqliteTable("domains", {
  id: integer("id").primaryKey(),
  domain: text("domain").notNull().unique(),
  subdomain: text("subdomain"),
  status: text("status", { enum: DOMAIN_STATUSES }).notNull().default("pending"),
  purchaseOrderId: text("purchase_order_id"),
  purchaseAmountCents: integer("purchase_amount_cents"),
  cloudflareZoneId: text("cloudflare_zone_id"),
  cloudflareRecordId: text("cloudflare_record_id"),
  nameservers: text("nameservers", { mode: "json" }).$type<string[]>(),
  errorMessage: text("error_message"),
  purchasedAt: integer("purchased_at"),
  configuredAt: integer("configured_at"),
  createdAt: createdAt(),
  // Domain automation's bookkeeping (worker/src/domains/machine.ts is the only writer).
  /** When the running purchase was sent: an unconfirmed one is given up only well after this. */
  purchaseStartedAt: integer("purchase_started_at"),
  /** The Workers Custom Domain attached for `subdomain.domain`. */
  workerDomainId: text("worker_domain_id"),
  /** The zone's status at Cloudflare when last seen (pending, active, ...). */
  zoneStatus: text("zone_status"),
  /** The last activation re-check asked of Cloudflare: it allows one an hour on the Free plan. */
  activationCheckedAt: integer("activation_checked_at"),
  /** A step holds the row until then, so two clicks never run the same step at once. */
  leaseUntil: integer("lease_until"),
  // The domains check's readings (worker/src/domains/health.ts, written through the machine), which
  // the built-in alert "Tracking domain expiring or detached" reads (docs/alerts.md).
  /** When the registration runs out, as Namecheap's domain list last said. */
  expiresAt: integer("expires_at"),
  /** Since when the check has found the tracking hostname missing from the Worker's custom domains; null while attached. */
  detachedAt: integer("detached_at"),
  /** The domains check's last look at this domain. */
  healthCheckedAt: integer("health_checked_at"),
});

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: integer("id").primaryKey(),
    name: text("name").notNull(),
    landerId: integer("lander_id")
      .notNull()
      .references(() => landers.id, { onDelete: "cascade" }),
    offerId: integer("offer_id").references(() => offers.id, { onDelete: "set null" }),
    domainId: integer("domain_id").references(() => domains.id, { onDelete: "set null" }),
    bhToggle: integer("bh_toggle", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    /** The CAKE sub1 value the offer template's {mediaBuyer} carries; null: none (docs/product-rules.md "Offer templates and attribution"). */
    mediaBuyer: text("media_buyer"),
    /** The spark whose sparkId {spark} carries. Deleting the spark leaves the campaign running without one. */
    sparkId: integer("spark_id").references(() => sparks.id, { onDelete: "set null" }),
  },
  (t) => [index("campaigns_lander_idx").on(t.landerId), index("campaigns_offer_idx").on(t.offerId), index("campaigns_spark_idx").on(t.sparkId)],
);

/** Kept for the data model's completeness; docs/product-rules.md: no disguised pages are generated. */
export const generatedWebsites = sqliteTable("generated_websites", {
  id: integer("id").primaryKey(),
  campaignId: integer("campaign_id")
    .notNull()
    .unique()
    .references(() => campaigns.id, { onDelete: "cascade" }),
  storeName: text("store_name").notNull(),
  storeType: text("store_type").notNull(),
  htmlContent: text("html_content").notNull(),
  generatedAt: integer("generated_at").notNull().default(nowMs),
});

export const SETTING_KEYS = ["redirect_domain", "global_exit_domain", "max_domain_price", "report_timezone", "session_idle_hours"] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

/** A raw click's columns: D1's `clicks`, and the copies in `attributed_clicks`. */
const clickColumns = () => ({
  id: integer("id").primaryKey(),
  clickId: text("click_id").notNull().unique(),
  campaignId: integer("campaign_id")
    .notNull()
    .references(() => campaigns.id, { onDelete: "cascade" }),
  tiktokCampaignId: text("tiktok_campaign_id"),
  tiktokAdGroupId: text("tiktok_ad_group_id"),
  tiktokCreativeId: text("tiktok_creative_id"),
  placement: text("placement"),
  campaignName: text("campaign_name"),
  adGroupName: text("ad_group_name"),
  creativeName: text("creative_name"),
  ipAddress: text("ip_address"),
  userAgent: text("user_agent"),
  clickedAt: integer("clicked_at").notNull(),
  exitedAt: integer("exited_at"),
  /** TikTok's click id (the `__CLICKID__` macro, or the `ttclid` TikTok appends), cut to 1,000 characters. */
  ttclid: text("ttclid"),
  /** From Cloudflare's request properties (`request.cf`); null where there are none (local runs). */
  country: text("country"),
  region: text("region"),
  city: text("city"),
  asn: integer("asn"),
  asOrganization: text("as_organization"),
  /** Parsed from the user agent when the click batch is written (tracking/user-agent.ts), never on /r/. */
  deviceType: text("device_type"),
  os: text("os"),
  browser: text("browser"),
  /** Flagged (tracking/bots.ts), never treated differently: every visitor gets the same redirect. */
  bot: integer("bot", { mode: "boolean" }).notNull().default(false),
  botReason: text("bot_reason"),
  /**
   * The traffic distribution's choice for this click (docs/traffic-distribution.md): its path, lander
   * and offer. Null on clicks from before paths existed and on a campaign's implicit default path.
   * Not foreign keys: a click is history, and deleting a path (or, later, a lander) must not
   * rewrite millions of rows; the stats name a gone one "deleted".
   */
  pathId: integer("path_id"),
  landerId: integer("lander_id"),
  offerId: integer("offer_id"),
});

export const clicks = sqliteTable("clicks", clickColumns(), (t) => [
  index("clicks_clicked_at_idx").on(t.clickedAt),
  index("clicks_campaign_clicked_at_idx").on(t.campaignId, t.clickedAt),
  // The click rollup finds the exits since its last run here. Partial, so recording a click
  // (exitedAt still null) does not write to it.
  index("clicks_exited_at_idx")
    .on(t.exitedAt)
    .where(sql`exited_at is not null`),
]);

/**
 * Copies of the shard-day clicks CAKE reports (its sub2 is our click id), made when the postback or
 * the pull sees them (tracking/attributed-clicks.ts), so the CAKE attribution and the Events API
 * join a click by its id in D1 as they join `clicks`
 * (docs/click-storage.md "Exits, postbacks and conversions sent to TikTok"). Only the clicks that
 * reached an offer and that CAKE reported; they are deleted with the kept days, and with their
 * campaign.
 */
export const attributedClicks = sqliteTable("attributed_clicks", clickColumns(), (t) => [index("attributed_clicks_clicked_at_idx").on(t.clickedAt)]);

export const tiktokSpend = sqliteTable(
  "tiktok_spend",
  {
    id: integer("id").primaryKey(),
    date: text("date").notNull(),
    tiktokCampaignId: text("tiktok_campaign_id").notNull(),
    campaignName: text("campaign_name").notNull().default(""),
    spendCents: integer("spend_cents").notNull().default(0),
    impressions: integer("impressions").notNull().default(0),
    clicks: integer("clicks").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    syncedAt: integer("synced_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("tiktok_spend_date_campaign_unique").on(t.date, t.tiktokCampaignId), index("tiktok_spend_date_idx").on(t.date)],
);

export const landerClicks = sqliteTable(
  "lander_clicks",
  {
    id: integer("id").primaryKey(),
    clickId: text("click_id")
      .notNull()
      .references(() => clicks.clickId, { onDelete: "cascade" }),
    offerId: integer("offer_id")
      .notNull()
      .references(() => offers.id, { onDelete: "cascade" }),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    clickedAt: integer("clicked_at").notNull(),
  },
  (t) => [index("lander_clicks_click_idx").on(t.clickId), index("lander_clicks_offer_idx").on(t.offerId)],
);

export const invoices = sqliteTable(
  "invoices",
  {
    id: integer("id").primaryKey(),
    mediaBuyer: text("media_buyer").notNull(),
    amountPaidCents: integer("amount_paid_cents").notNull(),
    revenueShareBps: integer("revenue_share_bps").notNull(),
    profitCents: integer("profit_cents").notNull(),
    invoiceDate: text("invoice_date").notNull(),
    notes: text("notes"),
    createdAt: createdAt(),
  },
  (t) => [index("invoices_date_idx").on(t.invoiceDate)],
);

// ---------------------------------------------------------------------------------------------
// Performance data coming in (docs/data.md "Performance stats"): CAKE and TikTok syncs, the conversion postback, and the
// daily rollups the stats report reads so a 30-day report never scans raw clicks.
// ---------------------------------------------------------------------------------------------

export const SYNC_SOURCES = ["cake", "tiktok"] as const;
export type SyncSource = (typeof SYNC_SOURCES)[number];
export const SYNC_TRIGGERS = ["cron", "manual"] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];
/** `skipped`: another run of the same source was still going; `not_configured`: no call was made. */
export const SYNC_STATUSES = ["running", "ok", "error", "not_configured", "skipped"] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** One row per sync attempt of a data source: what the admin's sync status shows. */
export const syncRuns = sqliteTable(
  "sync_runs",
  {
    id: integer("id").primaryKey(),
    source: text("source", { enum: SYNC_SOURCES }).notNull(),
    trigger: text("trigger", { enum: SYNC_TRIGGERS }).notNull(),
    status: text("status", { enum: SYNC_STATUSES }).notNull(),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
    /** The calendar days the run asked the source for (inclusive). */
    windowStart: text("window_start"),
    windowEnd: text("window_end"),
    /** Records the source answered with (conversions + clicks, or report rows). */
    rowsFetched: integer("rows_fetched").notNull().default(0),
    /** Rows the run wrote to cake_stats / tiktok_spend (inserted or updated). */
    rowsUpserted: integer("rows_upserted").notNull().default(0),
    error: text("error"),
    /**
     * When a run carried on in steps (sync/cake-pull-workflow.ts) last showed it is going: such a
     * run outlives the invocation that started it, and is stale only once its steps stop.
     */
    heartbeatAt: integer("heartbeat_at"),
  },
  (t) => [index("sync_runs_source_started_idx").on(t.source, t.startedAt)],
);

export const CAKE_CONVERSION_SOURCES = ["pull", "postback"] as const;
export type CakeConversionSource = (typeof CAKE_CONVERSION_SOURCES)[number];

/**
 * Every CAKE conversion we know of, keyed by the network's conversion id, so one conversion is
 * counted once whether the postback or the report pull saw it first. cake_stats' conversions and
 * revenue are the sum of the `counted` rows per key; its clicks come from the pulled click report.
 *
 * - `pull` rows mirror the last report that saw them (a rejected disposition is not counted).
 * - `postback` rows are live previews: counted until a pull reports the same id (the row becomes
 *   a `pull` row), or until they are retired (`retiredReason`: the pull reported a conversion for
 *   the same offer and click under another id, or a pull covering their day ran well after them).
 */
export const cakeConversions = sqliteTable(
  "cake_conversions",
  {
    id: integer("id").primaryKey(),
    conversionId: text("conversion_id").notNull().unique(),
    source: text("source", { enum: CAKE_CONVERSION_SOURCES }).notNull(),
    date: text("date").notNull(),
    offerId: integer("offer_id").notNull().default(0),
    offerName: text("offer_name").notNull().default(""),
    subid1: text("subid1").notNull().default(""),
    subid2: text("subid2").notNull().default(""),
    subid3: text("subid3").notNull().default(""),
    revenueCents: integer("revenue_cents").notNull().default(0),
    disposition: text("disposition").notNull().default(""),
    counted: integer("counted", { mode: "boolean" }).notNull(),
    postbackAt: integer("postback_at"),
    pulledAt: integer("pulled_at"),
    pullRunId: integer("pull_run_id"),
    retiredAt: integer("retired_at"),
    retiredReason: text("retired_reason", { enum: ["same-click", "grace"] }),
    /** When its `conversion.created` webhook event was emitted (webhooks/emit.ts): set once, so a re-pull sends nothing again. */
    webhookAt: integer("webhook_at"),
  },
  (t) => [
    index("cake_conversions_date_idx").on(t.date, t.offerId, t.subid1, t.subid2, t.subid3),
    index("cake_conversions_click_idx").on(t.offerId, t.subid2),
    // As cake_stats_subid2_idx: the move of D1's clicks copies those CAKE converted.
    index("cake_conversions_subid2_idx")
      .on(t.subid2)
      .where(sql`subid2 <> ''`),
  ],
);

/** A CAKE report row's key (day, offer, sub ids) and its offer's name, as a pull stages it. */
const cakeRowKeyColumns = () => ({
  date: text("date").notNull(),
  offerId: integer("offer_id").notNull(),
  offerName: text("offer_name").notNull(),
  subid1: text("subid1").notNull(),
  subid2: text("subid2").notNull(),
  subid3: text("subid3").notNull(),
});

/**
 * A row of CAKE's click report as the pull keeps it: its key and its clicks. The pull's staging
 * here, and the rows a shard-day object keeps of its own clicks (tracking/click-shard.ts
 * `cakeClicks`).
 */
export const cakeClickRowColumns = () => ({ ...cakeRowKeyColumns(), clicks: integer("clicks").notNull() });

/**
 * Scratch space of one CAKE sync: the pulled click aggregate, written and emptied inside the
 * sync's single atomic batch, so set-based SQL can rebuild the window. Empty between batches.
 */
export const cakeSyncStaging = sqliteTable(
  "cake_sync_staging",
  { id: integer("id").primaryKey(), runId: integer("run_id").notNull(), ...cakeClickRowColumns() },
  (t) => [uniqueIndex("cake_sync_staging_key_unique").on(t.runId, t.date, t.offerId, t.subid1, t.subid2, t.subid3)],
);

/**
 * cake_stats rolled up per CAKE day over the dimensions of the click each row came from
 * (cake_stats.subid2 = clicks.clickId): the stats report's revenue source. Rows grow with the
 * distinct (campaign, ad, placement, offer, media buyer, spark) combinations of a day, never with
 * clicks. `campaignId` 0 means no click of ours matched (the report's "Direct"); the ad-platform
 * fields are '' when unknown. Rebuilt for the synced days by every CAKE sync, and bumped by
 * each new postback.
 */
export const cakeAttributedDaily = sqliteTable(
  "cake_attributed_daily",
  {
    id: integer("id").primaryKey(),
    date: text("date").notNull(),
    campaignId: integer("campaign_id").notNull().default(0),
    tiktokCampaignId: text("tiktok_campaign_id").notNull().default(""),
    tiktokAdGroupId: text("tiktok_ad_group_id").notNull().default(""),
    tiktokCreativeId: text("tiktok_creative_id").notNull().default(""),
    placement: text("placement").notNull().default(""),
    campaignName: text("campaign_name").notNull().default(""),
    adGroupName: text("ad_group_name").notNull().default(""),
    creativeName: text("creative_name").notNull().default(""),
    offerId: integer("offer_id").notNull().default(0),
    offerName: text("offer_name").notNull().default(""),
    subid1: text("subid1").notNull().default(""),
    subid3: text("subid3").notNull().default(""),
    clicks: integer("clicks").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    revenueCents: integer("revenue_cents").notNull().default(0),
  },
  (t) => [
    uniqueIndex("cake_attributed_daily_key_unique").on(
      t.date,
      t.campaignId,
      t.tiktokCampaignId,
      t.tiktokAdGroupId,
      t.tiktokCreativeId,
      t.placement,
      t.campaignName,
      t.adGroupName,
      t.creativeName,
      t.offerId,
      t.subid1,
      t.subid3,
    ),
  ],
);

/**
 * Our own clicks per report day (the report_timezone setting) and click dimensions: the stats
 * report's Link Clicks / Exit Clicks / Lander CTR and its spend attribution, without scanning
 * clicks. Ad-platform fields are '' when the click carried none (NULL would defeat the unique
 * key). `exits` counts the exits of the row's clicks (on the click's day, not the exit's).
 * Filled by the cron's click rollup (worker/src/jobs/roll-up-clicks.ts), never by the visitor's
 * request; click_rollup_state says how far it got.
 */
export const clickDailyStats = sqliteTable(
  "click_daily_stats",
  {
    id: integer("id").primaryKey(),
    date: text("date").notNull(),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    tiktokCampaignId: text("tiktok_campaign_id").notNull().default(""),
    tiktokAdGroupId: text("tiktok_ad_group_id").notNull().default(""),
    tiktokCreativeId: text("tiktok_creative_id").notNull().default(""),
    placement: text("placement").notNull().default(""),
    campaignName: text("campaign_name").notNull().default(""),
    adGroupName: text("ad_group_name").notNull().default(""),
    creativeName: text("creative_name").notNull().default(""),
    /** 1: bot-flagged clicks (kept apart so the report can leave them out). */
    bot: integer("bot").notNull().default(0),
    clicks: integer("clicks").notNull().default(0),
    exits: integer("exits").notNull().default(0),
  },
  (t) => [
    uniqueIndex("click_daily_stats_key_unique").on(
      t.date,
      t.campaignId,
      t.tiktokCampaignId,
      t.tiktokAdGroupId,
      t.tiktokCreativeId,
      t.placement,
      t.campaignName,
      t.adGroupName,
      t.creativeName,
      t.bot,
    ),
    index("click_daily_stats_campaign_idx").on(t.campaignId, t.date),
  ],
);

/**
 * How far click_daily_stats has got (one row, id 1). It holds exactly the clicks with
 * `id <= clickWatermark`, and of their exits those with `exitedAt <= exitWatermark`, counted on
 * `timeZone`'s days. The report adds the rest from `clicks` (a small read: the clicks and exits
 * since the last run). `anchorClickId` is the clickId of row `clickWatermark`: clicks has no
 * AUTOINCREMENT, so if the newest rolled clicks are deleted (a campaign deleted) their ids can be
 * handed out again, and a changed anchor is how that is noticed (the rollup is then rebuilt).
 */
export const clickRollupState = sqliteTable("click_rollup_state", {
  id: integer("id").primaryKey(),
  timeZone: text("time_zone").notNull(),
  clickWatermark: integer("click_watermark").notNull().default(0),
  anchorClickId: text("anchor_click_id"),
  exitWatermark: integer("exit_watermark").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * How many shard-day objects each UTC day's clicks are spread over
 * (docs/click-storage.md "The click id that names its shard"), days counted from 2020-01-01 as
 * layout-1 click ids count them. The cron fixes today's and tomorrow's count from
 * `CLICK_SHARDS_PER_DAY` (jobs/shard-days.ts) and never changes a day's count once set, so every
 * id a day handed out names one of that day's objects.
 * No row for a day: its clicks are D1's (`/r/` makes layout-0 ids). `emptiedAt` is set once the
 * retention has archived every click of the day to R2 and emptied each of its objects
 * (retention/shard-days.ts): from then on nothing reads or counts the day's objects.
 */
export const clickShardDays = sqliteTable("click_shard_days", {
  day: integer("day").primaryKey(),
  shards: integer("shards").notNull(),
  createdAt: integer("created_at").notNull(),
  emptiedAt: integer("emptied_at"),
});

/**
 * The highest id a table has given, kept past the row's deletion. SQLite gives a new row of a
 * table without AUTOINCREMENT the highest id + 1, so deleting the newest campaign and making one
 * gives its id again, and clicks that outlive their campaign (shard-day objects keep a deleted
 * campaign's clicks until the retention empties them: tracking/click-shard.ts) would read as the
 * new campaign's. A trigger of migration 0024 records each deleted campaign's id here, cascades
 * included; `insertCampaign` (db/queries/campaigns.ts) gives ids past it.
 */
export const retiredIds = sqliteTable("retired_ids", {
  tableName: text("table_name").primaryKey(),
  lastId: integer("last_id").notNull(),
});

/**
 * Which shard-day objects hold CAKE click report rows of a CAKE date (tracking/cake-shards.ts):
 * recorded before a pull writes them, so a later pull of that date asks those objects too, to
 * replace or sum their rows, however far the date is from the click's own day (a visitor who
 * reaches the offer days after the tracking link). Deleted with `cake_stats`' rows of the
 * archived days.
 */
export const cakeClickShards = sqliteTable(
  "cake_click_shards",
  {
    date: text("date").notNull(),
    day: integer("day").notNull(),
    shard: integer("shard").notNull(),
  },
  (t) => [primaryKey({ columns: [t.date, t.day, t.shard] })],
);

/**
 * The click report rows D1 keeps (every sub2 that names no stored shard-day) of a CAKE pull run in
 * steps (sync/cake-pull-workflow.ts), from each read step until the day's write step: a step's
 * result may hold 1 MiB, not a day of rows. Keyed by the step (`start` the first day of the days
 * it reads, `from_row` where it read from), so a step run again replaces its own rows.
 */
export const cakePullRows = sqliteTable(
  "cake_pull_rows",
  {
    runId: integer("run_id").notNull(),
    start: text("start").notNull(),
    fromRow: integer("from_row").notNull(),
    ...cakeClickRowColumns(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.start, t.fromRow, t.date, t.offerId, t.subid1, t.subid2, t.subid3] })],
);

/**
 * The conversions a CAKE pull read (sync/cake-sync.ts), page by page, until their days are written:
 * the write takes them from here in SQL, so no Worker holds a day's conversions at once (650,000
 * at the target, about 250 MB as objects against a Worker's 128 MB). One row per conversion id
 * of the run's days (`start` the first day of the days written together): a report paged while
 * it changes repeats a row, and the last one read wins. `from_row` is where the reading step began,
 * so a step run again replaces its own rows.
 */
export const cakePullConversions = sqliteTable(
  "cake_pull_conversions",
  {
    runId: integer("run_id").notNull(),
    start: text("start").notNull(),
    conversionId: text("conversion_id").notNull(),
    fromRow: integer("from_row").notNull(),
    ...cakeRowKeyColumns(),
    revenueCents: integer("revenue_cents").notNull(),
    disposition: text("disposition").notNull(),
    /** Whether the disposition counts (integrations/cake.ts `isCountedDisposition`), decided as the row is read. */
    counted: integer("counted", { mode: "boolean" }).notNull(),
    convertedAt: integer("converted_at"),
  },
  (t) => [primaryKey({ columns: [t.runId, t.start, t.conversionId] })],
);

/**
 * The move of D1's clicks into the legacy shard objects (tracking/click-move.ts, docs/click-storage.md
 * "Moving the existing clicks"): one row, id 1, written when the move starts. `point` is the
 * highest D1 click id moved: every click up to it is in its legacy object and gone from D1, and
 * the click rollup counts none of them again (click_shard_rollups' rows of the legacy day). `fromMs`
 * and `toMs` are the oldest and newest click times moved (null before the first), the span the
 * legacy objects hold clicks of. From the switch on, D1's new clicks (stragglers) take ids above
 * every id D1 has held (db/queries/clicks.ts `insertClicksOnce`), so the rollup's anchor may go.
 */
export const clickMoves = sqliteTable("click_moves", {
  id: integer("id").primaryKey(),
  startedAt: integer("started_at").notNull(),
  point: integer("point").notNull().default(0),
  moved: integer("moved").notNull().default(0),
  /**
   * Clicks left in D1 because their legacy object holds another click under the same id
   * (tracking/click-move.ts `moveClicksStep`): the move goes on past them.
   */
  kept: integer("kept").notNull().default(0),
  fromMs: integer("from_ms"),
  toMs: integer("to_ms"),
  /** The Workflow instance (ClickMoveWorkflow) last started to carry the move on. */
  runId: text("run_id"),
  /** Written by each step's batch with its point, so only that batch's own statements follow it. */
  stepToken: text("step_token"),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * How far the click rollup has counted each shard-day (jobs/roll-up-clicks.ts): the object's last
 * click rowid and exit time counted, as click_rollup_state holds them for D1's clicks. Emptied with
 * the rollup when it is rebuilt.
 */
export const clickShardRollups = sqliteTable(
  "click_shard_rollups",
  {
    day: integer("day").notNull(),
    shard: integer("shard").notNull(),
    clickWatermark: integer("click_watermark").notNull().default(0),
    exitWatermark: integer("exit_watermark").notNull().default(0),
    rolledAt: integer("rolled_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.shard] })],
);

/**
 * Who changed what (docs/accounts-security.md "Audit log"): one row per change an admin or member makes, written in
 * the same D1 batch as the change itself (audit/record.ts). `actorId` is not a foreign key, and the
 * username is copied, so the trail outlives a deleted user. `summary` is a short before → after,
 * never a password, secret or code. Kept 400 days (jobs/purge-audit.ts).
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey(),
    at: integer("at").notNull(),
    actorId: text("actor_id"),
    actorName: text("actor_name").notNull(),
    action: text("action").notNull(),
    entityKind: text("entity_kind").notNull(),
    entityId: text("entity_id"),
    summary: text("summary").notNull().default(""),
    ip: text("ip"),
  },
  (t) => [index("audit_log_at_idx").on(t.at), index("audit_log_actor_at_idx").on(t.actorId, t.at), index("audit_log_kind_at_idx").on(t.entityKind, t.at)],
);

// ---------------------------------------------------------------------------------------------
// Who clicked (docs/integrations.md "Conversions sent to TikTok"): audience rollups for the Country / Device / OS / Browser groupings, and
// the conversions sent back to TikTok's Events API.
// ---------------------------------------------------------------------------------------------

/**
 * The dimensions of a click the stats can group by one value at a time, as `dim` values of the
 * rollups: who clicked (country, device, OS, browser) and where traffic distribution sent them (its
 * path, lander, and lander × offer pair; docs/traffic-distribution.md "Reports").
 */
export const AUDIENCE_DIMS = ["country", "device", "os", "browser", "path", "lander", "landerOffer"] as const;
export type AudienceDim = (typeof AUDIENCE_DIMS)[number];

/**
 * Our clicks per report day, campaign, ad campaign and one audience value (`dim` = country,
 * device, os or browser; '' when unknown). One row per value rather than per combination, so rows
 * grow with the distinct values of a day, never with clicks. Kept by the same cron step as
 * click_daily_stats, under the same watermarks.
 */
export const clickAudienceDaily = sqliteTable(
  "click_audience_daily",
  {
    id: integer("id").primaryKey(),
    dim: text("dim", { enum: AUDIENCE_DIMS }).notNull(),
    date: text("date").notNull(),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    tiktokCampaignId: text("tiktok_campaign_id").notNull().default(""),
    value: text("value").notNull().default(""),
    bot: integer("bot").notNull().default(0),
    clicks: integer("clicks").notNull().default(0),
    exits: integer("exits").notNull().default(0),
  },
  (t) => [uniqueIndex("click_audience_daily_key_unique").on(t.dim, t.date, t.campaignId, t.tiktokCampaignId, t.value, t.bot)],
);

/**
 * CAKE's figures per CAKE day over one audience value of the click each row came from (sub2 =
 * clickId; `campaignId` 0 = no click of ours, the report's "Direct"). Rebuilt and bumped with
 * cake_attributed_daily.
 */
export const cakeAudienceDaily = sqliteTable(
  "cake_audience_daily",
  {
    id: integer("id").primaryKey(),
    dim: text("dim", { enum: AUDIENCE_DIMS }).notNull(),
    date: text("date").notNull(),
    campaignId: integer("campaign_id").notNull().default(0),
    tiktokCampaignId: text("tiktok_campaign_id").notNull().default(""),
    value: text("value").notNull().default(""),
    subid1: text("subid1").notNull().default(""),
    subid3: text("subid3").notNull().default(""),
    clicks: integer("clicks").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    revenueCents: integer("revenue_cents").notNull().default(0),
  },
  (t) => [uniqueIndex("cake_audience_daily_key_unique").on(t.dim, t.date, t.campaignId, t.tiktokCampaignId, t.value, t.subid1, t.subid3)],
);

/**
 * `queued`: claimed and handed to the queue; `sending`: a consumer holds it (until `leaseUntil`);
 * `sent`: TikTok answered code 0; `failed`: it could not be sent, for `failureKind` (TikTok's
 * message kept); `skipped`: not sent, for `skipReason`.
 */
export const TIKTOK_SEND_STATUSES = ["queued", "sending", "sent", "failed", "skipped"] as const;
export type TikTokSendStatus = (typeof TIKTOK_SEND_STATUSES)[number];
export const TIKTOK_SKIP_REASONS = ["no_ttclid", "not_tiktok", "outside_window", "not_configured"] as const;
export type TikTokSkipReason = (typeof TIKTOK_SKIP_REASONS)[number];
/**
 * Why a row failed, which decides whether 'Resend failed' sends it again (docs/integrations.md,
 * "TikTok Events API"): `temporary` (TikTok's trouble, its rate limit or the network, until the
 * queue gave up) and `setup` (the token, its permission, the address) can succeed once retried or
 * fixed; `refused` is TikTok's verdict on the event itself, which fails again as it is.
 */
export const TIKTOK_FAILURE_KINDS = ["temporary", "setup", "refused"] as const;
export type TikTokFailureKind = (typeof TIKTOK_FAILURE_KINDS)[number];

/**
 * One row per CAKE conversion and TikTok event: the send state that makes each event reach the
 * Events API once. A producer (postback, pull, cron sweep) claims the row before it enqueues;
 * the queue consumer leases it, sends, and confirms. The unique key is what stops the same
 * conversion arriving by postback and by pull from being sent twice. The click's values are
 * copied in at claim time, so a later clean-up of old clicks does not change what is sent.
 */
export const tiktokEventSends = sqliteTable(
  "tiktok_event_sends",
  {
    id: integer("id").primaryKey(),
    conversionId: text("conversion_id").notNull(),
    event: text("event").notNull(),
    status: text("status", { enum: TIKTOK_SEND_STATUSES }).notNull(),
    skipReason: text("skip_reason", { enum: TIKTOK_SKIP_REASONS }),
    clickId: text("click_id"),
    ttclid: text("ttclid"),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    pageUrl: text("page_url"),
    valueCents: integer("value_cents"),
    currency: text("currency"),
    /** When the conversion happened (epoch ms): the event's `event_time`. */
    eventAt: integer("event_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** TikTok's `code` and `message` of the last failed attempt. */
    code: integer("code"),
    message: text("message"),
    /** Set while `failed`. */
    failureKind: text("failure_kind", { enum: TIKTOK_FAILURE_KINDS }),
    leaseUntil: integer("lease_until"),
    /**
     * Which consumer holds the row while `sending`: only that one may write its outcome, so one
     * whose lease ran out and was taken over cannot overwrite the new holder's result.
     */
    leaseToken: text("lease_token"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull().default(nowMs),
    sentAt: integer("sent_at"),
  },
  (t) => [
    uniqueIndex("tiktok_event_sends_conversion_event_unique").on(t.conversionId, t.event),
    index("tiktok_event_sends_status_idx").on(t.status, t.updatedAt),
    index("tiktok_event_sends_updated_idx").on(t.updatedAt),
    // The cron's sweep decides these again once sending is configured; few, so a partial index.
    index("tiktok_event_sends_not_configured_idx")
      .on(t.eventAt)
      .where(sql`skip_reason = 'not_configured'`),
  ],
);

// ---------------------------------------------------------------------------------------------
// The click store's retention (docs/data.md "Retention and archives"): raw clicks older than
// CLICKS_RETENTION_DAYS are written to R2 a day at a time and then deleted; the rate limit's
// refusals are counted here instead of stored as clicks.
// ---------------------------------------------------------------------------------------------

/**
 * One row per day of raw clicks archived to R2 (`objectKey`). It is written with `archivedAt` set
 * only once the file is read back and holds every click of the day: nothing of a day without
 * `archivedAt` is deleted (rows without it are claims of the version before the archive Workflow;
 * `claimedAt` is now when the archiving run started). `deletedAt` is set when the last raw click of
 * the day is gone; until then each run of the day keeps deleting. Days are the click rollup's days
 * (`timeZone`): the clicks with startMs <= clickedAt < endMs.
 */
export const clickArchives = sqliteTable("click_archives", {
  day: text("day").primaryKey(),
  timeZone: text("time_zone").notNull(),
  startMs: integer("start_ms").notNull(),
  endMs: integer("end_ms").notNull(),
  objectKey: text("object_key").notNull(),
  rows: integer("rows").notNull(),
  exits: integer("exits").notNull(),
  bytes: integer("bytes").notNull(),
  /** The highest click id in the file: only clicks up to it are deleted (none newer is the file's). */
  maxClickId: integer("max_click_id").notNull(),
  claimedAt: integer("claimed_at").notNull(),
  archivedAt: integer("archived_at"),
  deletedAt: integer("deleted_at"),
});

/**
 * The conversions that left D1 (retention/conversions.ts): each row is one R2 object of a CAKE
 * day's conversion ledger rows with their TikTok sends (`conversions/<date>/<chunk>.csv.gz`),
 * written in the same batch that deleted those rows, so a recorded chunk is in R2 and out of D1.
 * The unique (date, chunk) keeps two cron runs from recording one chunk twice.
 */
export const conversionArchives = sqliteTable(
  "conversion_archives",
  {
    id: integer("id").primaryKey(),
    /** The ledger's day (cake_conversions.date): the report time zone's, or the network's. */
    date: text("date").notNull(),
    chunk: integer("chunk").notNull(),
    objectKey: text("object_key").notNull(),
    conversions: integer("conversions").notNull(),
    sends: integer("sends").notNull(),
    bytes: integer("bytes").notNull(),
    /** The latest postback among them: the data sources' status still knows when one last came. */
    lastPostbackAt: integer("last_postback_at"),
    archivedAt: integer("archived_at").notNull(),
  },
  (t) => [uniqueIndex("conversion_archives_date_chunk_unique").on(t.date, t.chunk)],
);

/**
 * The runs of the archive Workflow (retention/workflow.ts), one per attempt at a day: the cron
 * inserts the row, then starts the Workflow instance named after it (`clicks-<day>-<id>`), so two
 * cron runs at once start one instance (the unique day and run number). A run records the R2
 * multipart upload it opened (`uploadId`) before writing to it, and `uploadClosedAt` once the
 * upload is completed or aborted: the cron aborts the upload of a run that failed for good.
 * `id` is AUTOINCREMENT so an instance name is never used twice, even after rows are deleted.
 */
export const clickArchiveRuns = sqliteTable(
  "click_archive_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    day: text("day").notNull(),
    run: integer("run").notNull(),
    objectKey: text("object_key").notNull(),
    uploadId: text("upload_id"),
    startedAt: integer("started_at").notNull(),
    uploadClosedAt: integer("upload_closed_at"),
    endedAt: integer("ended_at"),
    /** How the run ended: `finished`, `waiting: ...`, `failed: ...` (the cron's words for a failed instance). */
    outcome: text("outcome"),
  },
  (t) => [uniqueIndex("click_archive_runs_day_run_unique").on(t.day, t.run), index("click_archive_runs_ended_idx").on(t.endedAt)],
);

/**
 * Clicks and exits the per-IP rate limit refused (the visitor was still sent on; nothing else was
 * stored), per campaign and quarter hour: each isolate adds its counts with its next click batch,
 * so a flood costs one upsert a batch, not a write per request. Quarter hours, so any report time
 * zone's days (all offsets are whole quarter hours) add up exactly.
 */
export const refusedClicks = sqliteTable(
  "refused_clicks",
  {
    id: integer("id").primaryKey(),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    periodStart: integer("period_start").notNull(),
    clicks: integer("clicks").notNull().default(0),
    exits: integer("exits").notNull().default(0),
  },
  (t) => [uniqueIndex("refused_clicks_campaign_period_unique").on(t.campaignId, t.periodStart), index("refused_clicks_period_idx").on(t.periodStart)],
);

// ---------------------------------------------------------------------------------------------
// Traffic distribution (docs/traffic-distribution.md): a campaign's rule paths and their weighted
// lander and offer variants. A campaign without rows here runs as today: one implicit default path
// with campaigns.lander_id and campaigns.offer_id.
// ---------------------------------------------------------------------------------------------

export const OPTIMISE_MODES = ["off", "cr", "epv"] as const;

/** A campaign's paths, evaluated by `position` (0 first); the one `isDefault` path is last and has no conditions. */
export const campaignPaths = sqliteTable(
  "campaign_paths",
  {
    // AUTOINCREMENT: clicks keep a path's id without a foreign key, so an id must never be handed out twice.
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    /** The path's conditions (schemas/paths.ts conditionSchema[]), ANDed. */
    conditions: text("conditions", { mode: "json" }).notNull().$type<unknown[]>(),
    directToOffer: integer("direct_to_offer", { mode: "boolean" }).notNull().default(false),
    /** Null: not sticky. */
    stickyDays: integer("sticky_days"),
    optimiseMode: text("optimise_mode", { enum: OPTIMISE_MODES }).notNull().default("off"),
    optimiseWindowDays: integer("optimise_window_days").notNull().default(7),
    optimiseFloorPercent: real("optimise_floor_percent").notNull().default(5),
    optimiseMinVisits: integer("optimise_min_visits").notNull().default(200),
    createdAt: createdAt(),
  },
  (t) => [index("campaign_paths_campaign_idx").on(t.campaignId, t.position)],
);

/**
 * A path's landers. The lander reference has no delete action: deleting a lander a path uses is
 * refused (routes/landers.ts names the paths first; the foreign key catches a race).
 */
export const pathLanders = sqliteTable(
  "path_landers",
  {
    id: integer("id").primaryKey(),
    pathId: integer("path_id")
      .notNull()
      .references(() => campaignPaths.id, { onDelete: "cascade" }),
    landerId: integer("lander_id")
      .notNull()
      .references(() => landers.id),
    position: integer("position").notNull(),
    weight: integer("weight").notNull(),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("path_landers_path_lander_unique").on(t.pathId, t.landerId), index("path_landers_lander_idx").on(t.landerId)],
);

/** A path's offers; deleting an offer a path uses is refused, as for landers. */
export const pathOffers = sqliteTable(
  "path_offers",
  {
    id: integer("id").primaryKey(),
    pathId: integer("path_id")
      .notNull()
      .references(() => campaignPaths.id, { onDelete: "cascade" }),
    offerId: integer("offer_id")
      .notNull()
      .references(() => offers.id),
    position: integer("position").notNull(),
    weight: integer("weight").notNull(),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("path_offers_path_offer_unique").on(t.pathId, t.offerId), index("path_offers_offer_idx").on(t.offerId)],
);

/**
 * Every change of a path's weights: by a person (`userId`) through PUT /api/campaigns/:id/paths,
 * or by the optimiser (`userId` null) with the figures it used in `reason`. `weights` is the
 * path's variants after the change.
 */
export const pathWeightHistory = sqliteTable(
  "path_weight_history",
  {
    id: integer("id").primaryKey(),
    pathId: integer("path_id")
      .notNull()
      .references(() => campaignPaths.id, { onDelete: "cascade" }),
    at: integer("at").notNull(),
    /** Not a foreign key, as the audit log's actor: a deleted user's changes still say they were a person's. */
    userId: text("user_id"),
    reason: text("reason").notNull(),
    weights: text("weights", { mode: "json" }).notNull().$type<PathWeights>(),
  },
  (t) => [index("path_weight_history_path_at_idx").on(t.pathId, t.at)],
);

// ---------------------------------------------------------------------------------------------
// Alerts and channels (docs/alerts.md): where alerts go besides the app (email, Slack, Telegram, a
// signed webhook), each admin's in-app notification list, and the built-in alerts' switches and
// firings.
// ---------------------------------------------------------------------------------------------

/**
 * One notification channel. `settings` holds what the browser may see again (an email address, a
 * Telegram chat id, a webhook's URL); `secret` what it is shown once, when saved, and never again
 * (a Slack webhook URL, which is its own credential; a Telegram bot token; a webhook's signing
 * secret). A channel whose service said it is gone for good (Slack 404/410, Telegram 403) is
 * `brokenAt`: nothing is sent to it until it is edited or a test message succeeds.
 */
export const alertChannels = sqliteTable("alert_channels", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  kind: text("kind", { enum: CHANNEL_KINDS }).notNull(),
  settings: text("settings", { mode: "json" }).notNull().$type<Record<string, string>>(),
  secret: text("secret").notNull().default(""),
  /** Receives the built-in alerts (besides the admins' in-app list). */
  builtin: integer("builtin", { mode: "boolean" }).notNull().default(false),
  brokenAt: integer("broken_at"),
  brokenReason: text("broken_reason"),
  lastSentAt: integer("last_sent_at"),
  lastStatus: text("last_status"),
  createdAt: createdAt(),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

/** One entry of a user's in-app notification list (the header's bell); `readAt` null is unread. */
export const notifications = sqliteTable(
  "notifications",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    text: text("text").notNull(),
    link: text("link"),
    severity: text("severity", { enum: ["info", "warning", "critical"] }).notNull(),
    /** "rule" or "builtin" (schemas/alerts.ts AlertMessage.source) or "channel" (a channel broke). */
    sourceKind: text("source_kind").notNull(),
    createdAt: integer("created_at").notNull(),
    readAt: integer("read_at"),
  },
  (t) => [index("notifications_user_created_idx").on(t.userId, t.createdAt)],
);

/** A built-in alert switched or tuned by an admin; an alert without a row runs with its defaults (on). */
export const builtinAlertSettings = sqliteTable("builtin_alert_settings", {
  alert: text("alert").primaryKey(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  /** The alert's number (hours, dollars, ...) when it has one; null: its default. */
  threshold: integer("threshold"),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

/**
 * Each occurrence a built-in alert fired for: the unique (alert, occurrence) is what makes it fire
 * once, even with two cron runs at once (the one whose insert wins sends). `occurrence` names the
 * thing seen (a failing streak's first run, a day, a window), so a new occurrence fires again.
 */
export const builtinAlertFirings = sqliteTable(
  "builtin_alert_firings",
  {
    id: integer("id").primaryKey(),
    alert: text("alert").notNull(),
    occurrence: text("occurrence").notNull(),
    firedAt: integer("fired_at").notNull(),
    title: text("title").notNull(),
    facts: text("facts", { mode: "json" }).notNull().$type<{ label: string; value: string }[]>(),
    deliveries: text("deliveries", { mode: "json" }).$type<ChannelDelivery[]>(),
  },
  (t) => [uniqueIndex("builtin_alert_firings_unique").on(t.alert, t.occurrence), index("builtin_alert_firings_fired_idx").on(t.alert, t.firedAt)],
);

// ---------------------------------------------------------------------------------------------
// Rules (docs/rules.md): conditions over the daily rollups that the cron evaluates every 15
// minutes, each firing stored with its figures, the TikTok ad groups paused or resumed and every
// channel's answer.
// ---------------------------------------------------------------------------------------------

/**
 * One rule. Scope, conditions, guard and target are JSON in the shapes of schemas/rules.ts (read
 * whole, never queried into): a rule is edited as one piece and evaluated from memory.
 */
export const rules = sqliteTable("rules", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  scope: text("scope", { mode: "json" }).notNull().$type<RuleScope>(),
  windowAmount: integer("window_amount").notNull(),
  windowUnit: text("window_unit", { enum: RULE_WINDOW_UNITS }).notNull(),
  conditions: text("conditions", { mode: "json" }).notNull().$type<RuleCondition[]>(),
  guard: text("guard", { mode: "json" }).$type<RuleCondition | null>(),
  cooldownMinutes: integer("cooldown_minutes").notNull(),
  action: text("action", { enum: RULE_ACTIONS }).notNull(),
  /** What "act and alert" does to the matched item's TikTok ad groups; null for "alert only". */
  act: text("act", { enum: RULE_ACTS }),
  target: text("target", { mode: "json" }).notNull().$type<AlertTarget>(),
  createdAt: createdAt(),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

/**
 * One firing of a rule for one scope item (`itemKey`, e.g. "campaign:12", "adGroup:1789…"), or a
 * problem the evaluation met with it (status `skipped`: a campaign of its scope was deleted). Its
 * insert is the claim: it is written only when no firing of the same rule and item lies within the
 * cooldown (one conditional statement), so two cron runs at once cannot both act.
 */
export const ruleFirings = sqliteTable(
  "rule_firings",
  {
    id: integer("id").primaryKey(),
    ruleId: integer("rule_id")
      .notNull()
      .references(() => rules.id, { onDelete: "cascade" }),
    itemKey: text("item_key").notNull(),
    itemLabel: text("item_label").notNull(),
    firedAt: integer("fired_at").notNull(),
    /** `acting` while the run works on it; `done`; `problem` when TikTok or a channel failed; `skipped`. */
    status: text("status", { enum: RULE_FIRING_STATUSES }).notNull(),
    figures: text("figures", { mode: "json" }).notNull().$type<RuleFigures>(),
    action: text("action").notNull(),
    tiktok: text("tiktok", { mode: "json" }).notNull().$type<AdGroupOutcome[]>(),
    deliveries: text("deliveries", { mode: "json" }).notNull().$type<ChannelDelivery[]>(),
    note: text("note").notNull().default(""),
  },
  (t) => [index("rule_firings_rule_item_at_idx").on(t.ruleId, t.itemKey, t.firedAt), index("rule_firings_rule_at_idx").on(t.ruleId, t.firedAt)],
);

// ---------------------------------------------------------------------------------------------
// Webhooks out (docs/webhooks.md): each user's subscriptions of an https:// URL to events, and
// every delivery attempt. Events themselves travel in the webhooks queue's messages.
// ---------------------------------------------------------------------------------------------

/**
 * One subscription. `secret` is the signing secret encrypted with the two-factor key
 * (auth/two-factor.ts, associated data `webhook:<user id>`): it must be readable to sign, and is
 * shown to its owner once. `failures` counts consecutive failed attempts; at
 * WEBHOOK_DISABLE_AFTER_FAILURES the subscription is `disabledAt` until its owner enables it again.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: integer("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<WebhookEventType[]>().notNull(),
    secret: text("secret").notNull(),
    createdAt: createdAt(),
    failures: integer("failures").notNull().default(0),
    disabledAt: integer("disabled_at"),
    disabledReason: text("disabled_reason"),
  },
  (t) => [index("webhook_subscriptions_user_idx").on(t.userId)],
);

/** One delivery attempt: its answer's status (null: no answer) or the error, and how long it took. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey(),
    subscriptionId: integer("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    attempt: integer("attempt").notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    status: integer("status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.id)],
);
