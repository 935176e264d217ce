/**
 * A campaign's traffic distribution on /r/ (docs/traffic-distribution.md): its paths compiled once
 * per campaign read (tracking/campaign-cache.ts) into plain functions, then per visit the first
 * matching path, a lander and an offer by weight. No D1 and, unless a rule tests the device, OS or
 * browser, no user-agent parsing here. The bot flag is never an input: a bot gets the path any
 * visitor with its properties would get (docs/product-rules.md, no cloaking).
 */
import type { TrackedCampaign } from "../db/queries/campaigns";
import type { Condition, ConditionField } from "../schemas/paths";
import { parseUserAgent, type ParsedAgent } from "./user-agent";

export interface LanderVariant {
  id: number;
  url: string;
  weight: number;
}
export interface OfferVariant {
  id: number;
  url: string;
  template: string;
  weight: number;
}

/** A path as stored, with its variants' URLs (db/queries/paths.ts `readTrackedPaths`). */
export interface StoredPath {
  id: number;
  name: string;
  isDefault: boolean;
  conditions: Condition[];
  directToOffer: boolean;
  stickyDays: number | null;
  landers: (LanderVariant & { paused: boolean })[];
  offers: (OfferVariant & { paused: boolean })[];
}

/** What a path's conditions can read about a visit. Lazy parts are computed once, when a rule asks. */
export interface Visit {
  country: string | null;
  region: string | null;
  city: string | null;
  asn: number | null;
  /** The first language of Accept-Language, lower case (`preferredLanguage`). */
  language: () => string | null;
  query: URLSearchParams;
  agent: () => ParsedAgent;
  /** Day of week (0 Sunday) and hour in the report time zone. */
  clock: () => { weekday: number; hour: number };
}

export interface CompiledPath {
  id: number;
  name: string;
  isDefault: boolean;
  matches: (visit: Visit) => boolean;
  /** Only the variants that can receive visitors: not paused, weight above 0. */
  landers: LanderVariant[];
  landerTotal: number;
  offers: OfferVariant[];
  offerTotal: number;
  directToOffer: boolean;
  /** Null: not sticky. */
  stickyMs: number | null;
}

export interface Distribution {
  paths: CompiledPath[];
  /** Whether any rule tests the device type, OS or browser: only then is the user agent parsed on /r/. */
  usesAgent: boolean;
  timeZone: string;
}

const DAY_MS = 86_400_000;
const AGENT_FIELDS: ReadonlySet<ConditionField> = new Set(["deviceType", "os", "browser"]);

const norm = (v: string) => v.trim().toLowerCase();
/** Numbers as text the way a rule's values are written ("07" is "7"). */
const numeric = (v: string) => String(Number(v.trim()));

/** The visitor's preferred language, lower case ("en-us"), from Accept-Language: the first tag, which browsers list first. */
export function preferredLanguage(header: string | null): string | null {
  if (!header) return null;
  const first = header.split(",")[0]!.split(";")[0]!.trim().toLowerCase();
  return first && first !== "*" ? first : null;
}

function reader(c: Condition): (v: Visit) => string | null {
  const text = (value: string | null) => (value === null || value === "" ? null : norm(value));
  switch (c.field) {
    case "country":
      return (v) => text(v.country);
    case "region":
      return (v) => text(v.region);
    case "city":
      return (v) => text(v.city);
    case "asn":
      return (v) => (v.asn === null ? null : String(v.asn));
    case "deviceType":
      return (v) => text(v.agent().deviceType);
    case "os":
      return (v) => text(v.agent().os);
    case "browser":
      return (v) => text(v.agent().browser);
    case "language":
      return (v) => v.language();
    case "weekday":
      return (v) => String(v.clock().weekday);
    case "hour":
      return (v) => String(v.clock().hour);
    case "param": {
      const name = c.param ?? "";
      return (v) => text(v.query.get(name));
    }
  }
}

/** One condition as a test: its values ORed, "is" or "is not". A missing value never "is" anything. */
export function compileCondition(c: Condition): (visit: Visit) => boolean {
  const numericField = c.field === "weekday" || c.field === "hour" || c.field === "asn";
  const values = new Set(c.values.map(numericField ? numeric : norm));
  const read = reader(c);
  // A language rule for "en" takes "en-US" too; one for "en-US" only that.
  const hit = c.field === "language" ? (x: string) => values.has(x) || values.has(x.split("-")[0]!) : (x: string) => values.has(x);
  const is = c.op === "is";
  return (visit) => {
    const x = read(visit);
    return (x !== null && hit(x)) === is;
  };
}

const eligible = <T extends { weight: number; paused: boolean }>(variants: T[]) => variants.filter((v) => !v.paused && v.weight > 0);
const total = (variants: { weight: number }[]) => variants.reduce((sum, v) => sum + v.weight, 0);

export function compileDistribution(stored: StoredPath[], timeZone: string): Distribution {
  const paths = stored.map((p): CompiledPath => {
    const tests = p.isDefault ? [] : p.conditions.map(compileCondition);
    const landers = eligible(p.landers).map(({ id, url, weight }) => ({ id, url, weight }));
    const offers = eligible(p.offers).map(({ id, url, template, weight }) => ({ id, url, template, weight }));
    return {
      id: p.id,
      name: p.name,
      isDefault: p.isDefault,
      matches: tests.length === 0 ? () => true : (visit) => tests.every((test) => test(visit)),
      landers,
      landerTotal: total(landers),
      offers,
      offerTotal: total(offers),
      directToOffer: p.directToOffer,
      stickyMs: p.stickyDays === null ? null : p.stickyDays * DAY_MS,
    };
  });
  return {
    paths,
    usesAgent: stored.some((p) => !p.isDefault && p.conditions.some((c) => AGENT_FIELDS.has(c.field))),
    timeZone,
  };
}

/** The first path whose conditions all hold; the default path (last) holds for everyone. */
export function choosePath(distribution: Distribution, visit: Visit): CompiledPath {
  const { paths } = distribution;
  for (const path of paths) if (path.matches(visit)) return path;
  return paths[paths.length - 1]!;
}

/** The variant at `r` (0 <= r < 1) of the cumulated weights. */
export function byWeight<T extends { weight: number }>(variants: T[], totalWeight: number, r: number): T | null {
  if (!variants.length) return null;
  let at = r * totalWeight;
  for (const v of variants) {
    at -= v.weight;
    if (at < 0) return v;
  }
  return variants[variants.length - 1]!;
}

/** murmur3's 32-bit finaliser: spreads every input bit over the output. */
function mix32(h: number) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Weighted rendezvous hashing: each eligible variant scores -ln(u)/weight with u a hash of the
 * visitor's seed and the variant's id; the lowest wins. A variant is chosen with probability
 * weight / total, the same visitor keeps the same variant while the set is unchanged, and a paused
 * or 0% variant is not in the set, so nobody, sticky or not, can reach it. Removing a variant
 * moves only its own visitors.
 */
export function byRendezvous<T extends { id: number; weight: number }>(variants: T[], seed: number): T | null {
  let best: T | null = null;
  let bestScore = Infinity;
  for (const v of variants) {
    const u = (mix32(seed ^ Math.imul(v.id, 0x9e3779b1)) + 0.5) / 4294967296;
    const score = -Math.log(u) / v.weight;
    if (score < bestScore) {
      bestScore = score;
      best = v;
    }
  }
  return best;
}

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();
const hmacKey = (secret: string) => {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
};

/**
 * The sticky visitor's seeds for a path: a keyed hash (HMAC-SHA256 with SESSION_SECRET) of IP and
 * user agent, so nobody can work out whose hash is whose, mixed with the path and the visitor's
 * current window of `stickyMs`. Windows are staggered per visitor (the hash picks the offset), so
 * a path's visitors do not all switch at the same instant.
 */
export async function stickySeeds(secret: string, ip: string | null, userAgent: string | null, pathId: number, stickyMs: number, now: number) {
  const digest = new Uint32Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${ip ?? ""}\n${userAgent ?? ""}`)));
  const offset = (digest[0]! / 4294967296) * stickyMs;
  const window = Math.floor((now + offset) / stickyMs);
  const base = mix32(digest[1]! ^ mix32(pathId ^ mix32(window)));
  return { lander: mix32(base ^ 0x1b873593), offer: mix32(base ^ digest[2]! ^ 0xcc9e2d51) };
}

export interface Choice {
  path: CompiledPath;
  lander: LanderVariant | null;
  offer: OfferVariant | null;
}

/** The visitor's lander and offer on `path`: by weight, or by their sticky seeds. */
export function chooseVariants(path: CompiledPath, seeds: { lander: number; offer: number } | null, random = Math.random): Choice {
  if (seeds) return { path, lander: byRendezvous(path.landers, seeds.lander), offer: byRendezvous(path.offers, seeds.offer) };
  return { path, lander: byWeight(path.landers, path.landerTotal, random()), offer: byWeight(path.offers, path.offerTotal, random()) };
}

const weekdays: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
/**
 * Every time zone's offset from UTC is a whole number of quarter hours, so the day and hour in any
 * zone stay the same through each UTC quarter hour: the clock is worked out once per quarter hour
 * and zone (Intl's formatting costs microseconds), not per visit.
 */
const QUARTER_HOUR_MS = 15 * 60_000;
const clocks = new Map<string, { format: Intl.DateTimeFormat; quarter: number; clock: { weekday: number; hour: number } }>();

/** Day of week and hour of `at` in `timeZone` (the report time zone). */
export function clockIn(timeZone: string, at: number) {
  const quarter = Math.floor(at / QUARTER_HOUR_MS);
  let zone = clocks.get(timeZone);
  if (zone?.quarter === quarter) return zone.clock;
  if (!zone) {
    const format = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "numeric", hourCycle: "h23" });
    zone = { format, quarter: NaN, clock: { weekday: 0, hour: 0 } };
    clocks.set(timeZone, zone);
  }
  let weekday = 0;
  let hour = 0;
  for (const part of zone.format.formatToParts(at)) {
    if (part.type === "weekday") weekday = weekdays[part.value] ?? 0;
    else if (part.type === "hour") hour = Number(part.value) % 24;
  }
  zone.quarter = quarter;
  zone.clock = { weekday, hour };
  return zone.clock;
}

/** Computes `compute` once, on first use. */
export function once<T>(compute: () => T): () => T {
  let value: T | undefined;
  let done = false;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value as T;
  };
}

/**
 * A visit for the rules, from what /r/ (or the preview) knows. The agent, the clock and the
 * language are worked out only if a rule asks, and then once: a visit no rule asks about costs
 * none of them.
 */
export function visitOf(
  facts: Omit<Visit, "agent" | "clock" | "language"> & { acceptLanguage: string | null; userAgent: string | null; at: number },
  timeZone: string,
  agent: (ua: string | null) => ParsedAgent = parseUserAgent,
): Visit {
  const { userAgent, at, acceptLanguage, country, region, city, asn, query } = facts;
  return {
    country,
    region,
    city,
    asn,
    query,
    language: once(() => preferredLanguage(acceptLanguage)),
    agent: once(() => agent(userAgent)),
    clock: once(() => clockIn(timeZone, at)),
  };
}

export type TrackedOffer = NonNullable<TrackedCampaign["offer"]>;

/** A campaign as the isolate keeps it for /r/ and /click: its paths compiled. */
export interface LiveCampaign extends Omit<TrackedCampaign, "paths" | "timeZone"> {
  /** Null: no paths of its own, so one implicit default path (its lander and offer), exactly as before paths existed. */
  distribution: Distribution | null;
  /** The offers a click of this campaign may carry: its paths' and its own. */
  offers: Map<number, TrackedOffer>;
}

export function liveCampaign({ paths, timeZone, ...campaign }: TrackedCampaign): LiveCampaign {
  const offers = new Map<number, TrackedOffer>();
  if (campaign.offer) offers.set(campaign.offer.id, campaign.offer);
  for (const p of paths) for (const o of p.offers) offers.set(o.offerId, { id: o.offerId, url: o.url, template: o.template });
  const distribution = paths.length
    ? compileDistribution(
        paths.map((p) => ({
          ...p,
          landers: p.landers.map((l) => ({ id: l.landerId, url: l.url, weight: l.weight, paused: l.paused })),
          offers: p.offers.map((o) => ({ id: o.offerId, url: o.url, template: o.template, weight: o.weight, paused: o.paused })),
        })),
        timeZone,
      )
    : null;
  return { ...campaign, distribution, offers };
}
