import { hc } from "hono/client";
import type { AppType } from "../../../worker/src/app";
import { ACCESS_KEY_HEADER } from "../../../worker/src/auth/access-key";

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

/** `fetch` at call time (tests stub it), passing each answer's access key on. */
const fetchHearingAccess: typeof fetch = async (input, init) => {
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
