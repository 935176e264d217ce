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
  /** The Events API token generated for the pixel (README, "Conversions sent to TikTok"). */
  TIKTOK_EVENTS_ACCESS_TOKEN?: string;
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
}

export type Bindings = Env & Secrets & SyncVars;

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
