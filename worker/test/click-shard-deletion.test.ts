/**
 * What a deletion takes along, with clicks in shard-day objects: the confirmation counts the clicks
 * the objects keep (never read again once the campaign is gone) with D1's, and their days, for a
 * campaign, its lander and its offer (db/queries/deletion-impact.ts, tracking/click-log.ts
 * `objectClickSpans`).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeletionImpact } from "../src/db/queries/deletion-impact";
import { campaigns, clicks, clickShardDays } from "../src/db/schema";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { call, db, makeAdmin, type TestUser } from "./helpers";
import { visitLink } from "./performance-helpers";
import { campaignWithOffer } from "./tracking-helpers";

const HOST = "https://trk.brand.test";
let admin: TestUser;

beforeAll(async () => {
  admin = await makeAdmin();
  await fixShardDays(db(), 4, Date.now());
});

afterAll(async () => {
  await db().delete(clickShardDays);
  forgetShardCounts();
});

const impact = async (path: string) => {
  const res = await call(path, { cookie: admin.cookie });
  expect(res.status).toBe(200);
  return res.json<DeletionImpact>();
};

describe("the deletion's impact with clicks in shard-day objects", () => {
  it("counts the objects' clicks of the campaign, its lander's and its offer's, with their days", { timeout: 60_000 }, async () => {
    const campaignId = await campaignWithOffer("Shard deletion");
    const before = Date.now();
    for (const ip of ["203.0.113.131", "203.0.113.132", "203.0.113.133"]) await visitLink(`${HOST}/r/${campaignId}?cid=tt-9`, ip);
    expect(await db().select().from(clicks).where(eq(clicks.campaignId, campaignId))).toEqual([]);

    const [campaign] = await db().select().from(campaigns).where(eq(campaigns.id, campaignId));
    for (const path of [`/api/campaigns/${campaignId}`, `/api/landers/${campaign!.landerId}`, `/api/offers/${campaign!.offerId}`]) {
      const answer = await impact(`${path}/deletion-impact`);
      expect(answer.campaigns).toEqual([{ id: campaignId, name: "Shard deletion", clicks: 3 }]);
      expect(answer.clicks).toBe(3);
      expect(Date.parse(answer.firstClickAt!)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(answer.lastClickAt!)).toBeGreaterThanOrEqual(Date.parse(answer.firstClickAt!));
    }
  });
});
