/**
 * Seeding for the stats tests, straight into D1 through the schema: landers, offers, campaigns,
 * our clicks, CAKE rows (then cake_attributed_daily rebuilt by the sync's own SQL, so revenue
 * joins our clicks exactly as in production) and TikTok spend.
 */
import { rebuildAttributed } from "../src/db/queries/cake";
import { campaigns, cakeStats, clicks, landers, offers, settings, tiktokSpend } from "../src/db/schema";
import type { StatsReport } from "../src/schemas/stats";
import { call, db, uniqueName } from "./helpers";
import { expect } from "vitest";

export async function seedLander(name = uniqueName("lander")) {
  const [row] = await db().insert(landers).values({ name, url: "https://lander.test/" }).returning({ id: landers.id });
  return row!.id;
}

export async function seedOffer(name = uniqueName("offer")) {
  const [row] = await db().insert(offers).values({ name, url: "https://offer.test/", utmTemplate: "sub2={clickId}" }).returning({ id: offers.id });
  return row!.id;
}

export async function seedCampaign(opts: { name?: string; landerId?: number; offerId?: number | null } = {}) {
  const landerId = opts.landerId ?? (await seedLander());
  const [row] = await db()
    .insert(campaigns)
    .values({ name: opts.name ?? uniqueName("campaign"), landerId, offerId: opts.offerId ?? null })
    .returning({ id: campaigns.id });
  return row!.id;
}

export interface ClickSeed {
  campaignId: number;
  /** ISO instant or epoch ms. */
  at: string | number;
  exitedAt?: string | number | null;
  tt?: string | null;
  adGroup?: string | null;
  creative?: string | null;
  placement?: string | null;
  cname?: string | null;
  aname?: string | null;
  crname?: string | null;
  clickId?: string;
  country?: string | null;
  deviceType?: string | null;
  os?: string | null;
  browser?: string | null;
  bot?: boolean;
}

const ms = (t: string | number) => (typeof t === "number" ? t : Date.parse(t));

/** Inserts clicks in order (so ids follow the list); returns their clickIds. */
export async function seedClicks(rows: ClickSeed[]): Promise<string[]> {
  const values = rows.map((r) => ({
    clickId: r.clickId ?? crypto.randomUUID(),
    campaignId: r.campaignId,
    tiktokCampaignId: r.tt ?? null,
    tiktokAdGroupId: r.adGroup ?? null,
    tiktokCreativeId: r.creative ?? null,
    placement: r.placement ?? null,
    campaignName: r.cname ?? null,
    adGroupName: r.aname ?? null,
    creativeName: r.crname ?? null,
    clickedAt: ms(r.at),
    exitedAt: r.exitedAt == null ? null : ms(r.exitedAt),
    country: r.country ?? null,
    deviceType: r.deviceType ?? null,
    os: r.os ?? null,
    browser: r.browser ?? null,
    bot: r.bot ?? false,
    botReason: r.bot ? "ad review: TikTok landing-page preloader" : null,
  }));
  // One statement per click keeps under D1's 100 bound parameters whatever the list's length.
  for (const v of values) await db().insert(clicks).values(v);
  return values.map((v) => v.clickId);
}

export interface CakeSeed {
  date: string;
  offerId: number;
  offerName?: string;
  subid1?: string;
  subid2?: string;
  subid3?: string;
  clicks?: number;
  conversions?: number;
  revenueCents?: number;
}

/** cake_stats rows, then cake_attributed_daily rebuilt for their days (as a CAKE sync does). */
export async function seedCake(rows: CakeSeed[]) {
  for (const r of rows) {
    await db()
      .insert(cakeStats)
      .values({
        date: r.date,
        offerId: r.offerId,
        offerName: r.offerName ?? "",
        subid1: r.subid1 ?? "",
        subid2: r.subid2 ?? "",
        subid3: r.subid3 ?? "",
        clicks: r.clicks ?? 0,
        conversions: r.conversions ?? 0,
        revenueCents: r.revenueCents ?? 0,
      });
  }
  const dates = rows.map((r) => r.date).sort();
  if (dates.length) await rebuildAttributed(db(), { start: dates[0]!, end: dates[dates.length - 1]! });
}

export async function seedSpend(rows: { date: string; tt: string; cents: number; name?: string }[]) {
  for (const r of rows) {
    await db()
      .insert(tiktokSpend)
      .values({ date: r.date, tiktokCampaignId: r.tt, campaignName: r.name ?? "", spendCents: r.cents });
  }
}

export async function setReportTimeZone(timeZone: string) {
  await db()
    .insert(settings)
    .values({ key: "report_timezone", value: timeZone })
    .onConflictDoUpdate({ target: settings.key, set: { value: timeZone } });
}

/** GET /api/stats/report, expecting 200. */
export async function report(cookie: string, query: Record<string, string | number>): Promise<StatsReport> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await call(`/api/stats/report?${params}`, { cookie });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as StatsReport;
}

export const rowByKey = (r: StatsReport, key: string) => {
  const row = r.rows.find((x) => x.key === key);
  expect(row, `row ${key} in ${JSON.stringify(r.rows.map((x) => x.key))}`).toBeDefined();
  return row!;
};

/** Sums of money strings in cents (the rows must add up to the totals exactly). */
export const cents = (values: string[]) => values.reduce((s, v) => s + Math.round(Number(v) * 100), 0);
