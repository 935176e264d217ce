import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { findClick, type ClickForExit, type ExitRecord } from "../db/queries/clicks";
import type { AppEnv, Db } from "../env";
import { sleep } from "../lib/retry";
import { createDb } from "../middleware/database";
import { HOLDING_PAGE_TEXT } from "../schemas/campaigns";
import { LOOKUP_REFUSED, trackedCampaign } from "../tracking/campaign-cache";
import { checkClickId, legacyPlace, newClickId, shardName, type CheckedClickId, type ClickPlace } from "../tracking/click-id";
import { chooseVariants, choosePath, stickySeeds, visitOf, type Choice, type LiveCampaign, type TrackedOffer } from "../tracking/distribution";
import { CLICKS_QUEUE_WAIT_MS } from "../tracking/click-queue";
import { BATCH_MAX_WAIT_MS, recentClick, recordClickLater, recordExitLater } from "../tracking/click-writer";
import { exitTrackerScript } from "../tracking/exit-tracker-script";
import { exitBase, type LinkSettings } from "../tracking/links";
import { countRefusal, storeIfAllowed, visitorLimit, type VisitorLimit } from "../tracking/rate-limit";
import { trackingSettings } from "../tracking/settings-cache";
import { hasLegacy, isStoredPlace, placeForClick, shardCounts, type ShardCounts } from "../tracking/shard-days";
import { clicksRetention } from "../retention/config";
import { appendQuery, fillTemplate } from "../tracking/urls";
import { isUnfilledMacro, recordedValue } from "../tracking/values";
import { describeVisitor } from "../tracking/visitor";

/**
 * Every value /r/ and /click record goes through this one rule (tracking/values.ts): cut to 255
 * characters, and an unfilled `__MACRO__` placeholder is empty.
 */
const cut = recordedValue;

/** A real ttclid is a few hundred characters; anything longer is cut rather than stored whole. */
export const TTCLID_MAX = 1000;

/**
 * TikTok's click id: our tracking URL carries `ttclid=__CLICKID__` and TikTok may append its own
 * `ttclid` as well, so the first filled one wins (an unfilled macro is no value).
 */
function ttclidOf(q: URLSearchParams): string | null {
  for (const raw of q.getAll("ttclid")) {
    const value = raw.trim();
    if (value && !isUnfilledMacro(value)) return value.length > TTCLID_MAX ? value.slice(0, TTCLID_MAX) : value;
  }
  return null;
}

/** Where Cloudflare places the visitor (`request.cf`; absent under local runs and in tests). */
function placeOf(cf: IncomingRequestCfProperties | undefined) {
  const asn = cf?.asn;
  return {
    country: cut(typeof cf?.country === "string" ? cf.country : null),
    region: cut(typeof cf?.region === "string" ? cf.region : null),
    city: cut(typeof cf?.city === "string" ? cf.city : null),
    asn: typeof asn === "number" && Number.isInteger(asn) && asn > 0 ? asn : null,
    asOrganization: cut(typeof cf?.asOrganization === "string" ? cf.asOrganization : null),
  };
}

const parseCampaignId = (raw: string | null | undefined) => (raw && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null);

/**
 * These routes answer before the app's security-header middleware (app.ts): its dozen headers
 * cost /r/ about a tenth of its throughput (scripts/bench/tracking-redirect.mjs), and a redirect
 * has no document for most of them to protect. Each answer carries the ones that matter to it.
 * Every answer here is a recorded event (or the refusal of one): never cached, never indexed.
 */
const TRACKING_HEADERS = {
  "Cache-Control": "no-store",
  "X-Robots-Tag": "noindex, nofollow",
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
};
/** The plain pages load nothing, run nothing and may not be framed. */
const PAGE_HEADERS = {
  ...TRACKING_HEADERS,
  "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

function plainPage(c: Context<AppEnv>, status: ContentfulStatusCode, title: string, text: string, headers: Record<string, string> = {}) {
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>${title}</title></head><body><p>${text}</p></body></html>`,
    status,
    { ...PAGE_HEADERS, ...headers },
  );
}

const unknownLink = (c: Context<AppEnv>) => plainPage(c, 404, "Not found", "This link does not exist.");
/** Over the per-address limit, for a campaign this isolate does not hold: whether the link exists is not known. */
const tooManyRequests = (c: Context<AppEnv>) =>
  plainPage(c, 429, "Too many requests", "Too many requests from your network. Please try again in a minute.", { "Retry-After": "60" });
function redirect(c: Context<AppEnv>, location: string) {
  for (const [name, value] of Object.entries(TRACKING_HEADERS)) c.header(name, value);
  return c.redirect(location, 302);
}

/**
 * How long an exit naming an unknown click waits before looking once more: a click gathered in
 * another isolate's batch is sent up to BATCH_MAX_WAIT_MS after it was answered (click-writer.ts),
 * and the queue's consumer receives it within CLICKS_QUEUE_WAIT_MS while the queue keeps up.
 */
const CLICK_LANDING_MS = BATCH_MAX_WAIT_MS + CLICKS_QUEUE_WAIT_MS + 500;
/**
 * Exits waiting that second look at once, per isolate. Only an id that passes its check waits,
 * and a made-up one passes once in 2^36 tries, so this bounds what replaying real ids can hold
 * open; past it an exit is answered after its one lookup.
 */
export const MAX_WAITING_EXITS = 100;
let waitingExits = 0;

/** D1 failed to look the exit's click up (an outage): the visitor goes on all the same. */
const LOOKUP_FAILED = "lookup-failed";
/**
 * A layout-1 id's click is not in its shard-day yet (still in the queue): the exit goes on by
 * `cid`, and the object keeps it until the click comes (tracking/click-shard.ts).
 */
const NOT_YET = "not-yet";

/**
 * The shard counts, or null when D1 fails to give them: a new click then goes to D1, and a checked
 * layout-1 id is taken if its day is kept, whatever its shard (tracking/shard-days.ts).
 */
async function countsOrNull(db: Db): Promise<ShardCounts | null> {
  try {
    return await shardCounts(db);
  } catch (err) {
    console.warn(`shard counts not read (${err instanceof Error ? err.message : String(err)})`);
    return null;
  }
}

/**
 * Exit times in this isolate, each at least a millisecond after the one before: the clicks queue's
 * consumer stores an exit once by its click and time (tracking/click-queue.ts), so two exits of one
 * click in the same millisecond would otherwise be taken for one message delivered twice.
 */
let lastExitAt = 0;
const nextExitAt = () => (lastExitAt = Math.max(Date.now(), lastExitAt + 1));

/** The exit this request records for `clickId`. */
function exitOf(c: Context<AppEnv>, clickId: string, offerId: number): ExitRecord {
  return { clickId, offerId, ipAddress: cut(c.req.header("cf-connecting-ip")), userAgent: cut(c.req.header("user-agent")), at: nextExitAt() };
}

/** A click's ad values when the click is not at hand. */
const NO_AD_VALUES = { campaign: null, adGroup: null, creative: null, placement: null, campaignName: null, adGroupName: null, creativeName: null };

type AdValues = {
  [K in "tiktokCampaignId" | "tiktokAdGroupId" | "tiktokCreativeId" | "placement" | "campaignName" | "adGroupName" | "creativeName"]?: string | null;
};

/** The offer URL with its template filled from a click (/click, and /r/ on a path straight to the offer). */
function offerLocation(offer: TrackedOffer, campaign: LiveCampaign, click: AdValues & { clickId: string }) {
  return appendQuery(
    offer.url,
    fillTemplate(offer.template, {
      clickId: click.clickId,
      campaign: click.tiktokCampaignId,
      adGroup: click.tiktokAdGroupId,
      creative: click.tiktokCreativeId,
      placement: click.placement,
      campaignName: click.campaignName,
      adGroupName: click.adGroupName,
      creativeName: click.creativeName,
      mediaBuyer: campaign.mediaBuyer,
      spark: campaign.spark,
    }),
  );
}

/**
 * The path, lander and offer of this visit (tracking/distribution.ts), or null for a campaign
 * without paths of its own (its lander and offer, as before paths existed). The bot flag is no
 * input here: nothing singles out reviewers.
 */
async function distribute(
  c: Context<AppEnv>,
  campaign: LiveCampaign,
  facts: { place: ReturnType<typeof placeOf>; q: URLSearchParams; ip: string | null; userAgent: string | null; at: number },
): Promise<Choice | null> {
  const distribution = campaign.distribution;
  if (!distribution) return null;
  const { place, q, ip, userAgent, at } = facts;
  const visit = visitOf(
    {
      country: place.country,
      region: place.region,
      city: place.city,
      asn: place.asn,
      acceptLanguage: c.req.header("accept-language") ?? null,
      query: q,
      userAgent,
      at,
    },
    distribution.timeZone,
    // Parsed only when a rule asks, through the batch's own cache (tracking/visitor.ts).
    (ua) => describeVisitor(ua, place.asn),
  );
  const path = choosePath(distribution, visit);
  const seeds = path.stickyMs === null ? null : await stickySeeds(c.env.SESSION_SECRET, ip, userAgent, path.id, path.stickyMs, at);
  return chooseVariants(path, seeds);
}

/**
 * The click an exit names: answered in this isolate lately, or stored (now, or a moment later
 * for an id of the current layout), or LOOKUP_REFUSED when the per-address limit refuses the D1
 * lookup, or LOOKUP_FAILED when D1 fails to answer. Null: no such click. Once D1's clicks are
 * being moved (tracking/click-move.ts), an old id's legacy object is asked first (`legacy`), then
 * D1, which holds the clicks not moved yet, then the object again.
 */
async function clickForExit(
  db: Db,
  { clickId, kind }: Exclude<CheckedClickId, { kind: "sharded" }>,
  limit: VisitorLimit,
  legacy: AppEnv["Bindings"]["CLICK_SHARDS"] | null,
) {
  const recent = recentClick(clickId);
  if (recent) return recent;
  if (!(await limit.allowed())) return LOOKUP_REFUSED;
  const moved = async () => {
    if (!legacy) return undefined;
    try {
      const [found] = await legacy.getByName(shardName(legacyPlace(clickId))).lookup([clickId]);
      return found;
    } catch (err) {
      console.warn(`exit of click ${clickId}: its legacy object failed to look it up (${err instanceof Error ? err.message : String(err)})`);
      return undefined;
    }
  };
  const inLegacy = await moved();
  if (inLegacy) return inLegacy;
  try {
    // D1, then the legacy object again: the move may have taken the click between the two.
    let stored: ClickForExit | undefined = (await findClick(db, clickId)) ?? (await moved());
    // An old-layout id was handed out before this release (or, during a rollout, by an isolate still
    // running the old one): it gets no second look.
    if (!stored && kind === "current" && waitingExits < MAX_WAITING_EXITS) {
      waitingExits++;
      try {
        await sleep(CLICK_LANDING_MS);
      } finally {
        waitingExits--;
      }
      stored = await findClick(db, clickId);
    }
    return stored ?? null;
  } catch (err) {
    console.warn(`exit of click ${clickId}: D1 failed to look the click up; sent on by its cid (${err instanceof Error ? err.message : String(err)})`);
    return LOOKUP_FAILED;
  }
}

/**
 * The click a layout-1 id names, from the one shard-day object its id names (one call, no wait):
 * answered in this isolate lately, or stored there, or NOT_YET while it is still in the queue; or
 * LOOKUP_REFUSED / LOOKUP_FAILED as for D1.
 */
async function shardClickForExit(shards: AppEnv["Bindings"]["CLICK_SHARDS"], clickId: string, place: ClickPlace, limit: VisitorLimit) {
  const recent = recentClick(clickId);
  if (recent) return recent;
  if (!(await limit.allowed())) return LOOKUP_REFUSED;
  try {
    const [stored] = await shards.getByName(shardName(place)).lookup([clickId]);
    return stored ?? NOT_YET;
  } catch (err) {
    console.warn(`exit of click ${clickId}: its shard-day failed to look it up; sent on by its cid (${err instanceof Error ? err.message : String(err)})`);
    return LOOKUP_FAILED;
  }
}

/**
 * The public routes ad traffic hits, on any host (tracking domains point at this Worker). Outside
 * /api: no session, no CSRF guard, and the visitor never waits on a write (docs/product-rules.md "Tracking").
 */
export const trackingRoutes = new Hono<AppEnv>()
  .get("/r/:campaignId", async (c) => {
    const db = createDb(c.env.DB);
    const stores = { db, shards: c.env.CLICK_SHARDS };
    const id = parseCampaignId(c.req.param("campaignId"));
    if (id === null) return unknownLink(c);
    const limit = visitorLimit(c.env.CLICK_LIMITER, c.req.header("cf-connecting-ip"), "click");
    const [campaign, counts] = await Promise.all([trackedCampaign(db, id, limit.allowed), countsOrNull(db)]);
    if (campaign === LOOKUP_REFUSED) return tooManyRequests(c);
    if (!campaign) return unknownLink(c);

    const clickedAt = Date.now();
    // Today's shard-day objects when the day has a count (tracking/shard-days.ts), else D1.
    const clickId = await newClickId(c.env.SESSION_SECRET, counts ? placeForClick(counts, clickedAt) : undefined);
    const q = new URL(c.req.url).searchParams;
    const ip = cut(c.req.header("cf-connecting-ip"));
    const userAgent = cut(c.req.header("user-agent"));
    const place = placeOf(c.req.raw.cf as IncomingRequestCfProperties | undefined);
    const choice = await distribute(c, campaign, { place, q, ip, userAgent, at: clickedAt });
    const lander = choice ? choice.lander : { id: campaign.landerId, url: campaign.landerUrl };
    const offer = choice ? choice.offer : campaign.offer;
    const direct = choice?.path.directToOffer === true;
    const click = {
      clickId,
      campaignId: campaign.id,
      tiktokCampaignId: cut(q.get("cid")),
      tiktokAdGroupId: cut(q.get("ad")),
      tiktokCreativeId: cut(q.get("cr")),
      placement: cut(q.get("plc")),
      campaignName: cut(q.get("cname")),
      adGroupName: cut(q.get("aname")),
      creativeName: cut(q.get("crname")),
      // CF-Connecting-IP is set by Cloudflare; X-Forwarded-For is whatever the client sent.
      ipAddress: ip,
      userAgent,
      clickedAt,
      ttclid: ttclidOf(q),
      // The user agent is parsed and the bot flag set when the batch is written (here only if a path rule asked).
      ...place,
      // What /click sends this visitor on to, and what the Path and Lander x Offer stats group by.
      pathId: choice?.path.id ?? null,
      landerId: direct ? null : (lander?.id ?? null),
      offerId: offer?.id ?? null,
    };
    // HEAD is link checkers and previews, not visitors: answer the same, record nothing.
    if (c.req.method !== "HEAD") {
      // Over the per-IP limit the visitor is sent on all the same; the click is only counted.
      storeIfAllowed(c.executionCtx, db, limit, { campaignId: campaign.id, event: "click" }, () => {
        recordClickLater(c.executionCtx, stores, click, c.env.CLICKS_QUEUE);
        // Straight to the offer: the visit is its own exit, recorded as /click records one.
        if (direct && offer) {
          const exit = { clickId, offerId: offer.id, ipAddress: ip, userAgent, at: clickedAt };
          recordExitLater(c.executionCtx, stores, exit, c.env.CLICKS_QUEUE);
        }
      });
    }

    const holding = () => plainPage(c, 200, "Coming soon", HOLDING_PAGE_TEXT);
    if (!campaign.bhToggle) return holding();
    const location = direct
      ? offer && offerLocation(offer, campaign, click)
      : lander && appendQuery(lander.url, `cid=${campaign.id}&clickId=${clickId}`, ["cid", "clickId"]);
    return location ? redirect(c, location) : holding();
  })

  .get("/click", async (c) => {
    const db = createDb(c.env.DB);
    const stores = { db, shards: c.env.CLICK_SHARDS };
    const q = new URL(c.req.url).searchParams;
    const limit = visitorLimit(c.env.CLICK_LIMITER, c.req.header("cf-connecting-ip"), "exit");
    // An id that cannot be ours costs no lookup (tracking/click-id.ts), nor does a layout-1 id
    // naming a day no longer kept or a shard its day did not have.
    const given = await checkClickId(c.env.SESSION_SECRET, q.get("clickId") ?? "");
    const counts = given ? await countsOrNull(db) : null;
    const checked = given?.kind === "sharded" && !isStoredPlace(counts, given.place, clicksRetention(c.env.CLICKS_RETENTION_DAYS).days) ? null : given;
    const found = !checked
      ? null
      : checked.kind === "sharded"
        ? await shardClickForExit(c.env.CLICK_SHARDS, checked.clickId, checked.place, limit)
        : await clickForExit(db, checked, limit, hasLegacy(counts) ? c.env.CLICK_SHARDS : null);
    const unknownYet = found === LOOKUP_REFUSED || found === LOOKUP_FAILED || found === NOT_YET;
    const click = unknownYet ? null : found;
    // The stored click decides the campaign; cid only serves when the click is unknown.
    const campaignId = click?.campaignId ?? parseCampaignId(q.get("cid"));
    const campaign = campaignId === null ? null : await trackedCampaign(db, campaignId, limit.allowed);
    if (campaign === LOOKUP_REFUSED) return tooManyRequests(c);
    if (!campaign) return unknownLink(c);
    // The offer chosen for the click (docs/traffic-distribution.md); the campaign's own when the
    // click has none or its offer left the campaign's paths since.
    const offer = (click?.offerId != null ? campaign.offers.get(click.offerId) : undefined) ?? campaign.offer;
    if (!offer) return plainPage(c, 404, "Not found", "This link has no destination yet.");

    // Only ever the configured offer URL: nothing from this request's query chooses the destination.
    const location = click
      ? offerLocation(offer, campaign, click)
      : unknownYet && checked
        ? // Over the limit (or with its store failing, or its click not in its shard-day yet) the click
          // is not known here, but its checked id still goes on (sub2), so a conversion is credited
          // to it; its ad values are not known here.
          appendQuery(
            offer.url,
            fillTemplate(offer.template, { ...NO_AD_VALUES, clickId: checked.clickId, mediaBuyer: campaign.mediaBuyer, spark: campaign.spark }),
          )
        : appendQuery(offer.url, "");
    if (!location) return plainPage(c, 404, "Not found", "This link has no destination yet.");

    if (c.req.method !== "HEAD") {
      if (click) {
        const exit = exitOf(c, click.clickId, offer.id);
        storeIfAllowed(c.executionCtx, db, limit, { campaignId: campaign.id, event: "exit" }, () =>
          recordExitLater(c.executionCtx, stores, exit, c.env.CLICKS_QUEUE),
        );
      } else if (found === LOOKUP_REFUSED) {
        countRefusal(c.executionCtx, db, campaign.id, "exit");
      } else if ((found === LOOKUP_FAILED || found === NOT_YET) && checked) {
        // The queue's consumer records it once the click is stored (tracking/click-queue.ts); a
        // shard-day keeps it until then. Its offer is the one this visitor was sent to.
        const exit = exitOf(c, checked.clickId, offer.id);
        recordExitLater(c.executionCtx, stores, exit, c.env.CLICKS_QUEUE);
      }
    }
    return redirect(c, location);
  })

  .get("/exit-tracker.js", async (c) => {
    const settings = await trackingSettings(createDb(c.env.DB));
    const script = await exitScript(settings, new URL(c.req.url).origin);
    const headers = {
      // Landers on any origin load this with <script src>; the app's same-origin default would block it.
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Access-Control-Allow-Origin": "*",
      // Short: a changed exit domain reaches landers within minutes. After that a browser asks
      // again with If-None-Match and, the script unchanged, gets a bodiless 304.
      "Cache-Control": "public, max-age=300",
      ETag: script.etag,
      "X-Content-Type-Options": "nosniff",
      "Strict-Transport-Security": TRACKING_HEADERS["Strict-Transport-Security"],
      "X-Robots-Tag": "noindex",
    };
    const known = c.req.header("if-none-match");
    if (known && known.split(",").some((tag) => tag.trim().replace(/^W\//, "") === script.etag)) return c.body(null, 304, headers);
    return c.body(script.body, 200, { ...headers, "Content-Type": "text/javascript; charset=utf-8" });
  });

/** The script per origin, built once per settings read (tracking/settings-cache.ts) with its ETag. */
const scripts = new WeakMap<LinkSettings, Map<string, { body: string; etag: string }>>();
/** Origins kept per settings read: a deployment has a few tracking domains; past this it starts over. */
const MAX_SCRIPT_ORIGINS = 100;
async function exitScript(settings: LinkSettings, self: string) {
  let byOrigin = scripts.get(settings);
  if (!byOrigin) scripts.set(settings, (byOrigin = new Map()));
  let script = byOrigin.get(self);
  if (!script) {
    if (byOrigin.size >= MAX_SCRIPT_ORIGINS) byOrigin.clear();
    const body = exitTrackerScript(exitBase(self, settings), self);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    script = { body, etag: `"${Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")}"` };
    byOrigin.set(self, script);
  }
  return script;
}
