/**
 * TikTok Events API (server-side conversions): `POST /open_api/v1.3/event/track/` with header
 * `Access-Token` and `{ event_source: "web", event_source_id, test_event_code?, data: [...] }`
 * (docs in the README, "Conversions sent to TikTok"). Success is HTTP 2xx **and** `code` 0: TikTok
 * answers most refusals with HTTP 200 and a code. How each code is read is the table in
 * docs/integrations.md ("TikTok Events API"): rate limits and 5xxxx are retried, the token and
 * permission codes are ours to fix, and any other 4xxxx is TikTok refusing the request, which for
 * this endpoint can be one malformed event failing the whole call (⚠ reported by third parties,
 * not documented): the caller then splits the call to find it.
 */
import { ExternalApiError, isRecord, readJson, send, type HttpOptions } from "./http";

export const TIKTOK_EVENTS_PATH = "/open_api/v1.3/event/track/";
/** Events per call: TikTok's limit as third parties report it. */
export const TIKTOK_EVENTS_PER_CALL = 1000;

export interface TikTokEventsConfig {
  baseUrl: string;
  accessToken: string;
  /** The pixel code (`event_source_id`). */
  pixelCode: string;
  /** Set: the events show under Events Manager → Test Events instead of counting. */
  testEventCode: string | null;
}

/** One event as the API takes it. */
export interface TikTokEvent {
  event: string;
  /** Unix seconds. */
  event_time: number;
  event_id: string;
  user: { ttclid?: string; external_id?: string; ip?: string; user_agent?: string };
  page?: { url: string };
  /**
   * What was bought, as TikTok's own server-side template fills it: without `contents` Events
   * Manager's diagnostics flag a CompletePayment (docs/integrations.md).
   */
  properties?: {
    value?: number;
    currency?: string;
    content_type?: "product";
    contents?: { content_id: string; content_name?: string; price?: number; quantity: number }[];
  };
}

/** How a call ended. `kind` says what the caller does with its events. */
export type EventsOutcome =
  | { kind: "sent" }
  /** Worth trying again later (rate limit, TikTok's trouble, the network). */
  | { kind: "retry"; code: number | null; message: string }
  /** Ours to fix (token, permission, address), not the events': every event of the call failed, and can be resent once fixed. */
  | { kind: "setup"; code: number | null; message: string }
  /** TikTok refused the request: possibly one bad event among good ones. */
  | { kind: "invalid"; code: number | null; message: string };

const RATE_LIMITED = new Set([40100, 40016, 40133]);
const TOKEN_OR_PERMISSION: Record<number, string> = {
  40001: "The Events API token has no permission for this pixel",
  40102: "The Events API access token has expired: generate a new one and update TIKTOK_EVENTS_ACCESS_TOKEN",
  40104: "TikTok received no Events API access token: set TIKTOK_EVENTS_ACCESS_TOKEN",
  40105: "The Events API access token is not valid: check TIKTOK_EVENTS_ACCESS_TOKEN",
};

/** TikTok's code as the outcome the sender acts on; `theirs` is TikTok's own message. */
export function eventsOutcome(code: number, theirs: string): EventsOutcome {
  const message = (text: string) => (theirs ? `${text} (TikTok: ${theirs})` : text);
  if (code === 0) return { kind: "sent" };
  if (RATE_LIMITED.has(code)) return { kind: "retry", code, message: message("TikTok's rate limit was reached") };
  if (code >= 50000 && code < 60000) return { kind: "retry", code, message: message(`TikTok had a temporary problem (code ${code})`) };
  const setup = TOKEN_OR_PERMISSION[code];
  if (setup) return { kind: "setup", code, message: message(setup) };
  return { kind: "invalid", code, message: message(`TikTok refused the events (code ${code})`) };
}

/**
 * One call to the Events API. Never throws: every failure is an outcome. An HTTP 4xx without
 * TikTok's code (a wrong TIKTOK_BASE_URL, a proxy) is about how we reach TikTok, not the events.
 */
export async function sendEvents(config: TikTokEventsConfig, data: TikTokEvent[], options: HttpOptions = {}): Promise<EventsOutcome> {
  const url = new URL(config.baseUrl.replace(/\/+$/, "") + TIKTOK_EVENTS_PATH);
  const body = {
    event_source: "web",
    event_source_id: config.pixelCode,
    ...(config.testEventCode ? { test_event_code: config.testEventCode } : {}),
    data,
  };
  try {
    const res = await send(
      "TikTok",
      url,
      {
        method: "POST",
        headers: { "Access-Token": config.accessToken, "Content-Type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      },
      options,
    );
    const json = await readJson("TikTok", res);
    const code = isRecord(json) && json.code !== null && json.code !== "" ? Number(json.code) : Number.NaN;
    const theirs = isRecord(json) && typeof json.message === "string" ? json.message : "";
    if (Number.isInteger(code) && code !== 0) return eventsOutcome(code, theirs);
    if (!res.ok) {
      const retry = res.status >= 500 || res.status === 429;
      return { kind: retry ? "retry" : "setup", code: null, message: `TikTok answered HTTP ${res.status}${theirs ? ` (TikTok: ${theirs})` : ""}` };
    }
    if (code !== 0) return { kind: "retry", code: null, message: "TikTok answered without a code: the events' fate is unknown, so they are sent again" };
    return { kind: "sent" };
  } catch (err) {
    if (err instanceof ExternalApiError) return { kind: err.retryable ? "retry" : "setup", code: null, message: err.message };
    throw err;
  }
}
