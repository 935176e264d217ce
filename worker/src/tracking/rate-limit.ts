/**
 * The per-IP rate limit on the public tracking routes (Workers Rate Limiting bindings, configured
 * in wrangler.toml; docs/tracking.md "Rate limits"). A request asks it once at most. Usually after the
 * answer, whether the click (or exit) is stored; a request that would have to ask D1 for something
 * this isolate does not hold in memory (a campaign, a click) asks before, and over the limit it
 * gets no lookup (docs/tracking.md "What the public routes do"). A refused one is counted per campaign and
 * quarter hour, and those counts reach D1 together, about once a second per isolate, never as a
 * write per request.
 */
import { addRefusals, type RefusalCount } from "../db/queries/refused-clicks";
import type { Db } from "../env";
import { withRetries } from "../lib/retry";

type Background = Pick<ExecutionContext, "waitUntil">;
export type LimitedEvent = "click" | "exit";

/**
 * Whom a request counts against: an IPv4 address, or an IPv6 address's /64 (one subscriber's
 * network: a device picks new addresses inside it at will). Null without an address: Cloudflare
 * always sets CF-Connecting-IP, so only local tools and tests go unlimited.
 */
export function visitorKey(ip: string | null | undefined): string | null {
  const address = ip?.trim().toLowerCase();
  if (!address) return null;
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Refusals are counted per quarter hour: every zone's days are made of whole quarter hours. */
export const REFUSAL_PERIOD_MS = 15 * 60 * 1000;
/** How long refusals gather in an isolate before their counts are written. */
export const REFUSAL_FLUSH_MS = 1000;

let counts = new Map<string, RefusalCount>();
let flushing = false;

async function flushRefusals(db: Db) {
  const batch = [...counts.values()];
  counts = new Map();
  flushing = false;
  try {
    await withRetries(() => addRefusals(db, batch), { delaysMs: [50, 250, 1000], retryable: () => true });
  } catch (err) {
    console.error(`refused-click counts not stored: ${JSON.stringify(batch)}`, err);
  }
}

/**
 * Counts one refusal. The request that opens a round of counts keeps it alive with its own timer
 * and writes it (a request never waits on another's promise: see click-writer.ts).
 */
export function countRefusal(ctx: Background, db: Db, campaignId: number, event: LimitedEvent, now = Date.now()) {
  const periodStart = now - (now % REFUSAL_PERIOD_MS);
  const key = `${campaignId}:${periodStart}`;
  const count = counts.get(key) ?? { campaignId, periodStart, clicks: 0, exits: 0 };
  if (event === "click") count.clicks++;
  else count.exits++;
  counts.set(key, count);
  if (flushing) return;
  flushing = true;
  ctx.waitUntil(new Promise<void>((resolve) => setTimeout(() => resolve(flushRefusals(db)), REFUSAL_FLUSH_MS)));
}

/** One request's standing with the limit, asked at most once whoever needs it first. */
export interface VisitorLimit {
  /** No limit applies (no binding, or no address): nothing to ask. */
  unlimited: boolean;
  /** Whether this request is within the limit. A limit that cannot answer lets it through. */
  allowed: () => Promise<boolean>;
}

export function visitorLimit(limiter: RateLimit | undefined, ip: string | null | undefined, event: LimitedEvent): VisitorLimit {
  const key = visitorKey(ip);
  if (!limiter || key === null) return { unlimited: true, allowed: async () => true };
  let verdict: Promise<boolean> | undefined;
  return {
    unlimited: false,
    allowed: () =>
      (verdict ??= limiter.limit({ key: `${event}:${key}` }).then(
        ({ success }) => success,
        (err: unknown) => {
          // A lost click costs more than a flood's few extra rows and lookups.
          console.error("rate limit unavailable; letting the request through", err);
          return true;
        },
      )),
  };
}

/**
 * After the answer: stores the event (`store`) if the request is within the limit, or counts the
 * refusal.
 */
export function storeIfAllowed(ctx: Background, db: Db, limit: VisitorLimit, refusal: { campaignId: number; event: LimitedEvent }, store: () => void) {
  if (limit.unlimited) return store();
  ctx.waitUntil(limit.allowed().then((allowed) => (allowed ? store() : countRefusal(ctx, db, refusal.campaignId, refusal.event))));
}
