/**
 * Two-factor sign-in with TOTP (RFC 6238: 6 digits, 30-second steps, SHA-1, as every
 * authenticator app expects), using the otpauth library for the codes and the otpauth:// URI.
 *
 * The secret is stored encrypted (AES-256-GCM, a fresh IV each time, the user's id as associated
 * data so a ciphertext copied to another user does not decrypt). Recovery codes are stored as
 * HMAC-SHA256 digests. Both keys are derived with HKDF from the TWO_FACTOR_KEY secret, each with
 * its own info string. TWO_FACTOR_KEY is its own secret rather than SESSION_SECRET: rotating the
 * session secret (to sign everyone out) must not make every second factor unreadable.
 */
import { Secret, TOTP } from "otpauth";
import { ApiError } from "../lib/errors";

export const TOTP_PERIOD_SECONDS = 30;
/** Codes one step either side of now are accepted: phone clocks drift. */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
export const TOTP_ISSUER = "Trackyard";

const encoder = new TextEncoder();
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

export const NOT_CONFIGURED = "Two-factor sign-in is not set up on this server: set the TWO_FACTOR_KEY secret (at least 32 characters; README, Configuration)";

interface Keys {
  secretKey: CryptoKey;
  recoveryKey: CryptoKey;
}
const keyCache = new Map<string, Promise<Keys>>();

async function deriveKeys(master: string): Promise<Keys> {
  const base = await crypto.subtle.importKey("raw", encoder.encode(master), "HKDF", false, ["deriveKey"]);
  const params = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: encoder.encode("trackyard-two-factor"), info: encoder.encode(info) });
  const [secretKey, recoveryKey] = await Promise.all([
    crypto.subtle.deriveKey(params("trackyard/totp-secret/aes-gcm/v1"), base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]),
    crypto.subtle.deriveKey(params("trackyard/recovery-code/hmac/v1"), base, { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign"]),
  ]);
  return { secretKey, recoveryKey };
}

/** The keys, or a 503 naming the missing secret: the server cannot do two-factor sign-in without it. */
export function twoFactorKeys(master: string | undefined): Promise<Keys> {
  if (!master || master.length < 32) throw new ApiError(503, NOT_CONFIGURED);
  let keys = keyCache.get(master);
  if (!keys) {
    keys = deriveKeys(master);
    keyCache.set(master, keys);
  }
  return keys;
}

export const twoFactorConfigured = (master: string | undefined) => !!master && master.length >= 32;

const ENCRYPTED_PREFIX = "v1";

export async function encryptSecret(keys: Keys, userId: string, base32: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(userId) }, keys.secretKey, encoder.encode(base32));
  return `${ENCRYPTED_PREFIX}:${toBase64(iv)}:${toBase64(new Uint8Array(sealed))}`;
}

export async function decryptSecret(keys: Keys, userId: string, stored: string): Promise<string> {
  const [version, iv, sealed] = stored.split(":");
  if (version !== ENCRYPTED_PREFIX || !iv || !sealed) throw new Error("unreadable two-factor secret");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64(iv), additionalData: encoder.encode(userId) },
    keys.secretKey,
    fromBase64(sealed),
  );
  return new TextDecoder().decode(plain);
}

/** A new random secret (160 bits, RFC 4226's recommended length), base32 as apps take it. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** The otpauth:// URI an authenticator app reads from the QR code. */
export const totpUri = (username: string, base32: string) =>
  new TOTP({ issuer: TOTP_ISSUER, label: username, secret: Secret.fromBase32(base32), period: TOTP_PERIOD_SECONDS }).toString();

/** The 30-second step a time falls in. */
export const totpStep = (now: number) => Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);

/**
 * The time step a code is right for (now, or one step either side), or null when it is wrong. The
 * caller refuses a step at or before the last one used: a code is good once.
 */
export function matchTotp(base32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(base32), period: TOTP_PERIOD_SECONDS, window: TOTP_WINDOW, timestamp: now });
  return delta === null ? null : totpStep(now) + delta;
}

// Recovery codes: 10 characters from an alphabet without look-alikes (no 0/O, 1/I/L), about 50
// bits each, written xxxxx-xxxxx. Case, spaces and dashes do not matter when typed back.
const RECOVERY_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

function recoveryCode(): string {
  let code = "";
  while (code.length < 10) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      // 248 = 8 × 31: bytes above it are skipped so every character is equally likely.
      if (byte < 248 && code.length < 10) code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
    }
  }
  return `${code.slice(0, 5)}-${code.slice(5)}`.toLowerCase();
}

export const newRecoveryCodes = () => Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);

/** Whether typed text has the shape of a recovery code (as opposed to a 6-digit TOTP code). */
export const normaliseRecoveryCode = (typed: string) => {
  const compact = typed.replace(/[\s-]/g, "").toUpperCase();
  return compact.length === 10 && [...compact].every((ch) => RECOVERY_ALPHABET.includes(ch)) ? compact : null;
};

export async function hashRecoveryCode(keys: Keys, code: string): Promise<string> {
  const normal = normaliseRecoveryCode(code) ?? code;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", keys.recoveryKey, encoder.encode(normal)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}
