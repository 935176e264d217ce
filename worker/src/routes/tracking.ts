import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { findClick } from "../db/queries/clicks";
import { readSettings } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { sleep } from "../lib/retry";
import { createDb } from "../middleware/database";
import { HOLDING_PAGE_TEXT } from "../schemas/campaigns";
import { trackedCampaign } from "../tracking/campaign-cache";
import { BATCH_MAX_WAIT_MS, pendingClick, recordClickLater, recordExitLater } from "../tracking/click-writer";
import { exitTrackerScript } from "../tracking/exit-tracker-script";
import { exitBase } from "../tracking/links";
import { storeIfAllowed } from "../tracking/rate-limit";
import { appendQuery, fillTemplate } from "../tracking/urls";
import { isUnfilledMacro, recordedValue } from "../tracking/values";

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
const CLICK_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

function plainPage(c: Context<AppEnv>, status: ContentfulStatusCode, title: string, text: string) {
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>${title}</title></head><body><p>${text}</p></body></html>`,
    status,
    PAGE_HEADERS,
  );
}

const unknownLink = (c: Context<AppEnv>) => plainPage(c, 404, "Not found", "This link does not exist.");
function redirect(c: Context<AppEnv>, location: string) {
  for (const [name, value] of Object.entries(TRACKING_HEADERS)) c.header(name, value);
  return c.redirect(location, 302);
}

/**
 * How long an exit naming an unknown click waits before looking once more: a click gathered in
 * another isolate's batch can take up to BATCH_MAX_WAIT_MS to be written (click-writer.ts).
 */
const CLICK_LANDING_MS = BATCH_MAX_WAIT_MS + 500;

/** The click an exit names: still being written in this isolate, or stored (now, or a moment later). */
async function clickForExit(db: Db, clickId: string) {
  const waiting = pendingClick(clickId);
  if (waiting) return { ...waiting.click, stored: waiting.stored };
  const stored = (await findClick(db, clickId)) ?? (await sleep(CLICK_LANDING_MS).then(() => findClick(db, clickId)));
  return stored ? { ...stored, stored: async () => true } : null;
}

/**
 * The public routes ad traffic hits, on any host (tracking domains point at this Worker). Outside
 * /api: no session, no CSRF guard, and the visitor never waits on a write (docs/product-rules.md "Tracking").
 */
export const trackingRoutes = new Hono<AppEnv>()
  .get("/r/:campaignId", async (c) => {
    const db = createDb(c.env.DB);
    const id = parseCampaignId(c.req.param("campaignId"));
    const campaign = id === null ? null : await trackedCampaign(db, id);
    if (!campaign) return unknownLink(c);

    const clickId = crypto.randomUUID();
    // HEAD is link checkers and previews, not visitors: answer the same, record nothing.
    if (c.req.method !== "HEAD") {
      const q = new URL(c.req.url).searchParams;
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
        ipAddress: cut(c.req.header("cf-connecting-ip")),
        userAgent: cut(c.req.header("user-agent")),
        clickedAt: Date.now(),
        ttclid: ttclidOf(q),
        // The user agent is parsed and the bot flag set when the batch is written, not here.
        ...placeOf(c.req.raw.cf as IncomingRequestCfProperties | undefined),
      };
      // Over the per-IP limit the visitor is sent on all the same; the click is only counted.
      const limited = { ip: click.ipAddress, campaignId: campaign.id, event: "click" } as const;
      storeIfAllowed(c.executionCtx, db, c.env.CLICK_LIMITER, limited, () => recordClickLater(c.executionCtx, db, click, c.env.CLICKS_RETRY_QUEUE));
    }

    const holding = () => plainPage(c, 200, "Coming soon", HOLDING_PAGE_TEXT);
    if (!campaign.bhToggle) return holding();
    const location = appendQuery(campaign.landerUrl, `cid=${campaign.id}&clickId=${clickId}`, ["cid", "clickId"]);
    return location ? redirect(c, location) : holding();
  })

  .get("/click", async (c) => {
    const db = createDb(c.env.DB);
    const q = new URL(c.req.url).searchParams;
    const clickIdParam = q.get("clickId") ?? "";
    const click = CLICK_ID_RE.test(clickIdParam) ? await clickForExit(db, clickIdParam.toLowerCase()) : null;
    // The stored click decides the campaign; cid only serves when the click is unknown.
    const campaignId = click?.campaignId ?? parseCampaignId(q.get("cid"));
    const campaign = campaignId === null ? null : await trackedCampaign(db, campaignId);
    if (!campaign) return unknownLink(c);
    const offer = campaign.offer;
    if (!offer) return plainPage(c, 404, "Not found", "This link has no destination yet.");

    // Only ever the configured offer URL: nothing from this request's query chooses the destination.
    const query = click
      ? fillTemplate(offer.template, {
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
        })
      : "";
    const location = appendQuery(offer.url, query);
    if (!location) return plainPage(c, 404, "Not found", "This link has no destination yet.");

    if (click && c.req.method !== "HEAD") {
      const exit = {
        clickId: click.clickId,
        offerId: offer.id,
        ipAddress: cut(c.req.header("cf-connecting-ip")),
        userAgent: cut(c.req.header("user-agent")),
        at: Date.now(),
      };
      const limited = { ip: exit.ipAddress, campaignId: campaign.id, event: "exit" } as const;
      storeIfAllowed(c.executionCtx, db, c.env.CLICK_LIMITER, limited, () => recordExitLater(c.executionCtx, db, exit, click.stored, c.env.CLICKS_RETRY_QUEUE));
    }
    return redirect(c, location);
  })

  .get("/exit-tracker.js", async (c) => {
    const settings = await readSettings(createDb(c.env.DB));
    const self = new URL(c.req.url).origin;
    return c.body(exitTrackerScript(exitBase(self, settings), self), 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      // Landers on any origin load this with <script src>; the app's same-origin default would block it.
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Access-Control-Allow-Origin": "*",
      // Short: a changed exit domain reaches landers within minutes.
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
      "Strict-Transport-Security": TRACKING_HEADERS["Strict-Transport-Security"],
      "X-Robots-Tag": "noindex",
    });
  });
