/**
 * For the Events API tests: clicks to convert, the fake behind the test Worker's TikTok host
 * (TIKTOK_BASE_URL in vitest.config.ts), the pixel settings, and reading the send rows.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { expect, vi } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertClicks, type NewClick } from "../src/db/queries/clicks";
import { insertLander } from "../src/db/queries/landers";
import { writeEventSettings } from "../src/db/queries/tiktok-events";
import { tiktokEventSends } from "../src/db/schema";
import type { Bindings } from "../src/env";
import type { TikTokEventSettings } from "../src/schemas/tiktok-events";
import { createTikTokEventsFake, type TikTokEventsFake } from "./fakes/tiktok-events-fake";
import { db } from "./helpers";
import { configuredEnv } from "./performance-helpers";

export const EVENTS_HOST = "https://tiktok.test";
export const PIXEL = "CPIXEL0123456789ABCD";

export const testEnv = (overrides: Partial<Bindings> = {}): Bindings => ({ ...(env as Bindings), ...overrides });

/** Every data source configured against the fakes, and sending to TikTok through the events fake's host. */
export const sendingEnv = () => configuredEnv({ TIKTOK_EVENTS_ACCESS_TOKEN: "events-test-token", TIKTOK_BASE_URL: EVENTS_HOST });

export const configure = (overrides: Partial<TikTokEventSettings> = {}, by = "test-admin") =>
  writeEventSettings(db(), { pixelCode: PIXEL, testEventCode: "", pendingEvent: "", currency: "USD", ...overrides }, by);

/**
 * The fake answers the test Worker's TikTok host, for the queue consumer the queue itself runs
 * (in this isolate, with the Worker's own fetch) as much as for direct calls.
 */
export function serveFake(fake: TikTokEventsFake = createTikTokEventsFake()) {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).origin === EVENTS_HOST) return fake.handle(request);
    throw new Error(`unexpected external call to ${request.url}`);
  });
  return fake;
}

/** The campaign the clicks are of: one per test file, as each file has a database of its own. */
let made: { file: string | undefined; campaign: number } | null = null;

async function clicksCampaign() {
  const file = expect.getState().testPath;
  if (made && made.file === file) return made.campaign;
  const lander = (await insertLander(db(), { name: "Lander", url: "https://lander.test/lp" }).get()).id;
  const campaign = (await insertCampaign(db(), { name: "Campaign", landerId: lander, offerId: null, domainId: null, bhToggle: true }).get()).id;
  made = { file, campaign };
  return campaign;
}

/** Clicks of ours, stored in one batch, with TikTok's values unless told otherwise. */
export async function storedClicks(count: number, values: Partial<NewClick> = {}) {
  const campaign = await clicksCampaign();
  const clicks = Array.from({ length: count }, () => ({
    clickId: crypto.randomUUID(),
    campaignId: campaign,
    tiktokCampaignId: "1799",
    ttclid: `ttclid-${crypto.randomUUID()}`,
    ipAddress: "198.51.100.23",
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) musical_ly_34.1.0",
    clickedAt: Date.now() - 60_000,
    ...values,
  }));
  await insertClicks(db(), clicks);
  return clicks;
}

export const storedClick = async (values: Partial<NewClick> = {}) => (await storedClicks(1, values))[0]!;

/** The send rows' statuses, in id order. */
export const statusesOf = async (ids: number[]) =>
  (
    await db().all<{ status: string }>(sql`select status from tiktok_event_sends where id in (select value from json_each(${JSON.stringify(ids)})) order by id`)
  ).map((r) => r.status);

export const sendsOf = (conversionId: string) => db().select().from(tiktokEventSends).where(eq(tiktokEventSends.conversionId, conversionId));

export async function sendOf(conversionId: string) {
  const rows = await sendsOf(conversionId);
  if (rows.length !== 1) throw new Error(`expected one send row for ${conversionId}, found ${rows.length}`);
  return rows[0]!;
}

export const statusCounts = async () =>
  Object.fromEntries(
    (await db().all<{ status: string; n: number }>(sql`select status, count(*) as n from tiktok_event_sends group by status`)).map((r) => [r.status, r.n]),
  );

/** SHA-256 hex, as TikTok wants external_id. */
export async function sha256Hex(text: string) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
