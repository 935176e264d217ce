/**
 * Split tests and auto-optimisation
 * (docs/traffic-distribution.md "Split tests and auto-optimisation"), through the product's own
 * links: visitors arrive on the campaign's tracking URL, the path's rotation sends each to a
 * lander, the lander's exit link sends them to the offer, and CAKE's postback reports conversions
 * with the sub2 that offer URL carried. The split test then reads those clicks and conversions per
 * lander, and the cron's optimiser moves the weights.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clicks, clickShardDays, pathLanders, pathWeightHistory } from "../src/db/schema";
import { fixShardDays, forgetShardCounts } from "../src/tracking/shard-days";
import { optimisePaths } from "../src/jobs/optimise-paths";
import { bodyOf, clicksWritten, client, db, idParam, makeAdmin, ORIGIN, uniqueName } from "./helpers";
import { POSTBACK_TOKEN, visitLink as open, visitLinkAnswered } from "./performance-helpers";

const HOST = "https://trk.split.test";

/** Two landers at 50/50 on the default path, one offer with the default template, optimised on conversion rate. */
async function splitCampaign() {
  const admin = await makeAdmin();
  const api = client(admin);
  const tag = uniqueName("s");
  await bodyOf(await api.settings.$post({ json: { key: "redirect_domain", value: HOST } }), 200);
  const a = await bodyOf(await api.landers.$post({ json: { name: `${tag} Lander A`, url: `https://a.${tag}.test/lp` } }), 201);
  const b = await bodyOf(await api.landers.$post({ json: { name: `${tag} Lander B`, url: `https://b.${tag}.test/lp` } }), 201);
  const offer = await bodyOf(await api.offers.$post({ json: { name: `${tag} Offer`, url: `https://offer.${tag}.test/go` } }), 201);
  const campaign = await bodyOf(await api.campaigns.$post({ json: { name: `${tag} campaign`, landerId: a.id, offerId: offer.id, bhToggle: true } }), 201);
  const paths = {
    paths: [
      {
        name: "Default",
        isDefault: true,
        conditions: [],
        landers: [
          { landerId: a.id, weight: 50 },
          { landerId: b.id, weight: 50 },
        ],
        offers: [{ offerId: offer.id, weight: 100 }],
        optimisation: { mode: "cr" as const, windowDays: 7, floorPercent: 5, minVisits: 40 },
      },
    ],
  };
  const saved = await bodyOf(await api.campaigns[":id"].paths.$put({ ...idParam(campaign.id), json: paths }), 200);
  const pathId = saved.paths[0]!.id!;
  return { api, campaign, pathId, a, b, tag };
}

/**
 * `visitors` people follow the ad link, the lander's exit link, and convert when `converts` says
 * so for the lander they got: CAKE's postback carries the sub2 that offer URL had. They come all at
 * once, as ad traffic does, and their clicks reach D1 through the clicks queue before CAKE reports
 * any conversion (docs/tracking.md "Clicks through a queue"): waiting out the queue once, not once
 * for each visitor.
 */
async function traffic(
  campaign: { id: number; trackingUrl: string | null; exitUrl: string | null },
  visitors: number,
  converts: (landerHost: string, i: number) => boolean,
) {
  const people = Array.from({ length: visitors }, (_, i) => ({ i, ip: `10.9.${i >> 8}.${i & 255}` }));
  const landed = await Promise.all(
    people.map(async ({ i, ip }) => {
      const toLander = await visitLinkAnswered(campaign.trackingUrl!.replaceAll(/__[A-Z_]+__/g, "1"), ip);
      expect(toLander.status).toBe(302);
      const lander = new URL(toLander.headers.get("location")!);
      const toOffer = await visitLinkAnswered(`${campaign.exitUrl}?clickId=${lander.searchParams.get("clickId")}&cid=${lander.searchParams.get("cid")}`, ip);
      expect(toOffer.status).toBe(302);
      const host = lander.hostname.split(".")[0]!;
      return { i, ip, host, offerUrl: new URL(toOffer.headers.get("location")!), converted: converts(host, i) };
    }),
  );
  await clicksWritten();
  const seen = new Map<string, { visits: number; conversions: number }>();
  for (const { host, converted } of landed) {
    const tally = seen.get(host) ?? { visits: 0, conversions: 0 };
    tally.visits++;
    if (converted) tally.conversions++;
    seen.set(host, tally);
  }
  await Promise.all(
    landed
      .filter((v) => v.converted)
      .map(async ({ ip, offerUrl }) => {
        const postback = new URLSearchParams({
          token: POSTBACK_TOKEN,
          leadid: uniqueName("lead-"),
          oid: "9",
          price: "10.00",
          s2: offerUrl.searchParams.get("sub2")!,
        });
        expect(await (await open(`${ORIGIN}/postback/cake?${postback}`, ip)).json()).toEqual({ ok: true, result: "counted" });
      }),
  );
  return seen;
}

describe("a path's split test and its auto-optimisation", () => {
  it("counts each lander's visits, exits and conversions from the real links, names the winner, and moves weight to it with the figures kept", async () => {
    const { api, campaign, pathId } = await splitCampaign();
    // Lander B converts one visitor in three, lander A one in forty.
    const seen = await traffic(campaign, 240, (host, i) => (host === "b" ? i % 3 === 0 : i % 40 === 0));
    expect(seen.get("a")!.visits).toBeGreaterThan(80);
    expect(seen.get("b")!.visits).toBeGreaterThan(80);

    const test = await bodyOf(
      await api.campaigns[":id"].paths[":pathId"]["split-test"].$get({ param: { id: String(campaign.id), pathId: String(pathId) }, query: {} }),
      200,
    );
    const [a, b] = test.landers!.variants;
    expect(a).toMatchObject({
      name: expect.stringMatching(/Lander A$/),
      visits: seen.get("a")!.visits,
      exits: seen.get("a")!.visits,
      conversions: seen.get("a")!.conversions,
      ctr: 1,
    });
    expect(b).toMatchObject({ name: expect.stringMatching(/Lander B$/), visits: seen.get("b")!.visits, conversions: seen.get("b")!.conversions });
    expect(b!.revenueCents).toBe(seen.get("b")!.conversions * 1000);
    expect(b!.cr.low).toBeLessThan(b!.cr.value);
    expect(b!.probabilityBest).toBeGreaterThan(0.99);
    expect(test.landers!.winner).toBe(b!.id);
    expect(test.landers!.verdict).toMatch(/Lander B beats .*Lander A with .*probability on conversion rate/);
    expect(test.landers!.method).toMatch(/Wilson/);
    // One offer: nothing to compare, said so.
    expect(test.offers!.verdict).toMatch(/^Not decided: there is only one variant/);

    // The cron's optimiser: B gets the weight, A keeps its 5% floor; the history says why, by no person.
    expect(await optimisePaths(db(), Date.now(), env.CLICK_SHARDS)).toContain(pathId);
    const weights = await db().select({ landerId: pathLanders.landerId, weight: pathLanders.weight }).from(pathLanders).where(eq(pathLanders.pathId, pathId));
    expect(weights.map((w) => w.weight).sort((x, y) => x - y)).toEqual([5, 95]);
    expect(weights.find((w) => w.landerId === b!.id)!.weight).toBe(95);
    const history = await bodyOf(await api.campaigns[":id"].paths[":pathId"].history.$get({ param: { id: String(campaign.id), pathId: String(pathId) } }), 200);
    expect(history.entries[0]).toMatchObject({ by: null });
    expect(history.entries[0]!.reason).toMatch(/^Landers, last 7 days\. Thompson sampling on conversion rate/);
    expect(history.entries[0]!.reason).toContain(`${seen.get("b")!.visits} visits, ${seen.get("b")!.conversions} conversions`);
    // Nothing new since: the next run leaves them.
    expect(await optimisePaths(db(), Date.now(), env.CLICK_SHARDS)).not.toContain(pathId);

    // The next visitors follow the new weights.
    const after = await traffic(campaign, 60, () => false);
    expect(after.get("b")!.visits).toBeGreaterThan(45);
  }, 240_000);

  it("counts the same from clicks stored in shard-day objects, their conversions credited through D1's copies", async () => {
    await fixShardDays(db(), 4, Date.now());
    try {
      const { api, campaign, pathId } = await splitCampaign();
      const seen = await traffic(campaign, 120, (host, i) => (host === "b" ? i % 3 === 0 : i % 40 === 0));
      expect(await db().select().from(clicks).where(eq(clicks.campaignId, campaign.id))).toEqual([]);
      const test = await bodyOf(
        await api.campaigns[":id"].paths[":pathId"]["split-test"].$get({ param: { id: String(campaign.id), pathId: String(pathId) }, query: {} }),
        200,
      );
      for (const [i, host] of ["a", "b"].entries()) {
        expect(test.landers!.variants[i]).toMatchObject({
          visits: seen.get(host)!.visits,
          exits: seen.get(host)!.visits,
          conversions: seen.get(host)!.conversions,
          revenueCents: seen.get(host)!.conversions * 1000,
        });
      }
    } finally {
      await db().delete(clickShardDays);
      forgetShardCounts();
    }
  }, 240_000);

  it("holds the weights until every variant has the minimum visits, and leaves a pinned variant as set", async () => {
    const { api, campaign, pathId, a, b } = await splitCampaign();
    await traffic(campaign, 30, (host, i) => host === "b" && i % 2 === 0);
    expect(await optimisePaths(db(), Date.now(), env.CLICK_SHARDS)).not.toContain(pathId);
    expect((await db().select().from(pathWeightHistory).where(eq(pathWeightHistory.pathId, pathId))).every((h) => h.userId !== null)).toBe(true);

    const pinned = {
      paths: [
        {
          id: pathId,
          name: "Default",
          isDefault: true,
          conditions: [],
          landers: [
            { landerId: a.id, weight: 70, pinned: true },
            { landerId: b.id, weight: 30 },
          ],
          offers: [{ offerId: campaign.offerId!, weight: 100 }],
          optimisation: { mode: "cr" as const, windowDays: 7, floorPercent: 5, minVisits: 10 },
        },
      ],
    };
    await bodyOf(await api.campaigns[":id"].paths.$put({ ...idParam(campaign.id), json: pinned }), 200);
    await optimisePaths(db(), Date.now(), env.CLICK_SHARDS);
    const weights = await db().select({ landerId: pathLanders.landerId, weight: pathLanders.weight }).from(pathLanders).where(eq(pathLanders.pathId, pathId));
    expect(weights.find((w) => w.landerId === a.id)!.weight).toBe(70);
    expect(weights.find((w) => w.landerId === b.id)!.weight).toBe(30);
  }, 120_000);

  it("refuses a split test of a path of another campaign, and a bad period", async () => {
    const first = await splitCampaign();
    const second = await splitCampaign();
    const other = await first.api.campaigns[":id"].paths[":pathId"]["split-test"].$get({
      param: { id: String(first.campaign.id), pathId: String(second.pathId) },
      query: {},
    });
    expect(other.status).toBe(404);
    const bad = await first.api.campaigns[":id"].paths[":pathId"]["split-test"].$get({
      param: { id: String(first.campaign.id), pathId: String(first.pathId) },
      query: { days: "0" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "days must be 1-90" });
  }, 60_000);
});
