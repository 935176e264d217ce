/**
 * Sending one alert to one channel, each service in its own format, and reading its answer
 * (docs/alerts.md "Channels"). Never throws: every outcome is a ChannelDelivery, and `broken` says
 * the service answered that the channel is gone for good (Slack 404/410, Telegram 403), so the
 * caller stops sending to it.
 */
import type { FetchFn } from "../integrations/http";
import { isLoopback } from "../lib/hosts";
import type { AlertMessage, ChannelDelivery, ChannelKind } from "../schemas/alerts";
import type { AlertConfig } from "./config";
import { signedJsonHeaders } from "./webhook-signature";

/** What a channel row holds that sending needs. */
export interface ChannelTarget {
  id: number;
  kind: ChannelKind;
  settings: Record<string, string>;
  secret: string;
}

export interface SendDeps {
  fetch: FetchFn;
  config: AlertConfig;
  email?: SendEmail;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface SendOutcome extends ChannelDelivery {
  /** The service said the channel no longer exists or may not post: mark it broken. */
  broken: boolean;
}

/** Every call is cut off after this: a slow service must not hold the cron or a test message. */
export const CHANNEL_TIMEOUT_MS = 5_000;
/** Telegram's 429 `retry_after` is waited once when at most this long; longer is reported. */
export const TELEGRAM_MAX_RETRY_AFTER_S = 10;

const SERVICE: Record<ChannelKind, string> = { email: "Email", slack: "Slack", telegram: "Telegram", webhook: "Webhook" };

/** The alert as plain text lines: title, text, facts, link. Chat and email bodies start from it. */
export function plainText(message: AlertMessage, appOrigin: string | null): string {
  const lines = [message.title, "", message.text];
  if (message.facts.length) lines.push("", ...message.facts.map((f) => `${f.label}: ${f.value}`));
  const link = absoluteLink(message, appOrigin);
  if (link) lines.push("", link);
  return lines.join("\n");
}

const absoluteLink = (message: AlertMessage, appOrigin: string | null) => (message.link ? `${appOrigin ?? ""}${message.link}` : null);

/** Slack's `blocks` with `text` as the notification fallback (Slack's incoming webhook format). */
function slackBody(message: AlertMessage, appOrigin: string | null) {
  const link = absoluteLink(message, appOrigin);
  const mark = message.severity === "critical" ? ":red_circle:" : message.severity === "warning" ? ":warning:" : ":information_source:";
  return {
    text: `${message.title}: ${message.text}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${mark} *${escapeSlack(message.title)}*\n${escapeSlack(message.text)}` } },
      ...(message.facts.length
        ? [{ type: "section", fields: message.facts.slice(0, 10).map((f) => ({ type: "mrkdwn", text: `*${escapeSlack(f.label)}*\n${escapeSlack(f.value)}` })) }]
        : []),
      ...(link && /^https?:/.test(link) ? [{ type: "context", elements: [{ type: "mrkdwn", text: `<${link}|Open in Trackyard>` }] }] : []),
    ],
  };
}

// Slack's mrkdwn treats these three as control characters.
const escapeSlack = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The Slack webhook's address at SLACK_BASE_URL (the saved URL's path), so the local fake can stand in. */
export function slackUrl(saved: string, baseUrl: string): string {
  return `${baseUrl}${new URL(saved).pathname}`;
}

/** A generic webhook may go to https://, or plain http:// on this machine only (the repo's rule for outbound calls, lib/hosts.ts). */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Webhook URL is not a valid address";
  }
  if (url.username || url.password) return "Webhook URL must not contain a user name or password";
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname))) return null;
  return "Webhook URL must be an https:// address (plain http only for localhost)";
}

/** A service's answer cut to one short line for a delivery's detail. */
export const snippet = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
};

/**
 * One POST cut off after CHANNEL_TIMEOUT_MS, with redirects answered rather than followed (a
 * redirect is reported as the failure it is). Shared with webhooks out (webhooks/consume.ts).
 */
export async function postWithoutRedirects(fetch: FetchFn, url: string, init: RequestInit): Promise<{ status: number; text: string } | { error: string }> {
  try {
    const res = await fetch(url, { ...init, method: "POST", redirect: "manual", signal: AbortSignal.timeout(CHANNEL_TIMEOUT_MS) });
    return { status: res.status, text: await res.text().catch(() => "") };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return { error: timedOut ? `no answer within ${CHANNEL_TIMEOUT_MS / 1000} s` : err instanceof Error ? err.message : String(err) };
  }
}

function outcome(channel: ChannelTarget, ok: boolean, status: number | null, detail: string, broken = false): SendOutcome {
  return { channelId: channel.id, kind: channel.kind, ok, status, detail: `${SERVICE[channel.kind]}: ${detail}`, broken };
}

async function sendSlack(channel: ChannelTarget, message: AlertMessage, deps: SendDeps): Promise<SendOutcome> {
  const answer = await postWithoutRedirects(deps.fetch, slackUrl(channel.secret, deps.config.slackBaseUrl), {
    headers: { "content-type": "application/json" },
    body: JSON.stringify(slackBody(message, deps.config.appOrigin)),
  });
  if ("error" in answer) return outcome(channel, false, null, `not reached (${answer.error})`);
  if (answer.status === 200) return outcome(channel, true, 200, "sent");
  if (answer.status === 404 || answer.status === 410)
    return outcome(channel, false, answer.status, `webhook revoked (${answer.status} ${snippet(answer.text)}), channel marked broken`, true);
  return outcome(channel, false, answer.status, `answered ${answer.status} ${snippet(answer.text)}`);
}

interface TelegramAnswer {
  ok?: boolean;
  description?: string;
  parameters?: { retry_after?: number };
}

function readTelegram(text: string): TelegramAnswer {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as TelegramAnswer) : {};
  } catch {
    return {};
  }
}

async function sendTelegram(channel: ChannelTarget, message: AlertMessage, deps: SendDeps): Promise<SendOutcome> {
  const url = `${deps.config.telegramBaseUrl}/bot${channel.secret}/sendMessage`;
  const init = {
    headers: { "content-type": "application/json" },
    // Plain text (no parse_mode): alert titles carry campaign names, which Markdown would mangle.
    body: JSON.stringify({ chat_id: channel.settings.chatId, text: plainText(message, deps.config.appOrigin), disable_web_page_preview: true }),
  };
  let answer = await postWithoutRedirects(deps.fetch, url, init);
  let retried = false;
  for (;;) {
    if ("error" in answer) return outcome(channel, false, null, `not reached (${answer.error.replaceAll(channel.secret, "<token>")})`);
    const body = readTelegram(answer.text);
    const said = snippet(body.description ?? answer.text);
    if (answer.status === 200 && body.ok !== false) return outcome(channel, true, 200, "sent");
    if (answer.status === 403) return outcome(channel, false, 403, `bot blocked or removed from the chat (${said}), channel marked broken`, true);
    if (answer.status === 401 || answer.status === 404)
      return outcome(channel, false, answer.status, `bot token refused (${said}), channel marked broken`, true);
    if (answer.status === 429) {
      const wait = body.parameters?.retry_after;
      if (!retried && typeof wait === "number" && wait <= TELEGRAM_MAX_RETRY_AFTER_S) {
        retried = true;
        await deps.sleep(wait * 1000);
        answer = await postWithoutRedirects(deps.fetch, url, init);
        continue;
      }
      return outcome(channel, false, 429, `rate limited (retry after ${wait ?? "?"} s)${retried ? " again after one wait" : ""}, not sent`);
    }
    return outcome(channel, false, answer.status, `answered ${answer.status} (${said})`);
  }
}

async function sendWebhook(channel: ChannelTarget, message: AlertMessage, deps: SendDeps): Promise<SendOutcome> {
  const problem = webhookUrlProblem(channel.settings.url ?? "");
  if (problem) return outcome(channel, false, null, problem);
  const link = absoluteLink(message, deps.config.appOrigin);
  const body = JSON.stringify({ ...message, link, sentAt: new Date(deps.now()).toISOString() });
  const answer = await postWithoutRedirects(deps.fetch, channel.settings.url!, {
    headers: await signedJsonHeaders(channel.secret, deps.now(), body, "Trackyard-Alerts"),
    body,
  });
  if ("error" in answer) return outcome(channel, false, null, `not reached (${answer.error})`);
  if (answer.status >= 200 && answer.status < 300) return outcome(channel, true, answer.status, `answered ${answer.status}`);
  if (answer.status >= 300 && answer.status < 400)
    return outcome(channel, false, answer.status, `answered a redirect (${answer.status}), which is not followed`);
  return outcome(channel, false, answer.status, `answered ${answer.status} ${snippet(answer.text)}`);
}

async function sendEmail(channel: ChannelTarget, message: AlertMessage, deps: SendDeps): Promise<SendOutcome> {
  const to = (channel.settings.to ?? "").toLowerCase();
  if (!deps.email || !deps.config.emailFrom) return outcome(channel, false, null, "not set up (ALERT_EMAIL binding and ALERT_EMAIL_FROM)");
  if (!deps.config.emailTo.includes(to)) return outcome(channel, false, null, `${to} is not a verified destination listed in ALERT_EMAIL_TO`);
  try {
    // The binding's message builder composes the MIME message itself (Cloudflare Email's Workers API).
    await withTimeout(
      deps.email.send({ from: deps.config.emailFrom, to, subject: `[Trackyard] ${message.title}`, text: plainText(message, deps.config.appOrigin) }),
    );
    return outcome(channel, true, null, `sent to ${to}`);
  } catch (err) {
    return outcome(channel, false, null, `not sent (${err instanceof Error ? err.message : String(err)})`);
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHANNEL_TIMEOUT_MS / 1000} s`)), CHANNEL_TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const SENDERS: Record<ChannelKind, (channel: ChannelTarget, message: AlertMessage, deps: SendDeps) => Promise<SendOutcome>> = {
  email: sendEmail,
  slack: sendSlack,
  telegram: sendTelegram,
  webhook: sendWebhook,
};

/** One channel's delivery; a thrown error (a bug, never a service's answer) is reported like any failure. */
export async function sendToChannel(channel: ChannelTarget, message: AlertMessage, deps: SendDeps): Promise<SendOutcome> {
  try {
    return await SENDERS[channel.kind](channel, message, deps);
  } catch (err) {
    return outcome(channel, false, null, `failed (${err instanceof Error ? err.message : String(err)})`);
  }
}
