import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "./db/schema";
import type { Feature, Role, SessionStage } from "./db/schema";
import type { ArchiveRunParams } from "./retention/config";
import type { ClickMessage } from "./tracking/click-queue";
import type { MoveRunParams } from "./tracking/click-move-workflow";
import type { CakePullParams } from "./sync/cake-pull-workflow";
import type { ClickShard } from "./tracking/click-shard";
import type { WebhookMessage } from "./webhooks/queue";

export type Db = DrizzleD1Database<typeof schema>;

/** Secrets are set with `wrangler secret put` (locally in `.dev.vars`), so `wrangler types` cannot see them. */
export interface Secrets {
  SESSION_SECRET: string;
  // Performance data sources (README, "Performance data sources"). Unset means "not configured":
  // the sync makes no call and records that state once per run.
  CAKE_BASE_URL?: string;
  CAKE_API_KEY?: string;
  CAKE_AFFILIATE_ID?: string;
  TIKTOK_ACCESS_TOKEN?: string;
  /** Comma-separated advertiser ids. */
  TIKTOK_ADVERTISER_IDS?: string;
  /** The secret the CAKE conversion postback URL carries (`/postback/cake?token=...`). */
  POSTBACK_TOKEN?: string;
  // Domain automation (README, "Domain automation"). Unset means "not configured": the Domains
  // screen says what is missing and nothing calls Namecheap or Cloudflare.
  NAMECHEAP_API_USER?: string;
  NAMECHEAP_API_KEY?: string;
  /** The account the commands act on; defaults to NAMECHEAP_API_USER. */
  NAMECHEAP_USERNAME?: string;
  /** The whitelisted IPv4 address Namecheap sees the calls come from. */
  NAMECHEAP_CLIENT_IP?: string;
  /** Empty (direct), an https:// relay, or socks5://user:pass@host:port. */
  NAMECHEAP_PROXY?: string;
  /** The shared secret the HTTPS relay checks. */
  NAMECHEAP_RELAY_KEY?: string;
  CLOUDFLARE_API_TOKEN?: string;
  CLOUDFLARE_ACCOUNT_ID?: string;
  /** The Events API token generated for the pixel (README, "Conversions sent to TikTok"). */
  TIKTOK_EVENTS_ACCESS_TOKEN?: string;
  /**
   * The key two-factor secrets are encrypted with, and recovery codes keyed with (auth/two-factor-crypto.ts).
   * Its own secret, not SESSION_SECRET: rotating the session secret to sign everyone out must not
   * make every second factor unreadable.
   */
  TWO_FACTOR_KEY?: string;
  /**
   * When set, creating the first admin (POST /api/register) needs it, so nobody who finds a fresh
   * deployment first can take it; docs/operations.md "Deploying to Cloudflare" sets it. Unset locally.
   */
  SETUP_TOKEN?: string;
}

/** Optional [vars] of the code inbox (docs/integrations.md "Verification codes"). */
export interface CodesVars {
  /** Comma-separated forwarding mailboxes (or `@domain`s) mail must come from; unset: any sender, with a warning; `*`: any sender, chosen. */
  CODES_SENDERS?: string;
}

/** A message of the TikTok events queue: tiktok_event_sends ids claimed for sending (at most 1,000). */
export interface TikTokEventsMessage {
  ids: number[];
}

/** [vars] of wrangler.toml read by the syncs; optional so a missing one falls back to its default. */
export interface SyncVars {
  TIKTOK_BASE_URL?: string;
  SYNC_RECENT_DAYS?: string;
  SYNC_DAILY_DAYS?: string;
  /** Seconds before the first retry of a failed Events API call (doubling each time); default 30. */
  TIKTOK_EVENTS_RETRY_SECONDS?: string;
  /** Rows of CAKE's click report past which a week's pull goes on in steps of that many (sync/cake-pull-workflow.ts); default 1,000,000. */
  CAKE_PULL_STEP_ROWS?: string;
}

/** The app's own hosts besides workers.dev and this machine (middleware/app-hosts.ts, README "Configuration"). */
export interface AppHostVars {
  /** Comma-separated host names the app (its pages, sign-in, /api, the postback) answers on, e.g. a custom domain of its own. */
  APP_HOSTS?: string;
}

/** [vars] of domain automation; optional so a missing one falls back to its default. */
export interface DomainVars {
  NAMECHEAP_API_URL?: string;
  CLOUDFLARE_API_URL?: string;
  WORKER_NAME?: string;
}

/**
 * The click store's bindings and var (docs/data.md "Retention and archives", "Rate limits"), typed here
 * like SyncVars. Without a limiter (a Worker deployed without it) the routes track unlimited.
 */
export interface ClickStoreBindings {
  /** R2 bucket of the daily raw-click archives. */
  ARCHIVE: R2Bucket;
  /** The archive Workflow (retention/workflow.ts): one instance per run of a day. */
  ARCHIVE_WORKFLOW: Workflow<ArchiveRunParams>;
  /** The move of D1's clicks into the legacy objects (tracking/click-move-workflow.ts): one instance per run. */
  MOVE_WORKFLOW: Workflow<MoveRunParams>;
  /** A CAKE pull too long for one invocation, in steps (sync/cake-pull-workflow.ts): one instance per sync run. */
  CAKE_PULL_WORKFLOW: Workflow<CakePullParams>;
  /** Clicks and exits on their way to D1 (tracking/click-queue.ts). */
  CLICKS_QUEUE: Queue<ClickMessage>;
  /** Raw clicks' shard-days, one SQLite Durable Object each (tracking/click-shard.ts), for the days with a shard count (tracking/shard-days.ts). */
  CLICK_SHARDS: DurableObjectNamespace<ClickShard>;
  /** Per-IP limits of /r/ and /click, and of the CAKE postback. */
  CLICK_LIMITER?: RateLimit;
  POSTBACK_LIMITER?: RateLimit;
  /** Per-key limit of Bearer API requests (auth/api-key-limit.ts). */
  API_KEY_LIMITER?: RateLimit;
  CLICKS_RETENTION_DAYS?: string;
  /** Shard-day objects per UTC day for new days' clicks; 0 or unset keeps them in D1 (tracking/shard-days.ts). */
  CLICK_SHARDS_PER_DAY?: string;
}

/** The notification channels' binding and [vars] (docs/alerts.md "Configuration"); all optional: unset turns email off and uses the real Slack and Telegram. */
export interface AlertVars {
  /** Cloudflare Email's send_email binding; locally wrangler writes each message to a file. */
  ALERT_EMAIL?: SendEmail;
  /** The sender: an address on a domain onboarded to Cloudflare Email. */
  ALERT_EMAIL_FROM?: string;
  /** Comma-separated verified destination addresses an email channel may be set to. */
  ALERT_EMAIL_TO?: string;
  SLACK_BASE_URL?: string;
  TELEGRAM_BASE_URL?: string;
}

/** Webhooks out (docs/webhooks.md): their queue, typed here like the clicks queue, and two [vars] for tests and local use. */
export interface WebhookBindings {
  WEBHOOKS_QUEUE: Queue<WebhookMessage>;
  /** Seconds before a failed delivery's first retry, doubling each time; default 60. */
  WEBHOOK_RETRY_SECONDS?: string;
  /** "true" lets webhooks reach this machine and private networks (local use only; unset in wrangler.toml). */
  WEBHOOKS_ALLOW_PRIVATE_TARGETS?: string;
}

export type Bindings = Env & Secrets & SyncVars & DomainVars & AppHostVars & CodesVars & ClickStoreBindings & AlertVars & WebhookBindings;

/** Who is calling: loaded once per request from the session row (see auth/session.ts). */
export interface SessionUser {
  id: string;
  username: string;
  role: Role;
  permissions: Feature[];
  sessionId: string;
  /** `enroll`: signed in, but may only set up two-factor sign-in until it is on (access.ts). */
  stage: Exclude<SessionStage, "second-factor">;
  twoFactorEnabled: boolean;
  /** When this session last re-authenticated (POST /api/auth/reauth), or null. */
  reauthenticatedAt: number | null;
  /** Set when the caller is a Bearer API key acting as this user: the key and the scopes it holds (auth/api-key.ts). */
  apiKey?: { id: number; scopes: string[] };
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    db: Db;
    user: SessionUser | null;
  };
}
