/**
 * The data sources' settings, read from Worker secrets and vars (README, "Performance data
 * sources"). Anything missing or malformed makes the source "not configured" with the reasons,
 * so a half-set-up source makes no calls instead of failing every 15 minutes.
 */
import type { SyncSource } from "../db/schema";
import type { Bindings } from "../env";
import type { CakeConfig } from "../integrations/cake";
import type { TikTokConfig } from "../integrations/tiktok";
import { secureUrl } from "../lib/hosts";
import { MAX_SYNC_DAYS } from "../schemas/performance";

export const DEFAULT_TIKTOK_BASE_URL = "https://business-api.tiktok.com";
/** Days every cron run re-pulls (late conversions and spend corrections land on recent days). */
export const DEFAULT_RECENT_DAYS = 3;
/** Days the first run after midnight re-pulls, for conversions approved or reversed later. */
export const DEFAULT_DAILY_DAYS = 14;

export interface Setup<C> {
  /** Empty when the source is configured. */
  problems: string[];
  config: C | null;
}

/** Where a setting lives: a Worker secret (credentials) or a `[vars]` entry in wrangler.toml. */
export interface SettingHelp {
  name: string;
  secret: boolean;
  /** What to put there, in a phrase. */
  what: string;
}

/** The settings of each source, as the status call explains a missing or malformed one. */
export const SOURCE_SETTINGS: Record<SyncSource, SettingHelp[]> = {
  cake: [
    { name: "CAKE_BASE_URL", secret: true, what: "the network's own address, like https://login.network.com" },
    { name: "CAKE_API_KEY", secret: true, what: "the affiliate API key (CAKE portal, Reporting API)" },
    { name: "CAKE_AFFILIATE_ID", secret: true, what: "your numeric affiliate id (CAKE portal, Reporting API)" },
  ],
  tiktok: [
    { name: "TIKTOK_ACCESS_TOKEN", secret: true, what: "a Business API access token allowed to read the advertisers' reports" },
    { name: "TIKTOK_ADVERTISER_IDS", secret: true, what: "the advertiser ids to pull, separated by commas" },
    { name: "TIKTOK_BASE_URL", secret: false, what: "https://business-api.tiktok.com (point it at a fake to test)" },
  ],
};

/** The Worker settings of conversions sent to TikTok (the pixel code is set on the panel itself). */
export const EVENTS_SETTINGS: SettingHelp[] = [
  { name: "TIKTOK_EVENTS_ACCESS_TOKEN", secret: true, what: "the Events API access token generated for the pixel (Events Manager, the pixel's Settings)" },
  SOURCE_SETTINGS.tiktok.find((s) => s.name === "TIKTOK_BASE_URL")!,
];

/**
 * The settings behind a source's problems, each with the first problem that names it. Every
 * problem starts with the name of the setting it is about.
 */
export function settingsToFix(source: SyncSource | SettingHelp[], problems: string[]): (SettingHelp & { problem: string })[] {
  return (typeof source === "string" ? SOURCE_SETTINGS[source] : source).flatMap((setting) => {
    const problem = problems.find((p) => p.startsWith(`${setting.name} `));
    return problem ? [{ ...setting, problem }] : [];
  });
}

const value = (v: string | undefined) => v?.trim() ?? "";

/** A service's base URL (origin and path, no trailing slash) by the one rule of lib/hosts.ts: https, plain http only on this machine. */
function serviceUrl(raw: string, name: string, problems: string[]): string | null {
  const url = secureUrl(raw, name, problems);
  return url && url.origin + url.pathname.replace(/\/+$/, "");
}

/** TIKTOK_BASE_URL, of the spend reports and of the Events API alike. */
export const tiktokBaseUrl = (env: Bindings, problems: string[]) =>
  serviceUrl(value(env.TIKTOK_BASE_URL) || DEFAULT_TIKTOK_BASE_URL, "TIKTOK_BASE_URL", problems);

function requireAll(env: Bindings, names: readonly (keyof Bindings & string)[]) {
  return names.filter((n) => !value(env[n] as string | undefined)).map((n) => `${n} is not set`);
}

export function cakeSetup(env: Bindings, timeZone: string): Setup<CakeConfig> {
  const problems = requireAll(env, ["CAKE_BASE_URL", "CAKE_API_KEY", "CAKE_AFFILIATE_ID"]);
  const baseUrl = value(env.CAKE_BASE_URL) ? serviceUrl(value(env.CAKE_BASE_URL), "CAKE_BASE_URL", problems) : null;
  if (value(env.CAKE_AFFILIATE_ID) && !/^\d+$/.test(value(env.CAKE_AFFILIATE_ID))) problems.push("CAKE_AFFILIATE_ID must be a number");
  if (problems.length || !baseUrl) return { problems, config: null };
  return {
    problems,
    config: { baseUrl, apiKey: value(env.CAKE_API_KEY), affiliateId: value(env.CAKE_AFFILIATE_ID), timeZone },
  };
}

export function tiktokSetup(env: Bindings): Setup<{ client: TikTokConfig; advertiserIds: string[] }> {
  const problems = requireAll(env, ["TIKTOK_ACCESS_TOKEN", "TIKTOK_ADVERTISER_IDS"]);
  const ids = value(env.TIKTOK_ADVERTISER_IDS)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const badIds = ids.filter((id) => !/^\d+$/.test(id));
  if (badIds.length) problems.push(`TIKTOK_ADVERTISER_IDS must be numbers separated by commas (not: ${badIds.join(", ")})`);
  const baseUrl = tiktokBaseUrl(env, problems);
  if (problems.length || !baseUrl) return { problems, config: null };
  return {
    problems,
    config: { client: { baseUrl, accessToken: value(env.TIKTOK_ACCESS_TOKEN) }, advertiserIds: [...new Set(ids)] },
  };
}

function days(raw: string | undefined, fallback: number) {
  const n = Number(value(raw));
  return Number.isInteger(n) && n >= 1 && n <= MAX_SYNC_DAYS ? n : fallback;
}

export const syncDays = (env: Bindings) => ({
  recent: days(env.SYNC_RECENT_DAYS, DEFAULT_RECENT_DAYS),
  daily: days(env.SYNC_DAILY_DAYS, DEFAULT_DAILY_DAYS),
});

/** A short token could be guessed, and a guessed token lets anyone add revenue. */
export const MIN_POSTBACK_TOKEN_LENGTH = 16;

export function postbackSetup(env: Bindings): Setup<{ token: string }> {
  const token = value(env.POSTBACK_TOKEN);
  if (!token) return { problems: ["POSTBACK_TOKEN is not set"], config: null };
  if (token.length < MIN_POSTBACK_TOKEN_LENGTH) {
    return { problems: [`POSTBACK_TOKEN must be at least ${MIN_POSTBACK_TOKEN_LENGTH} characters`], config: null };
  }
  return { problems: [], config: { token } };
}
