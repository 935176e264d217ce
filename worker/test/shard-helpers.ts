/**
 * The tracking link, the lander's exit and the cron's rollup as the shard-day tests use them
 * (click-shard-switch.test.ts, click-shard-archive.test.ts): each visit goes through the Worker's
 * own fetch with a phone's headers, and waits until the clicks queue has written what it sent.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { clickDailyStats } from "../src/db/schema";
import worker from "../src/index";
import { EXIT_LAG_MS, rollUpClicks, rollUpShardDays } from "../src/jobs/roll-up-clicks";
import { checkClickId, shardName, type ClickPlace } from "../src/tracking/click-id";
import { clicksWritten, db } from "./helpers";

export const HOST = "https://trk.brand.test";
export const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

export async function visit(path: string, bindings: Partial<typeof env> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${HOST}${path}`, { headers: { "cf-connecting-ip": "203.0.113.80", "user-agent": IPHONE }, redirect: "manual" }),
    { ...env, ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await clicksWritten();
  return res;
}

/** A visit to the tracking link: the click id the lander is sent. */
export async function clickThrough(campaignId: number, query = "plc=feed&cid=tt-1", bindings: Partial<typeof env> = {}) {
  const res = await visit(`/r/${campaignId}?${query}`, bindings);
  expect(res.status).toBe(302);
  const clickId = new URL(res.headers.get("location")!).searchParams.get("clickId");
  expect(clickId).toBeTruthy();
  return clickId!;
}

/** The shard-day a layout-1 click id names. */
export async function placeOf(clickId: string): Promise<ClickPlace> {
  const checked = await checkClickId(env.SESSION_SECRET, clickId);
  expect(checked?.kind).toBe("sharded");
  return (checked as { place: ClickPlace }).place;
}

export const objectOf = (place: ClickPlace) => env.CLICK_SHARDS.getByName(shardName(place));

/**
 * The cron's rollup (D1's part, then the shard-days'), run at `now`, or `ahead` of it as it runs
 * once the exits of now are older than the lag it leaves them (counted, then).
 */
export async function rollUp(ahead = true, at = Date.now()) {
  const now = at + (ahead ? EXIT_LAG_MS + 1000 : 0);
  await rollUpClicks(db(), { now });
  return rollUpShardDays(db(), env.CLICK_SHARDS, { now });
}

/** A campaign's clicks and exits in the click rollup, every day added up. */
export const dailyOf = async (campaignId: number) =>
  db()
    .select({ clicks: sql<number>`sum(${clickDailyStats.clicks})`, exits: sql<number>`sum(${clickDailyStats.exits})` })
    .from(clickDailyStats)
    .where(eq(clickDailyStats.campaignId, campaignId))
    .get();
