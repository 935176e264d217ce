/** Byte encodings the auth and integrations code share. */

/** `bytes` as base64url without padding: safe in a cookie, a URL or a header. */
export const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const encoder = new TextEncoder();

/** The SHA-256 of `text` (UTF-8) in lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
