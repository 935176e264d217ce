import { constantTimeEqual } from "../lib/constant-time";

/**
 * Password hashing: PBKDF2-HMAC-SHA256 through WebCrypto.
 *
 * 100,000 iterations is the most the production Workers runtime allows (local workerd does not
 * enforce the cap, so a unit test pins this constant). Hashes are self-describing
 * (`pbkdf2-sha256$iterations$salt$hash`) so the cost can be raised later without a migration.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SCHEME = "pbkdf2-sha256";

const encoder = new TextEncoder();

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `${SCHEME}$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  const rounds = Number(iterations);
  if (scheme !== SCHEME || !salt || !hash || !Number.isInteger(rounds) || rounds < 1 || rounds > PBKDF2_ITERATIONS) {
    return false;
  }
  const expected = fromBase64(hash);
  const actual = await derive(password, fromBase64(salt), rounds);
  return constantTimeEqual(actual, expected);
}

/**
 * A hash of a password nobody knows: verifying against it makes an unknown username cost the
 * same time as a wrong password, so the two cannot be told apart.
 */
let dummyHash: Promise<string> | undefined;
export const dummyPasswordHash = () => (dummyHash ??= hashPassword(crypto.randomUUID()));
