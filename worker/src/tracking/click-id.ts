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
 *   clicks table's unique index would catch it). Layout `1` spends five of them on naming where
 *   the click is stored, its UTC day and shard (below); the check covers them too, so a forged
 *   name fails it like any made-up id;
 * - `C`: the check, the first 36 bits of HMAC-SHA-256 over the 23 digits before it (as text), keyed
 *   with a key derived from SESSION_SECRET. A guessed id passes once in 2^36 (69 billion) tries.
 *
 * The check is load shedding, not authentication: a real id is in every offer URL a visitor sees.
 *
 * Layout 1 (docs/click-storage.md "The click id that names its shard"):
 *
 *   RRRRRRRR-RRRR-81RR-8DDD-SSRCCCCCCCCC
 *
 * `DDD`: the click's UTC day as days since 2020-01-01, modulo 4,096 (11 years: the day is the newest
 * one with that remainder that is not after tomorrow); `SS`: its shard that day, 0-255; 15 random
 * digits (60 bits within one shard-day). Such an id is made only by a store that writes the click
 * to that shard-day, so its id is where it is looked up.
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
const SHARDED_LAYOUT = "1";
const VARIANT = "8";
/** Day 0 of a layout-1 id's day: 2020-01-01 UTC. */
const DAY_ZERO = Date.UTC(2020, 0, 1);
const DAY_MS = 86_400_000;
/** A layout-1 id holds its day modulo this (three hex digits). */
const DAY_CYCLE = 4096;
/** Shards a day can have at most (two hex digits). */
export const MAX_SHARDS = 256;
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

/** Where a layout-1 id's click is stored: its UTC day (days since 2020-01-01) and its shard that day. */
export interface ClickPlace {
  day: number;
  shard: number;
  /**
   * A legacy object read for a range (tracking/click-log.ts `shardPlacesOf`): only its clicks with
   * ids up to this, the move's point; one past it is a move step's copy still in D1 too.
   */
  upTo?: number;
}

/**
 * The legacy objects' "day": the clicks D1 held before the switch to layout 1, moved out of D1
 * (tracking/click-move.ts) into LEGACY_SHARDS objects of the same class as a shard-day's, named
 * `clicks/legacy/<n>`. An old id names none of the day or shard digits a layout-1 id has, so its
 * object is chosen by its first two hex digits (random in both old layouts): still one lookup
 * in one object (docs/click-storage.md "The click id that names its shard").
 */
export const LEGACY_DAY = -1;
export const LEGACY_SHARDS = 16;

/** The legacy object holding an old id's click once it is moved. */
export const legacyPlace = (clickId: string): ClickPlace => ({ day: LEGACY_DAY, shard: parseInt(clickId.slice(0, 2), 16) % LEGACY_SHARDS });

/** Every legacy object's place. */
export const legacyPlaces = (): ClickPlace[] => Array.from({ length: LEGACY_SHARDS }, (_, shard) => ({ day: LEGACY_DAY, shard }));

/**
 * The Durable Object holding a shard-day's clicks (tracking/click-shard.ts), or a legacy object's.
 * Here, away from the object's class, so code that only names an object loads no runtime module.
 */
export const shardName = ({ day, shard }: ClickPlace) => (day === LEGACY_DAY ? `clicks/legacy/${shard}` : `clicks/${day}/${shard}`);

/** The UTC day (days since 2020-01-01) of an instant, as a layout-1 id counts it. */
export const clickDayOf = (at: number) => Math.floor((at - DAY_ZERO) / DAY_MS);

/** The first instant of such a day. */
export const clickDayStart = (day: number) => DAY_ZERO + day * DAY_MS;

/**
 * A new click's id: layout 0, or layout 1 naming `place` (a day not before 2020-01-01 and a shard
 * below MAX_SHARDS).
 */
export async function newClickId(secret: string, place?: ClickPlace): Promise<string> {
  if (!place) {
    const random = hex(crypto.getRandomValues(new Uint8Array(10)));
    const signed = `${random.slice(0, 12)}${VERSION}${LAYOUT}${random.slice(12, 14)}${VARIANT}${random.slice(14)}`;
    return dashed(signed + (await checkOf(secret, signed)));
  }
  const { day, shard } = place;
  if (!Number.isInteger(day) || day < 0 || !Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARDS) {
    throw new RangeError(`no layout-1 click id names day ${day}, shard ${shard}`);
  }
  const random = hex(crypto.getRandomValues(new Uint8Array(8)));
  const named = (day % DAY_CYCLE).toString(16).padStart(3, "0") + shard.toString(16).padStart(2, "0");
  const signed = `${random.slice(0, 12)}${VERSION}${SHARDED_LAYOUT}${random.slice(12, 14)}${VARIANT}${named}${random.slice(14, 15)}`;
  return dashed(signed + (await checkOf(secret, signed)));
}

/**
 * The day a layout-1 id's three day digits mean, read on day `today`: the newest day with that
 * remainder that is not after tomorrow (around midnight UTC, the Worker that made an id may already
 * be on the next day when another reads it).
 */
export function dayOfDigits(digits: number, today: number): number {
  const tomorrow = today + 1;
  return tomorrow - ((((tomorrow - digits) % DAY_CYCLE) + DAY_CYCLE) % DAY_CYCLE);
}

export type ClickIdKind = "current" | "legacy" | "sharded";

/** A click id that can be ours; a layout-1 (`sharded`) one with where its click is stored. */
export type CheckedClickId = { clickId: string; kind: "current" | "legacy" } | { clickId: string; kind: "sharded"; place: ClickPlace };

/**
 * What a click id from outside (a query parameter, CAKE's sub2) can be: one of ours (`current`,
 * or `sharded` with its day and shard, the day read on the UTC day of `now`), an id from before
 * the check (`legacy`), or null: it cannot be ours, and nothing is looked up. Upper-case hex is
 * read as lower case (the id as stored). Whether a sharded id's day is still kept and its shard
 * within that day's count is the store's question (`isKeptPlace`).
 */
export async function checkClickId(secret: string, raw: string, now = Date.now()): Promise<CheckedClickId | null> {
  const clickId = raw.toLowerCase();
  if (!UUID_SHAPE.test(clickId)) return null;
  if (LEGACY_SHAPE.test(clickId)) return { clickId, kind: "legacy" };
  const digits = clickId.replace(/-/g, "");
  if (digits[12] !== VERSION || digits[16] !== VARIANT || (digits[13] !== LAYOUT && digits[13] !== SHARDED_LAYOUT)) return null;
  const expected = await checkOf(secret, digits.slice(0, SIGNED_DIGITS));
  if (!constantTimeEqual(encoder.encode(expected), encoder.encode(digits.slice(SIGNED_DIGITS)))) return null;
  const place = placeOfDigits(digits, now);
  return place ? { clickId, kind: "sharded", place } : { clickId, kind: "current" };
}

/** The place a layout-1 id's 32 digits name, read on the UTC day of `now`; null for another layout. */
function placeOfDigits(digits: string, now: number): ClickPlace | null {
  if (digits[12] !== VERSION || digits[13] !== SHARDED_LAYOUT || digits[16] !== VARIANT) return null;
  return { day: dayOfDigits(parseInt(digits.slice(17, 20), 16), clickDayOf(now)), shard: parseInt(digits.slice(20, 22), 16) };
}

/**
 * `checkClickId` without the signature: what an id names if it is ours, for a read that finds
 * nothing under a forged id (TikTok's claims: tracking/attributed-clicks.ts `shardClicksFor`). A
 * layout-1 id is `sharded` with the place it names; any other id of the right shape may be an old
 * one (`legacy`).
 */
export function uncheckedClickId(raw: string, now = Date.now()): CheckedClickId | null {
  const clickId = raw.toLowerCase();
  if (!UUID_SHAPE.test(clickId)) return null;
  const place = placeOfDigits(clickId.replace(/-/g, ""), now);
  return place ? { clickId, kind: "sharded", place } : { clickId, kind: "legacy" };
}

/**
 * Where the click of one of our own ids is stored (a layout-1 id: its day and shard), without the
 * check: for ids this Worker made and sent itself (the clicks queue's messages). Null for an id of
 * another layout, whose click D1 holds.
 */
export function placeOfClickId(clickId: string, now = Date.now()): ClickPlace | null {
  return UUID_SHAPE.test(clickId) ? placeOfDigits(clickId.replace(/-/g, ""), now) : null;
}

/**
 * Whether a sharded id's place can hold a click on day `today`: its day kept (not older than
 * `keptDays` before today; tomorrow's at most, which `checkClickId` already ensures) and its shard
 * below that day's count. An id failing this is looked up nowhere, like a malformed one. The
 * day digits repeat every 4,096 days, so `keptDays` must stay below 4,095 (the retention's longest,
 * 3,650 days, is).
 */
export function isKeptPlace(place: ClickPlace, today: number, keptDays: number, shardsOn: (day: number) => number): boolean {
  return place.day >= today - keptDays && place.day <= today + 1 && place.shard < shardsOn(place.day);
}
