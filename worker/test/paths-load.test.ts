/**
 * A campaign's paths edited while its links take traffic (docs/traffic-distribution.md, "How fast
 * an edit reaches the tracking routes"): no click lost or stored twice, nobody sent to a removed or
 * paused variant once the edit has reached the isolate, and the exits of earlier clicks sent to the
 * offer chosen for their click.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { followDefaultPath, replacePathStatements } from "../src/db/queries/paths";
import { clicks, landerClicks } from "../src/db/schema";
import { putPathsSchema } from "../src/schemas/paths";
import { CAMPAIGN_CACHE_TTL_MS, trackedCampaign } from "../src/tracking/campaign-cache";
import { bodyOf, db, idParam, makeAdmin } from "./helpers";
import { put, send, world, type Paths } from "./paths-helpers";

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Visitors sending requests at once, each one after the other, for the whole test. */
const LOOPS = 6;
/** /r/ clicks answered in each phase (before the first edit, between the edits, after the second). */
const PER_PHASE = 90;

describe("a campaign edited under load", () => {
  it(
    "stores every answered click once, sends nobody to a removed or paused variant after the save, and sends earlier clicks' exits to their offer",
    { timeout: 180_000 },
    async () => {
      const w = await world(await makeAdmin(), { landers: 3, offers: 3 });
      const [L0, L1, L2] = w.landers as [number, number, number];
      const [O0, O1, O2] = w.offers as [number, number, number];
      const feed: Paths[number]["conditions"][number] = { field: "param", param: "plc", op: "is", values: ["feed"] };
      /**
       * The campaign's two paths: "Feed" (plc=feed) with its landers and offer 0, then the default
       * path's landers and offers as [id, weight] ([id, weight, true]: paused). Ids keep the paths.
       */
      const pathSet = (ids: [number, number] | null, feedLanders: number[], landers: [number, number][], offers: [number, number, boolean?][]): Paths => [
        {
          ...(ids ? { id: ids[0] } : {}),
          name: "Feed",
          isDefault: false,
          conditions: [feed],
          landers: feedLanders.map((landerId) => ({ landerId, weight: 1 })),
          offers: [{ offerId: O0, weight: 1 }],
        },
        {
          ...(ids ? { id: ids[1] } : {}),
          name: "Default",
          isDefault: true,
          conditions: [],
          landers: landers.map(([landerId, weight]) => ({ landerId, weight })),
          offers: offers.map(([offerId, weight, paused = false]) => ({ offerId, weight, paused })),
        },
      ];
      const first = await bodyOf(
        await put(
          w.api,
          w.campaignId,
          pathSet(
            null,
            [L1],
            [
              [L0, 1],
              [L1, 1],
              [L2, 1],
            ],
            [
              [O0, 1],
              [O1, 1],
              [O2, 1],
            ],
          ),
        ),
        200,
      );
      const ids = first.paths.map((p) => p.id!) as [number, number];
      const [feedId, defaultId] = ids;
      expect(first.editsReachTrackingWithinSeconds).toBe(CAMPAIGN_CACHE_TTL_MS / 1000);
      // Edit 1: lander 2 removed, offer 2 paused, the landers' weights changed.
      const edit1 = pathSet(
        ids,
        [L1],
        [
          [L0, 1],
          [L1, 3],
        ],
        [
          [O0, 1],
          [O1, 1],
          [O2, 1, true],
        ],
      );
      // Edit 2: offer 1 removed, the feed path rotating two landers.
      const edit2 = pathSet(
        ids,
        [L0, L1],
        [
          [L0, 1],
          [L1, 1],
        ],
        [
          [O0, 1],
          [O2, 1, true],
        ],
      );

      const landerByHost = new Map(w.landers.map((id, i) => [`lp${i}.${w.tag}.test`, id]));
      const offerByHost = new Map(w.offers.map((id, i) => [`offer${i}.${w.tag}.test`, id]));
      // The phase a request started in: 1 once the first save has answered, 2 once the second has.
      let phase = 0;
      let stop = false;
      // Each request's phase when it started and when it was answered.
      const answered: { clickId: string; phase: number; end: number; feed: boolean; landerId: number }[] = [];
      const answeredIn = [0, 0, 0];
      const exits: { clickId: string; phase: number; end: number; offerId: number }[] = [];
      const writes: Promise<void>[] = [];
      /** Clicks whose exit is made later, in the next phase: visitors still on the lander when the campaign changes. */
      const deferred: string[][] = [[], [], []];

      const exit = async (clickId: string, ip: string) => {
        const at = phase;
        const { res, written } = await send(`/click?clickId=${clickId}&cid=${w.campaignId}`, { ip });
        writes.push(written);
        expect(res.status).toBe(302);
        const offerId = offerByHost.get(new URL(res.headers.get("location")!).host);
        expect(offerId).toBeDefined();
        exits.push({ clickId, phase: at, end: phase, offerId: offerId! });
      };

      // A visitor's failed expectation stops the load and fails the test, rather than leave it waiting.
      let failure: unknown = null;
      const loop = async (n: number) => {
        try {
          await visitor(n);
        } catch (err) {
          failure ??= err;
          stop = true;
        }
      };
      const visitor = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const ip = `198.18.${n}.${i % 250}`;
          const isFeed = i % 4 === 0;
          const at = phase;
          const { res, written } = await send(`/r/${w.campaignId}${isFeed ? "?plc=feed" : ""}`, { ip });
          writes.push(written);
          expect(res.status).toBe(302);
          const location = new URL(res.headers.get("location")!);
          const clickId = location.searchParams.get("clickId")!;
          answered.push({ clickId, phase: at, end: phase, feed: isFeed, landerId: landerByHost.get(location.host)! });
          answeredIn[at]!++;
          // A third of the visitors go on at once, the others later.
          if (i % 3 === 0) await exit(clickId, ip);
          else deferred[at]!.push(clickId);
          // Each request a task of its own, as real requests are: a cached /r/ does no I/O, and a
          // loop of them alone would never let the click batches' timers (or this test's) run.
          await nextTask();
        }
      };

      /** Resolves once `count` clicks of the current phase have been answered. */
      const phaseHas = async (count: number) => {
        const at = phase;
        while (answeredIn[at]! < count) {
          if (failure) throw failure;
          await nextTask();
        }
      };
      /** The deferred exits of `from`, made now by visitors of their own. */
      const exitLater = (from: number) => Promise.all(deferred[from]!.splice(0).map((clickId, i) => exit(clickId, `192.0.2.${i % 250}`)));

      const loops = Array.from({ length: LOOPS }, (_, n) => loop(n));
      await phaseHas(PER_PHASE);
      await bodyOf(await put(w.api, w.campaignId, edit1), 200);
      phase = 1;
      const exits0 = exitLater(0);
      await phaseHas(PER_PHASE);
      await bodyOf(await put(w.api, w.campaignId, edit2), 200);
      phase = 2;
      const exits1 = exitLater(1);
      await phaseHas(PER_PHASE);
      stop = true;
      await Promise.all([...loops, exits0, exits1]);
      if (failure) throw failure;
      await exitLater(2);
      // Every request's background work: the click batches written, the exits recorded.
      await Promise.all(writes);

      // Every answered click stored, once.
      const stored = await db().select().from(clicks).where(eq(clicks.campaignId, w.campaignId));
      expect(stored.length).toBe(answered.length);
      const byId = new Map(stored.map((c) => [c.clickId, c]));
      expect(byId.size).toBe(answered.length);
      for (const a of answered) {
        const click = byId.get(a.clickId);
        expect(click, a.clickId).toBeDefined();
        // The stored lander is where the visitor was sent; the path is the one their URL asked for.
        expect(click!.landerId).toBe(a.landerId);
        expect(click!.pathId).toBe(a.feed ? feedId : defaultId);
      }

      const clicksOf = (keep: (a: (typeof answered)[number]) => boolean) => answered.filter(keep).map((a) => byId.get(a.clickId)!);
      // Requests started and answered within one phase: they saw only that phase's paths.
      const of = (at: number, feed: boolean) => clicksOf((a) => a.phase === at && a.end === at && a.feed === feed);
      // Before the first edit every default-path variant took visitors: the edits had something to take away.
      expect(new Set(of(0, false).map((c) => c.landerId))).toEqual(new Set([L0, L1, L2]));
      expect(new Set(of(0, false).map((c) => c.offerId))).toEqual(new Set([O0, O1, O2]));
      // Every request started after the first save answered: nobody to the removed lander or the paused offer.
      for (const c of clicksOf((a) => a.phase >= 1)) {
        expect(c.landerId).not.toBe(L2);
        expect(c.offerId).not.toBe(O2);
      }
      for (const c of clicksOf((a) => a.phase === 2)) expect(c.offerId).toBe(O0);
      expect(new Set(of(1, true).map((c) => c.landerId))).toEqual(new Set([L1]));
      expect(new Set(of(2, true).map((c) => c.landerId))).toEqual(new Set([L0, L1]));
      // Between the edits lander 1 takes three visitors in four (a sample of about 70: a wide margin).
      const l1Share = of(1, false).filter((c) => c.landerId === L1).length / of(1, false).length;
      expect(l1Share).toBeGreaterThan(0.55);

      // Exits: to the offer chosen for the click, paused since or not; to the campaign's own offer
      // (the default path's first, offer 0) once the click's offer has left the campaign. An exit
      // answered across a save may follow either side of it.
      const expectedOffer = (clickId: string, at: number) => {
        const chosen = byId.get(clickId)!.offerId!;
        return chosen === O1 && at === 2 ? O0 : chosen;
      };
      for (const e of exits) {
        expect([expectedOffer(e.clickId, e.phase), expectedOffer(e.clickId, e.end)], `exit of ${e.clickId} in phase ${e.phase}`).toContain(e.offerId);
      }
      // The cases that matter were exercised: earlier clicks of the paused offer, and of the removed one.
      expect(exits.some((e) => e.phase >= 1 && byId.get(e.clickId)!.offerId === O2)).toBe(true);
      expect(exits.some((e) => e.phase === 2 && byId.get(e.clickId)!.offerId === O1)).toBe(true);
      // Each exit recorded once, with the offer the visitor was sent to.
      const recorded = await db()
        .select({ clickId: landerClicks.clickId, offerId: landerClicks.offerId })
        .from(landerClicks)
        .innerJoin(clicks, eq(clicks.clickId, landerClicks.clickId))
        .where(eq(clicks.campaignId, w.campaignId));
      expect(recorded.length).toBe(exits.length);
      const sentTo = new Map(exits.map((e) => [e.clickId, e.offerId]));
      for (const r of recorded) expect(r.offerId).toBe(sentTo.get(r.clickId));
    },
  );

  it("holds a campaign another isolate saved for at most the stated time, then follows the save", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 2, offers: 1 });
    const only = (landerId: number): Paths => [
      { name: "Default", isDefault: true, conditions: [], landers: [{ landerId, weight: 1 }], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
    ];
    await bodyOf(await put(w.api, w.campaignId, only(w.landers[0]!)), 200);
    const got = await bodyOf(await w.api.campaigns[":id"].paths.$get(idParam(w.campaignId)), 200);
    const database = db();
    const allow = async () => true;
    const landerAt = async (now: number) => {
      const live = await trackedCampaign(database, w.campaignId, allow, now);
      if (!live || live === "lookup-refused") throw new Error("campaign not found");
      return live.distribution!.paths[0]!.landers.map((l) => l.id);
    };
    const readAt = Date.now();
    expect(await landerAt(readAt)).toEqual([w.landers[0]]);
    // The save as another isolate makes it: stored in D1, this isolate's cache not told.
    const { paths } = putPathsSchema.parse({ paths: [{ ...only(w.landers[1]!)[0]!, id: got.paths[0]!.id! }] });
    await database.batch([followDefaultPath(database, w.campaignId, paths[0]!), ...replacePathStatements(database, w.campaignId, paths, new Set(), null)]);
    expect(await landerAt(readAt + CAMPAIGN_CACHE_TTL_MS - 1)).toEqual([w.landers[0]]);
    expect(await landerAt(readAt + CAMPAIGN_CACHE_TTL_MS)).toEqual([w.landers[1]]);
  });
});
