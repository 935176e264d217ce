/**
 * Click ids that carry their own check (docs/tracking.md "What the public routes do"), so a made-up id on
 * /click, the postback or the TikTok claims is refused without a D1 lookup.
 *
 * A new id keeps the UUID text shape (8-4-4-4-12 lowercase hex: the clicks table, CAKE's sub2 and
 * every lander's sessionStorage take it as before) and is a valid RFC 9562 UUID of version 8, the
 * version left for custom layouts. Its 32 hex digits:
 *
 *   RRRRRRRR-RRRR-8LRR-8RRR-RRRCCCCCCCCC
 *
 * - `8` at digit 12: UUID version 8; `8` at digit 16: the RFC variant (its two free bits zero);
 * - `L` at digit 13: the layout. `0` is this one: 20 random digits (80 bits: among 3 billion
 *   clicks, 90 days at a billion a month, a repeat has odds of about 4 in a million, and the
 *   clicks table's unique index would catch it). A later layout can spend random digits on
 *   naming where the click is stored (a shard and a day); the check covers them too, so a forged
 *   name fails it like any made-up id;
 * - `C`: the check, the first 36 bits of HMAC-SHA-256 over the 23 digits before it (as text), keyed
 *   with a key derived from SESSION_SECRET. A guessed id passes once in 2^36 (69 billion) tries.
 *
 * The check is load shedding, not authentication: a real id is in every offer URL a visitor sees.
 *
 * Old ids (before this layout: `crypto.randomUUID()`, version 4) are still in landers' sessions
 * and in CAKE's sub2 of conversions to come, so they stay valid: `legacy` ids take the old path,
 * a lookup bounded by the per-address limit, without the wait a new id may get. Once the click
 * retention window (docs/data.md "Retention and archives") has passed since upgrading, no stored click
 * has one.
 */
import { constantTimeEqual } from "../lib/constant-time";

const encoder = new TextEncoder();
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

const VERSION = "8";
const LAYOUT = "0";
const VARIANT = "8";
/** Digits before the check, and of the check. */
const SIGNED_DIGITS = 23;
const CHECK_DIGITS = 9;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What `crypto.randomUUID()` makes: version 4, RFC variant. */
const LEGACY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The check's key: derived from SESSION_SECRET with HKDF and its own salt and info string (as
 * TWO_FACTOR_KEY's keys are from theirs), so no deployment needs a new secret and the key is
 * never the session-signing key itself. Changing SESSION_SECRET therefore also retires the ids
 * handed out before (README "Configuration").
 */
const keys = new Map<string, Promise<CryptoKey>>();
function checkKey(secret: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error("SESSION_SECRET is missing or shorter than 32 characters");
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: encoder.encode("trackyard-click-id"), info: encoder.encode("trackyard/click-id/hmac/v1") },
          base,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign"],
        ),
      );
    keys.set(secret, key);
  }
  return key;
}

/** The check digits of the 23 digits before them. */
async function checkOf(secret: string, signed: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await checkKey(secret), encoder.encode(signed));
  return hex(new Uint8Array(mac, 0, 5)).slice(0, CHECK_DIGITS);
}

const dashed = (digits: string) => `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;

/** A new click's id (layout 0). */
export async function newClickId(secret: string): Promise<string> {
  const random = hex(crypto.getRandomValues(new Uint8Array(10)));
  const signed = `${random.slice(0, 12)}${VERSION}${LAYOUT}${random.slice(12, 14)}${VARIANT}${random.slice(14)}`;
  return dashed(signed + (await checkOf(secret, signed)));
}

export type ClickIdKind = "current" | "legacy";

/**
 * What a click id from outside (a query parameter, CAKE's sub2) can be: one of ours (`current`),
 * an id from before the check (`legacy`), or null: it cannot be ours, and nothing is looked up.
 * Upper-case hex is read as lower case (the id as stored).
 */
export async function checkClickId(secret: string, raw: string): Promise<{ clickId: string; kind: ClickIdKind } | null> {
  const clickId = raw.toLowerCase();
  if (!UUID_SHAPE.test(clickId)) return null;
  if (LEGACY_SHAPE.test(clickId)) return { clickId, kind: "legacy" };
  const digits = clickId.replace(/-/g, "");
  if (digits[12] !== VERSION || digits[13] !== LAYOUT || digits[16] !== VARIANT) return null;
  const expected = await checkOf(secret, digits.slice(0, SIGNED_DIGITS));
  return constantTimeEqual(encoder.encode(expected), encoder.encode(digits.slice(SIGNED_DIGITS))) ? { clickId, kind: "current" } : null;
}
