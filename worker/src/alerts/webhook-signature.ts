/**
 * The generic webhook's signature (docs/alerts.md "Verifying a webhook"): HMAC-SHA256 with the
 * channel's signing secret over `${timestamp}.${body}`, hex, sent as `X-Trackyard-Signature:
 * sha256=<hex>` beside `X-Trackyard-Timestamp: <unix seconds>`. Signing the timestamp with the
 * body lets a receiver refuse a replayed old delivery without keeping state.
 */
export const SIGNATURE_HEADER = "X-Trackyard-Signature";
export const TIMESTAMP_HEADER = "X-Trackyard-Timestamp";

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function signWebhook(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `sha256=${hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`)))}`;
}

/** The headers of a signed JSON delivery: alert channels' generic webhook and webhooks out alike. */
export async function signedJsonHeaders(secret: string, nowMs: number, body: string, userAgent: string): Promise<Record<string, string>> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "content-type": "application/json",
    "user-agent": userAgent,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: await signWebhook(secret, timestamp, body),
  };
}

/** A new signing secret: 32 random bytes, hex, shown to the admin once when the channel is saved. */
export function newSigningSecret(): string {
  return hex(crypto.getRandomValues(new Uint8Array(32)).buffer);
}
