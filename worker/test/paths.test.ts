import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, clicks, landerClicks, pathWeightHistory } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { MAX_PATHS } from "../src/schemas/paths";
import { bodyOf, db, idParam, makeAdmin } from "./helpers";
import { put, send, visit, WINDOWS, world, type Paths, type Visitor } from "./paths-helpers";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0";

const clickRow = async (clickId: string) => (await db().select().from(clicks).where(eq(clicks.clickId, clickId)))[0]!;

/** A visit to /r/, then its lander link to /click: where each sent the visitor, and the stored click. */
async function clickThrough(campaignId: number, who: Visitor = {}, query = "") {
  const r = await visit(`/r/${campaignId}${query}`, who);
  expect(r.status).toBe(302);
  const lander = new URL(r.headers.get("location")!);
  const clickId = lander.searchParams.get("clickId")!;
  const exit = await visit(`/click?clickId=${clickId}&cid=${campaignId}`, who);
  expect(exit.status).toBe(302);
  return { lander, offer: new URL(exit.headers.get("location")!), click: await clickRow(clickId) };
}

describe("a campaign without paths of its own", () => {
  it("runs as one default path with its lander and offer, and its clicks say which", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin());
    const got = await bodyOf(await w.api.campaigns[":id"].paths.$get(idParam(w.campaignId)), 200);
    expect(got.explicit).toBe(false);
    expect(got.paths).toMatchObject([
      { id: null, isDefault: true, landers: [{ landerId: w.landers[0], percent: 100 }], offers: [{ offerId: w.offers[0], percent: 100 }] },
    ]);
    const { lander, offer, click } = await clickThrough(w.campaignId);
    expect(lander.host).toBe(`lp0.${w.tag}.test`);
    expect(offer.host).toBe(`offer0.${w.tag}.test`);
    expect(click).toMatchObject({ pathId: null, landerId: w.landers[0], offerId: w.offers[0] });
  });
});

describe("rule paths on /r/ and /click", () => {
  it("sends each visitor down the first matching path and on to that path's offer, storing path, lander and offer", { timeout: 60_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 3, offers: 3 });
    const saved = await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "US iPhone",
          isDefault: false,
          conditions: [
            { field: "country", op: "is", values: ["us", "CA"] },
            { field: "os", op: "is", values: ["iOS"] },
          ],
          landers: [{ landerId: w.landers[1]!, weight: 1 }],
          offers: [{ offerId: w.offers[1]!, weight: 1 }],
        },
        {
          name: "Spanish speakers from feed",
          isDefault: false,
          conditions: [
            { field: "language", op: "is", values: ["es"] },
            { field: "param", param: "plc", op: "is", values: ["feed"] },
          ],
          landers: [{ landerId: w.landers[2]!, weight: 1 }],
          offers: [{ offerId: w.offers[2]!, weight: 1 }],
        },
        {
          name: "Everyone else",
          isDefault: true,
          conditions: [],
          landers: [{ landerId: w.landers[0]!, weight: 1 }],
          offers: [{ offerId: w.offers[0]!, weight: 1 }],
        },
      ]),
      200,
    );
    expect(saved.explicit).toBe(true);
    const [us, es, rest] = saved.paths.map((p) => p.id!);

    const iphoneUs = await clickThrough(w.campaignId, { ua: IPHONE, cf: { country: "US", asn: 7922 } });
    expect(iphoneUs.lander.host).toBe(`lp1.${w.tag}.test`);
    expect(iphoneUs.offer.host).toBe(`offer1.${w.tag}.test`);
    expect(iphoneUs.click).toMatchObject({ pathId: us, landerId: w.landers[1], offerId: w.offers[1], os: "iOS" });

    // Same phone elsewhere, and a computer in the US: the conditions are ANDed.
    for (const who of [
      { ua: IPHONE, cf: { country: "DE" } },
      { ua: WINDOWS, cf: { country: "US" } },
    ]) {
      const other = await clickThrough(w.campaignId, who);
      expect(other.click).toMatchObject({ pathId: rest, landerId: w.landers[0], offerId: w.offers[0] });
      expect(other.offer.host).toBe(`offer0.${w.tag}.test`);
    }

    const spanish = await clickThrough(w.campaignId, { headers: { "accept-language": "es-MX,es;q=0.9,en;q=0.5" }, cf: { country: "MX" } }, "?plc=feed&cid=17");
    expect(spanish.click).toMatchObject({ pathId: es, landerId: w.landers[2], offerId: w.offers[2], placement: "feed" });
    expect(spanish.offer.host).toBe(`offer2.${w.tag}.test`);
    expect(spanish.offer.searchParams.get("sub2")).toBe(spanish.click.clickId);

    // No cf object at all (a local run): the default path.
    const local = await clickThrough(w.campaignId);
    expect(local.click.pathId).toBe(rest);
  });

  it("sends a direct-to-offer path's visitors straight to the offer with its template filled, the visit recorded as an exit", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin());
    await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Direct",
          isDefault: false,
          conditions: [{ field: "country", op: "is", values: ["GB"] }],
          directToOffer: true,
          landers: [],
          offers: [{ offerId: w.offers[1]!, weight: 5 }],
        },
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
      ]),
      200,
    );
    const res = await visit(`/r/${w.campaignId}?cid=1799&ad=2001`, { cf: { country: "GB" } });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.host).toBe(`offer1.${w.tag}.test`);
    const clickId = location.searchParams.get("sub2")!;
    expect(location.searchParams.get("sub4")).toBe("2001");
    const click = await clickRow(clickId);
    expect(click).toMatchObject({ landerId: null, offerId: w.offers[1], campaignId: w.campaignId });
    expect(click.exitedAt).not.toBeNull();
    expect(await db().select().from(landerClicks).where(eq(landerClicks.clickId, clickId))).toMatchObject([{ offerId: w.offers[1] }]);
  });

  it("splits visitors by weight, and never sends one to a paused or 0% variant", { timeout: 120_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 3, offers: 2 });
    await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Default",
          isDefault: true,
          conditions: [],
          landers: [
            { landerId: w.landers[0]!, weight: 3 },
            { landerId: w.landers[1]!, weight: 1 },
            { landerId: w.landers[2]!, weight: 50, paused: true },
          ],
          offers: [
            { offerId: w.offers[0]!, weight: 1 },
            { offerId: w.offers[1]!, weight: 0 },
          ],
        },
      ]),
      200,
    );
    const N = 800;
    const hosts = new Map<string, number>();
    const written: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      // Each visitor answered in turn; their clicks go to the queue together, as under load.
      const sent = await send(`/r/${w.campaignId}`, { ip: `198.51.${i >> 8}.${i & 255}` });
      written.push(sent.written);
      const host = new URL(sent.res.headers.get("location")!).host;
      hosts.set(host, (hosts.get(host) ?? 0) + 1);
    }
    await Promise.all(written);
    // 75% expected; the sample's standard deviation is 1.5 points, so 6 points is four of them.
    expect(Math.abs((hosts.get(`lp0.${w.tag}.test`) ?? 0) / N - 0.75)).toBeLessThan(0.06);
    expect(hosts.get(`lp2.${w.tag}.test`)).toBeUndefined();
    const offersGiven = await db().select({ offerId: clicks.offerId }).from(clicks).where(eq(clicks.campaignId, w.campaignId));
    expect(offersGiven).toHaveLength(N);
    expect(offersGiven.every((c) => c.offerId === w.offers[0])).toBe(true);
  });

  it("keeps a sticky visitor on their lander, and moves them off it once it is paused", { timeout: 60_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 2, offers: 1 });
    const paths = (pausedFirst: boolean): Paths => [
      {
        name: "Default",
        isDefault: true,
        conditions: [],
        stickyDays: 7,
        landers: [
          { landerId: w.landers[0]!, weight: 1, paused: pausedFirst },
          { landerId: w.landers[1]!, weight: 1 },
        ],
        offers: [{ offerId: w.offers[0]!, weight: 1 }],
      },
    ];
    await bodyOf(await put(w.api, w.campaignId, paths(false)), 200);
    // Only the answers matter here: the clicks go on being written meanwhile.
    const landerOf = async (ip: string) => new URL((await send(`/r/${w.campaignId}`, { ip })).res.headers.get("location")!).host;
    const seen = new Map<string, string>();
    for (let i = 0; i < 40; i++) seen.set(`192.0.2.${i}`, await landerOf(`192.0.2.${i}`));
    // Both landers get visitors, and each visitor keeps theirs.
    expect(new Set(seen.values()).size).toBe(2);
    for (const [ip, host] of [...seen].slice(0, 10)) expect(await landerOf(ip)).toBe(host);

    await bodyOf(await put(w.api, w.campaignId, paths(true)), 200);
    for (const ip of seen.keys()) expect(await landerOf(ip)).toBe(`lp1.${w.tag}.test`);
  });

  it("sends an exit to the offer stored on the click, or to the campaign's own when that offer left the paths", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 1, offers: 3 });
    const only = (offerId: number): Paths => [
      { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [{ offerId, weight: 1 }] },
    ];
    await bodyOf(await put(w.api, w.campaignId, only(w.offers[1]!)), 200);
    const r = await visit(`/r/${w.campaignId}`);
    const clickId = new URL(r.headers.get("location")!).searchParams.get("clickId")!;
    await bodyOf(await put(w.api, w.campaignId, only(w.offers[2]!)), 200);
    const exit = await visit(`/click?clickId=${clickId}&cid=${w.campaignId}`);
    // offer 1 is no variant any more: the campaign's own offer now (the default path's, offer 2).
    expect(new URL(exit.headers.get("location")!).host).toBe(`offer2.${w.tag}.test`);
  });
});

describe("PUT /api/campaigns/:id/paths", () => {
  it("keeps the campaign dialog's lander and offer in step with the default path, both ways", { timeout: 30_000 }, async () => {
    const admin = await makeAdmin();
    const w = await world(admin, { landers: 3, offers: 2 });
    await bodyOf(
      await put(w.api, w.campaignId, [
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[1]!, weight: 1 }], offers: [{ offerId: w.offers[1]!, weight: 1 }] },
      ]),
      200,
    );
    const list = await bodyOf(await w.api.campaigns.$get(), 200);
    expect(list.find((c) => c.id === w.campaignId)).toMatchObject({ landerId: w.landers[1], offerId: w.offers[1] });
    // The dialog changes the lander: the default path follows.
    await bodyOf(await w.api.campaigns[":id"].$patch({ ...idParam(w.campaignId), json: { landerId: w.landers[2]!, offerId: null } }), 200);
    const got = await bodyOf(await w.api.campaigns[":id"].paths.$get(idParam(w.campaignId)), 200);
    expect(got.paths[0]).toMatchObject({ landers: [{ landerId: w.landers[2] }], offers: [] });
    // A default path rotating two landers is not overwritten from the dialog.
    await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Default",
          isDefault: true,
          conditions: [],
          landers: [
            { landerId: w.landers[0]!, weight: 1 },
            { landerId: w.landers[1]!, weight: 1 },
          ],
          offers: [],
        },
      ]),
      200,
    );
    const refused = await w.api.campaigns[":id"].$patch({ ...idParam(w.campaignId), json: { landerId: w.landers[2]! } });
    expect(refused.status).toBe(409);
    expect((await refused.json()) as unknown).toMatchObject({ error: "The campaign's default path rotates 2 landers: change them under Paths" });
  });

  it("keeps path ids across saves, records weight changes in the history and the change in the audit log", { timeout: 30_000 }, async () => {
    const admin = await makeAdmin();
    const w = await world(admin);
    const first = await bodyOf(
      await put(w.api, w.campaignId, [
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
      ]),
      200,
    );
    const id = first.paths[0]!.id!;
    const second = await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Mobile",
          isDefault: false,
          conditions: [{ field: "deviceType", op: "is", values: ["Mobile"] }],
          landers: [{ landerId: w.landers[1]!, weight: 1 }],
          offers: [{ offerId: w.offers[0]!, weight: 1 }],
        },
        {
          id,
          name: "Default",
          isDefault: true,
          conditions: [],
          landers: [
            { landerId: w.landers[0]!, weight: 60 },
            { landerId: w.landers[1]!, weight: 40, pinned: true },
          ],
          offers: [{ offerId: w.offers[0]!, weight: 1 }],
        },
      ]),
      200,
    );
    expect(second.paths[1]).toMatchObject({ id, landers: [{ percent: 60 }, { percent: 40, pinned: true }] });
    const history = await bodyOf(await w.api.campaigns[":id"].paths[":pathId"].history.$get({ param: { id: String(w.campaignId), pathId: String(id) } }), 200);
    expect(history.entries).toHaveLength(2);
    expect(history.entries[0]).toMatchObject({
      by: { id: admin.id },
      reason: "Set by hand",
      weights: { landers: [{ weight: 60 }, { weight: 40, pinned: true }] },
    });
    expect(history.entries[1]).toMatchObject({ reason: "Path created" });
    const entries = await db().select().from(auditLog).where(eq(auditLog.action, "campaign.paths"));
    expect(entries.some((e) => e.entityId === String(w.campaignId) && e.summary.includes("Mobile"))).toBe(true);
    // Saved again unchanged: no new history row.
    await bodyOf(
      await put(
        w.api,
        w.campaignId,
        second.paths.map(({ id: pathId, ...p }) => ({ ...p, id: pathId ?? undefined })),
      ),
      200,
    );
    expect(await db().select().from(pathWeightHistory).where(eq(pathWeightHistory.pathId, id))).toHaveLength(2);
  });

  it("refuses each kind of bad set with a message saying what is wrong, and stores none of it", { timeout: 60_000 }, async () => {
    const admin = await makeAdmin();
    const w = await world(admin);
    const other = await world(admin);
    const otherPaths = await bodyOf(
      await put(other.api, other.campaignId, [
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: other.landers[0]!, weight: 1 }], offers: [] },
      ]),
      200,
    );
    const lander = (landerId = w.landers[0]!, weight = 1) => ({ landerId, weight });
    const fallback = { name: "Default", isDefault: true, conditions: [], landers: [lander()], offers: [] };
    const rule = (p: Partial<Paths[number]>) => ({
      name: "Rule",
      isDefault: false,
      conditions: [{ field: "country" as const, op: "is" as const, values: ["US"] }],
      landers: [lander()],
      offers: [],
      ...p,
    });
    const deleted = await bodyOf(await w.api.landers.$post({ json: { name: "Gone", url: "https://gone.test/" } }), 201);
    await bodyOf(await w.api.landers[":id"].$delete(idParam(deleted.id)), 200);
    const cases: [string, Paths][] = [
      [
        'Path "Default": every lander is paused or at 0%, so nobody could be sent to one',
        [{ ...fallback, landers: [lander(w.landers[0], 0), { ...lander(w.landers[1]), paused: true }] }],
      ],
      ['Path "Rule" needs a lander, or to send visitors straight to the offer', [rule({ landers: [] }), fallback]],
      ['Path "Rule" sends visitors straight to the offer: give it an offer', [rule({ landers: [], directToOffer: true }), fallback]],
      [
        'Unknown country code "ZZ" (use ISO 3166-1 alpha-2, e.g. US, GB, DE)',
        [rule({ conditions: [{ field: "country", op: "is", values: ["ZZ"] }] }), fallback],
      ],
      [`Path "Default": lander ${deleted.id} does not exist (deleted?)`, [{ ...fallback, landers: [lander(deleted.id)] }]],
      [`Path "Default": offer 999999 does not exist (deleted?)`, [{ ...fallback, offers: [{ offerId: 999_999, weight: 1 }] }]],
      [`At most ${MAX_PATHS} paths`, [...Array.from({ length: MAX_PATHS }, () => rule({})), fallback]],
      ["One path must be the default path", [rule({})]],
      ["Only one path can be the default path", [fallback, fallback]],
      ["The default path must be the last one (it catches every visitor no rule path took)", [fallback, rule({})]],
      ['Path "Default" is the default path: it has no conditions', [{ ...fallback, conditions: [{ field: "hour", op: "is", values: ["9"] }] }]],
      ['Path "Rule" lists lander ' + w.landers[0] + " twice", [rule({ landers: [lander(), lander()] }), fallback]],
      ['Hour "24" must be 0 to 23', [rule({ conditions: [{ field: "hour", op: "is", values: ["24"] }] }), fallback]],
      [
        `Path "Default": path ${otherPaths.paths[0]!.id} is not a path of this campaign (leave the id out for a new path)`,
        [{ ...fallback, id: otherPaths.paths[0]!.id! }],
      ],
    ];
    for (const [message, paths] of cases) {
      const res = await put(w.api, w.campaignId, paths);
      expect(res.status, message).toBe(400);
      const body = (await res.json()) as unknown as ApiErrorBody;
      expect(
        [body.error, ...(body.details ?? [])].some((m) => m.includes(message)),
        `${message} in ${JSON.stringify(body)}`,
      ).toBe(true);
    }
    const got = await bodyOf(await w.api.campaigns[":id"].paths.$get(idParam(w.campaignId)), 200);
    expect(got.explicit).toBe(false);
  });

  it("refuses to delete a lander or offer a path uses, naming the campaign and path", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin(), { landers: 2, offers: 2 });
    await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Canada",
          isDefault: false,
          conditions: [{ field: "country", op: "is", values: ["CA"] }],
          landers: [{ landerId: w.landers[1]!, weight: 1 }],
          offers: [{ offerId: w.offers[1]!, weight: 1 }],
        },
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
      ]),
      200,
    );
    const landerRes = await w.api.landers[":id"].$delete(idParam(w.landers[1]!));
    expect(landerRes.status).toBe(409);
    expect(((await landerRes.json()) as unknown as ApiErrorBody).error).toBe(
      `Lander "${w.tag} LP1" is used by campaign "${w.tag} campaign" (path "Canada"): take it out of those paths first`,
    );
    const offerRes = await w.api.offers[":id"].$delete(idParam(w.offers[1]!));
    expect(offerRes.status).toBe(409);
    expect(((await offerRes.json()) as unknown as ApiErrorBody).error).toContain(`(path "Canada")`);
    // Once out of the paths it can go.
    await bodyOf(
      await put(w.api, w.campaignId, [
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
      ]),
      200,
    );
    await bodyOf(await w.api.landers[":id"].$delete(idParam(w.landers[1]!)), 200);
    // Straight to the offer, the campaign keeps its own lander; deleting that would delete the campaign.
    await bodyOf(
      await put(w.api, w.campaignId, [
        { name: "Default", isDefault: true, conditions: [], directToOffer: true, landers: [], offers: [{ offerId: w.offers[0]!, weight: 1 }] },
      ]),
      200,
    );
    const own = await w.api.landers[":id"].$delete(idParam(w.landers[0]!));
    expect(own.status).toBe(409);
    expect(((await own.json()) as unknown as ApiErrorBody).error).toContain(`campaign "${w.tag} campaign" (its own lander)`);
  });
});

describe("POST /api/campaigns/:id/paths/preview", () => {
  it("names the path and the shares a visitor would get, and says what a visitor without Cloudflare data gets", { timeout: 30_000 }, async () => {
    const w = await world(await makeAdmin());
    await bodyOf(
      await put(w.api, w.campaignId, [
        {
          name: "Weekday mornings in Germany",
          isDefault: false,
          conditions: [
            { field: "country", op: "is", values: ["DE"] },
            { field: "weekday", op: "is", values: ["1", "2", "3", "4", "5"] },
            { field: "hour", op: "is", values: ["6", "7", "8", "9"] },
          ],
          landers: [
            { landerId: w.landers[0]!, weight: 1 },
            { landerId: w.landers[1]!, weight: 3 },
          ],
          offers: [{ offerId: w.offers[0]!, weight: 1 }],
        },
        { name: "Default", isDefault: true, conditions: [], landers: [{ landerId: w.landers[0]!, weight: 1 }], offers: [] },
      ]),
      200,
    );
    const preview = (json: Record<string, unknown>) => w.api.campaigns[":id"].paths.preview.$post({ ...idParam(w.campaignId), json });
    // 2026-11-24 is a Tuesday; the report time zone is UTC by default.
    const morning = await bodyOf(await preview({ country: "DE", at: "2026-11-24T07:30:00Z" }), 200);
    expect(morning.path.name).toBe("Weekday mornings in Germany");
    expect(morning.landers.map((l) => l.percent)).toEqual([25, 75]);
    const sunday = await bodyOf(await preview({ country: "DE", at: "2026-11-29T07:30:00Z" }), 200);
    expect(sunday.path.isDefault).toBe(true);
    const local = await bodyOf(await preview({}), 200);
    expect(local.path.isDefault).toBe(true);
    expect(local.notes[0]).toContain("a request without Cloudflare's data (a local run) looks like, and such a visitor gets the default path.");
  });
});
