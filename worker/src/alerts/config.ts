/**
 * Where the channels' services are and what email may do (docs/alerts.md "Configuration"): the
 * Slack and Telegram addresses come from [vars] so the local fakes (`npm run fakes`) can stand in,
 * as TIKTOK_BASE_URL does for TikTok.
 */
import type { Bindings } from "../env";

export const DEFAULT_SLACK_BASE_URL = "https://hooks.slack.com";
export const DEFAULT_TELEGRAM_BASE_URL = "https://api.telegram.org";

const list = (raw: string | undefined) =>
  (raw ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

export interface AlertConfig {
  slackBaseUrl: string;
  telegramBaseUrl: string;
  /** The send_email binding's sender, on a domain onboarded to Cloudflare Email; null: email is off. */
  emailFrom: string | null;
  /** The verified destination addresses an email channel may send to (ALERT_EMAIL_TO). */
  emailTo: string[];
  /** Where the app answers, to turn an alert's in-app link into an address a chat message can carry. */
  appOrigin: string | null;
}

export function alertConfig(env: Bindings): AlertConfig {
  const appHost = list(env.APP_HOSTS)[0];
  return {
    slackBaseUrl: (env.SLACK_BASE_URL || DEFAULT_SLACK_BASE_URL).replace(/\/+$/, ""),
    telegramBaseUrl: (env.TELEGRAM_BASE_URL || DEFAULT_TELEGRAM_BASE_URL).replace(/\/+$/, ""),
    emailFrom: env.ALERT_EMAIL && env.ALERT_EMAIL_FROM ? env.ALERT_EMAIL_FROM.trim() : null,
    emailTo: list(env.ALERT_EMAIL_TO),
    appOrigin: appHost ? `https://${appHost}` : null,
  };
}

/** Why email channels cannot send here, or null: the Channels screen shows it. */
export function emailProblem(config: AlertConfig): string | null {
  if (!config.emailFrom) return "Email is not set up: add the ALERT_EMAIL send_email binding and ALERT_EMAIL_FROM (docs/alerts.md)";
  if (!config.emailTo.length) return "No verified destination address is listed in ALERT_EMAIL_TO (docs/alerts.md)";
  return null;
}
