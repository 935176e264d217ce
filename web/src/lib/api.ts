import { hc } from "hono/client";
import type { AppType } from "../../../worker/src/app";
import { ACCESS_KEY_HEADER } from "../../../worker/src/auth/access-key";
import { callKey, type PrimedCall } from "../../../worker/src/boot-parts";

/** An API failure: the HTTP status and the server's `error` sentence (docs/product-rules.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
    /** The server's machine-readable reason, where there is one (lib/reauth.ts). */
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

const accessKeyListeners = new Set<(key: string) => void>();

/**
 * Hears the access key of every API answer (worker/src/auth/access-key.ts) until the returned
 * function is called: app/follow-access.ts compares it with the signed-in user's.
 */
export function onAccessKey(listener: (key: string) => void): () => void {
  accessKeyListeners.add(listener);
  return () => accessKeyListeners.delete(listener);
}

/** How long after the page's start an answer from its document may stand in for a call. */
const PRIMED_FOR_MS = 10_000;
const primed = new Map<string, unknown>();
let primedUntil = 0;

/**
 * The answers of the screen's first calls that came in its document (worker/src/lib/boot-data.ts,
 * app/boot-data.ts): each answers, once, the first request this app makes with exactly its path
 * and query, within the page's first 10 seconds (`pageStart`: when the page's navigation began).
 * Any other request goes out as ever, and any write (a sign-in, a sign-out, a save) drops those
 * left unused: what they say may no longer hold, and they were the signed-in user's.
 */
export function primeAnswers(calls: readonly PrimedCall[], pageStart = performance.timeOrigin) {
  for (const c of calls) primed.set(callKey(c.path, c.query), c.answer);
  primedUntil = pageStart + PRIMED_FOR_MS;
}

/** The primed answer for a GET of `input`, taken out; undefined when there is none. */
function takePrimed(input: RequestInfo | URL, init?: RequestInit): Response | undefined {
  if (primed.size === 0) return undefined;
  if ((init?.method ?? "GET") !== "GET" || Date.now() > primedUntil) {
    primed.clear();
    return undefined;
  }
  if (input instanceof Request) return undefined;
  const url = new URL(input, location.origin);
  const key = callKey(url.pathname, url.searchParams);
  if (!primed.has(key)) return undefined;
  const answer = primed.get(key);
  primed.delete(key);
  return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
}

/** `fetch` at call time (tests stub it), passing each answer's access key on. */
const fetchHearingAccess: typeof fetch = async (input, init) => {
  const early = takePrimed(input, init);
  if (early) return early;
  const res = await fetch(input, init);
  const key = res.headers.get(ACCESS_KEY_HEADER);
  if (key) for (const listener of accessKeyListeners) listener(key);
  return res;
};

/** The typed client for our own API: paths, inputs and responses come from the Worker's types. */
export const api = hc<AppType>("/", { fetch: fetchHearingAccess, init: { credentials: "same-origin" } }).api;

async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  let message = text || res.statusText || `Request failed (${res.status})`;
  let details: string[] = [];
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; details?: unknown; code?: unknown };
    if (typeof body.error === "string") message = body.error;
    if (Array.isArray(body.details)) details = body.details.filter((d): d is string => typeof d === "string");
    if (typeof body.code === "string") code = body.code;
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return new ApiError(res.status, message, details, code);
}

/** Awaits a typed-client call and returns its JSON, or throws an ApiError carrying the server's message. */
export async function unwrap<T extends { ok: boolean; json(): Promise<unknown> }>(
  request: Promise<T>,
): Promise<T extends { ok: true; json(): Promise<infer R> } ? R : never> {
  let res: T;
  try {
    res = await request;
  } catch (err) {
    throw new ApiError(0, err instanceof Error && err.message ? `Network error: ${err.message}` : "Network error");
  }
  if (!res.ok) throw await errorFrom(res as unknown as Response);
  return (await res.json()) as T extends { ok: true; json(): Promise<infer R> } ? R : never;
}

/** The message to show for a failure, with the product's fallback when there is none. */
export const messageOf = (error: unknown, fallback: string) => (error instanceof Error && error.message ? error.message : fallback);
