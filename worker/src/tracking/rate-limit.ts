/**
 * The per-IP rate limit on the public tracking routes (Workers Rate Limiting bindings, configured
 * in wrangler.toml; README "Rate limits"). It never changes what a visitor gets: /r/ and /click
 * answer first, and only then is the limit asked whether the click (or exit) is stored. A refused
 * one is counted per campaign and quarter hour, and those counts reach D1 together, about once a
 * second per isolate, never as a write per request.
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

/**
 * After the answer: asks the limit about this visitor and either stores the event (`store`) or
 * counts the refusal. A limit that cannot answer lets the event through: a lost click costs more
 * than a flood's few extra rows.
 */
export function storeIfAllowed(
  ctx: Background,
  db: Db,
  limiter: RateLimit | undefined,
  request: { ip: string | null | undefined; campaignId: number; event: LimitedEvent },
  store: () => void,
) {
  const key = visitorKey(request.ip);
  if (!limiter || key === null) return store();
  ctx.waitUntil(
    limiter.limit({ key: `${request.event}:${key}` }).then(
      ({ success }) => (success ? store() : countRefusal(ctx, db, request.campaignId, request.event)),
      (err: unknown) => {
        console.error("rate limit unavailable; storing the event", err);
        store();
      },
    ),
  );
}
