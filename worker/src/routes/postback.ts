/**
 * The CAKE conversion postback (public, outside /api): the network calls
 * `/postback/cake?token=...&leadid=#leadid#&oid=#oid#&price=#price#&s1=#s1#&s2=#s2#&s3=#s3#`
 * the moment a conversion happens, so revenue shows between syncs. The secret token is the only
 * authentication; the conversion is counted once however often it is sent and whichever of the
 * postback and the report pull sees it first (db/queries/cake.ts).
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { recordPostback } from "../db/queries/cake";
import { conversionsArchivedThrough } from "../db/queries/conversion-archives";
import { readSettings } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { decimalToCents } from "../lib/money";
import { dayIn, shiftDay } from "../lib/calendar-days";
import { ApiError } from "../lib/errors";
import { validate } from "../lib/validate";
import { database } from "../middleware/database";
import { cakePostbackQuery } from "../schemas/performance";
import { postbackSetup } from "../sync/config";
import { produceSends } from "../tiktok-events/produce";
import { constantTimeEqual } from "../lib/constant-time";
import { copyAttributedClicks } from "../tracking/attributed-clicks";
import { clickDayStart, LEGACY_DAY, placeOfClickId } from "../tracking/click-id";
import { visitorKey } from "../tracking/rate-limit";
import { emitConversionsCreated } from "../webhooks/emit";

const encoder = new TextEncoder();
const digest = async (text: string) => crypto.subtle.digest("SHA-256", encoder.encode(text));

/**
 * Compares digests rather than the strings so the comparison takes the same time whatever the
 * guess: neither the token's length nor its first right characters leak through timing.
 */
async function sameToken(given: string, expected: string) {
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  return constantTimeEqual(new Uint8Array(a), new Uint8Array(b));
}

/** Checked before the values, so a caller without the token learns nothing about them. */
const requireToken = createMiddleware<AppEnv>(async (c, next) => {
  const { config, problems } = postbackSetup(c.env);
  if (!config) throw new ApiError(403, `The postback is not enabled on this server: ${problems.join("; ")}`);
  if (!(await sameToken(c.req.query("token") ?? "", config.token))) throw new ApiError(403, "Wrong or missing postback token");
  await next();
});

/**
 * Hono answers HEAD with the GET handler (dropping the body), which would count a conversion for
 * a link checker or a prefetch. Only a real GET counts.
 */
const getOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET") throw new ApiError(405, "The postback takes GET requests only", undefined, { Allow: "GET" });
  await next();
});

/**
 * Per IP (docs/tracking.md "Rate limits"): CAKE posts from a few servers, so the limit is far above any
 * network's conversion rate and stops only a flood. A refused postback loses nothing for good:
 * the next pull reports the conversion.
 */
const rateLimited = createMiddleware<AppEnv>(async (c, next) => {
  const key = visitorKey(c.req.header("cf-connecting-ip"));
  if (key !== null && c.env.POSTBACK_LIMITER && !(await c.env.POSTBACK_LIMITER.limit({ key })).success) {
    throw new ApiError(429, "Too many postbacks from this address; try again in a minute");
  }
  await next();
});

/**
 * Whether the click (sub2) is of a day whose conversions have begun leaving D1
 * (retention/conversions.ts), a day's margin added for the report time zone: a conversion of it may
 * be one D1 no longer holds, so a repeated postback could not be told from a new one. Such a
 * postback counts nothing; a conversion that is new is in the next pull, which files it under
 * its own day. Only our sharded ids name their day; another id is looked up as always.
 */
async function clickConversionsArchived(db: Db, clickId: string, now: number): Promise<boolean> {
  const place = placeOfClickId(clickId, now);
  if (place === null || place.day === LEGACY_DAY) return false;
  const through = await conversionsArchivedThrough(db);
  return through !== null && dayIn(clickDayStart(place.day), "UTC") <= shiftDay(through, 1);
}

export const postbackRoutes = new Hono<AppEnv>().get("/cake", getOnly, rateLimited, requireToken, database, validate("query", cakePostbackQuery), async (c) => {
  const q = c.req.valid("query");
  const db = c.get("db");
  const revenueCents = decimalToCents(q.price, "round");
  if (revenueCents === null) throw new ApiError(400, "price must be an amount of at least 0 such as 12.50 (#price#)");
  const receivedAt = Date.now();
  if (await clickConversionsArchived(db, q.s2, receivedAt)) {
    console.log(`postback: ${q.leadid} not counted: its click ${q.s2} is of a day whose conversions are archived`);
    return c.json({ ok: true, result: "click-archived" as const }, 200);
  }
  // Dated by its arrival in the report time zone; the pull later files it under the network's day.
  const { report_timezone: timeZone } = await readSettings(db);
  // A click in a shard-day object is copied into D1 first, so the conversion is credited to its
  // campaign and ad (tracking/attributed-clicks.ts); failing that, the next pull credits it.
  await copyAttributedClicks(db, c.env, [q.s2], receivedAt).catch((err: unknown) => console.error("postback: the click not copied for the attribution", err));
  const result = await recordPostback(db, {
    conversionId: q.leadid,
    date: dayIn(receivedAt, timeZone),
    offerId: q.oid,
    subid1: q.s1,
    subid2: q.s2,
    subid3: q.s3,
    revenueCents,
    receivedAt,
  });
  // On to TikTok (a postback carries no disposition: CAKE fires it for a credited conversion).
  // One the pull already reported was handed on by the pull, with the network's disposition. A
  // failure here is logged, not answered: the conversion is counted, and the cron's sweep
  // claims what a postback left unclaimed.
  if (result !== "already-reported") {
    const seen = { conversionId: q.leadid, disposition: "", subid2: q.s2, revenueCents, eventAt: receivedAt };
    await produceSends(db, c.env, [seen], receivedAt).catch((err: unknown) => console.error("postback: not handed on to TikTok", err));
  }
  // To webhook subscribers once per conversion, whichever of the postback and the pull saw it first.
  if (result === "counted") await emitConversionsCreated(db, c.env, [q.leadid], receivedAt);
  return c.json({ ok: true, result }, 200);
});
