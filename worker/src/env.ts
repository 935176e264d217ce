import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "./db/schema";
import type { Feature, Role } from "./db/schema";

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
}

/** [vars] of wrangler.toml read by the syncs; optional so a missing one falls back to its default. */
export interface SyncVars {
  TIKTOK_BASE_URL?: string;
  SYNC_RECENT_DAYS?: string;
  SYNC_DAILY_DAYS?: string;
}

/**
 * The click store's bindings and var (README "Retention and archives", "Rate limits"), typed here
 * like SyncVars. Without a limiter (a Worker deployed without it) the routes track unlimited.
 */
export interface ClickStoreBindings {
  /** R2 bucket of the daily raw-click archives. */
  ARCHIVE: R2Bucket;
  /** Per-IP limits of /r/ and /click, and of the CAKE postback. */
  CLICK_LIMITER?: RateLimit;
  POSTBACK_LIMITER?: RateLimit;
  CLICKS_RETENTION_DAYS?: string;
}

export type Bindings = Env & Secrets & SyncVars & ClickStoreBindings;

/** Who is calling: loaded once per request from the session row (see auth/session.ts). */
export interface SessionUser {
  id: string;
  username: string;
  role: Role;
  permissions: Feature[];
  sessionId: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    db: Db;
    user: SessionUser | null;
  };
}
