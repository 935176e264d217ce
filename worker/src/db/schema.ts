/**
 * The whole Trackyard data model (spec §3 plus sessions and login throttling).
 *
 * Conventions (decisions.md):
 * - ids: `users.id` is a UUID (the spec says so); every other table uses an integer primary key
 *   (SQLite's rowid: the smallest and fastest key for the high-volume tables like clicks).
 *   `sessions.id` is the one exception: a random token, because it travels in the cookie.
 * - money is integer cents (`*_cents`), revenue share is basis points; the API speaks decimal strings.
 * - instants are integer epoch milliseconds (`*_at`); calendar dates are `YYYY-MM-DD` text.
 * - D1 always enforces foreign keys, so the cascade / set-null rules below are real.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
  },
  (t) => [uniqueIndex("users_username_unique").on(sql`lower(${t.username})`)],
);

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
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
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
  (t) => [
    index("login_attempts_username_idx").on(t.username, t.attemptedAt),
    index("login_attempts_ip_idx").on(t.ip, t.attemptedAt),
  ],
);

export const FEATURES = [
  "dashboard",
  "offers",
  "campaigns",
  "landers",
  "clicks",
  "sparks",
  "performance",
] as const;
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
  visibleColumns: text("visible_columns", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
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
    /** Reference Id, or card/VCN/date/amount/merchant when the export has none (decisions.md). */
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

export const DOMAIN_STATUSES = [
  "pending",
  "purchasing",
  "purchased",
  "configuring_dns",
  "active",
  "dns_failed",
  "failed",
] as const;
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
  },
  (t) => [index("campaigns_lander_idx").on(t.landerId), index("campaigns_offer_idx").on(t.offerId)],
);

/** Kept for the data model's completeness; decisions.md: no disguised pages are generated. */
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

export const SETTING_KEYS = ["redirect_domain", "global_exit_domain", "max_domain_price"] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull().default(nowMs),
});

export const clicks = sqliteTable(
  "clicks",
  {
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
  },
  (t) => [
    index("clicks_clicked_at_idx").on(t.clickedAt),
    index("clicks_campaign_clicked_at_idx").on(t.campaignId, t.clickedAt),
  ],
);

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
  (t) => [
    uniqueIndex("tiktok_spend_date_campaign_unique").on(t.date, t.tiktokCampaignId),
    index("tiktok_spend_date_idx").on(t.date),
  ],
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
