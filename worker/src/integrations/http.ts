/**
 * What the CAKE and TikTok clients share: an injectable `fetch` (tests and local fakes stand in
 * at this boundary), one error type whose message is fit to show an admin, bounded retries of
 * the failures worth retrying, and reading a body that may not be the JSON it claims to be.
 */
import { withRetries } from "../lib/retry";

export type FetchFn = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export type ExternalSource = "CAKE" | "TikTok" | "Namecheap" | "Cloudflare";

/** A failure of an external API, with a message that says what to do about it. */
export class ExternalApiError extends Error {
  constructor(
    readonly source: ExternalSource,
    message: string,
    readonly retryable = false,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ExternalApiError";
  }
}

export interface HttpOptions {
  fetch?: FetchFn;
  /** Waits before each retry of a retryable failure; its length is the number of retries. */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY_DELAYS_MS = [2_000, 8_000] as const;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Calls `attempt` until it succeeds, fails for good, or the retries run out. Only retryable
 * errors (rate limits, 5xx, network trouble) are tried again: a bad token never gets better.
 */
export const withApiRetries = <T>(attempt: () => Promise<T>, options: HttpOptions): Promise<T> =>
  withRetries(attempt, {
    delaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    retryable: (err) => err instanceof ExternalApiError && err.retryable,
    sleep: options.sleep,
  });

/** One HTTP exchange; network failures and timeouts become retryable ExternalApiErrors. */
export async function send(source: ExternalSource, url: URL, init: RequestInit, options: HttpOptions): Promise<Response> {
  const fetchFn = options.fetch ?? fetch;
  try {
    return await fetchFn(url.toString(), { ...init, signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS) });
  } catch (err) {
    const reason = err instanceof Error ? (err.name === "TimeoutError" ? "it did not answer in time" : err.message) : String(err);
    throw new ExternalApiError(source, `Could not reach ${source} at ${url.host}: ${reason}`, true);
  }
}

const snippet = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
};

/** The parsed JSON body; anything else (an HTML error page, a truncated body) is a clear error. */
export async function readJson(source: ExternalSource, res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const retryable = res.status >= 500 || res.status === 429;
    const body = text.trim() ? `: ${snippet(text)}` : " (empty body)";
    throw new ExternalApiError(source, `${source} answered HTTP ${res.status} with something that is not JSON${body}`, retryable);
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
