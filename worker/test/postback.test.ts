import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cakeAttributedDaily, cakeConversions, cakeStats } from "../src/db/schema";
import { dayIn } from "../src/lib/calendar-days";
import type { ApiErrorBody } from "../src/lib/errors";
import { runSync } from "../src/sync/run-sync";
import type { FakeCakeConversion } from "./fakes/cake-fake";
import { db } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv, createFakes, fakeHttp, unconfiguredEnv, type Fakes } from "./performance-helpers";

const HOUR = 3_600_000;
const today = () => dayIn(Date.now(), "UTC");

let n = 0;
/** A media buyer per test keeps each test's cake_stats rows apart (D1 is shared by the file). */
const buyer = () => `pb-mb${++n}`;

function postback(params: Record<string, string>, token: string | null = POSTBACK_TOKEN, bindings = configuredEnv()) {
  const q = new URLSearchParams(token === null ? params : { token, ...params });
  return callWith(bindings, `/postback/cake?${q}`);
}

const statsFor = (subid1: string) =>
  db()
    .select({
      date: cakeStats.date,
      subid2: cakeStats.subid2,
      clicks: cakeStats.clicks,
      conversions: cakeStats.conversions,
      revenueCents: cakeStats.revenueCents,
    })
    .from(cakeStats)
    .where(eq(cakeStats.subid1, subid1));

const pulled = (id: string, subid1: string, extra: Partial<FakeCakeConversion> = {}): FakeCakeConversion => ({
  conversion_id: id,
  conversion_date: `${today()}T08:00:00`,
  offer_id: 11,
  offer_name: "Sweeps",
  subid_1: subid1,
  subid_2: "clk-1",
  subid_3: "",
  price: "4.00",
  disposition: "Approved",
  ...extra,
});

const pullNow = (fakes: Fakes, now = Date.now()) =>
  runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now }, { source: "cake", trigger: "manual", days: 1 });

describe("the CAKE postback", () => {
  it("refuses a missing or wrong token, and answers 403 when no token is configured", async () => {
    const params = { leadid: "L1", oid: "11", price: "4.00" };
    const missing = await postback(params, null);
    expect(missing.status).toBe(403);
    expect(await missing.json()).toEqual({ error: "Wrong or missing postback token" });
    expect((await postback(params, "guess")).status).toBe(403);
    expect((await postback(params, `${POSTBACK_TOKEN}x`)).status).toBe(403);

    const off = await postback(params, POSTBACK_TOKEN, unconfiguredEnv());
    expect(off.status).toBe(403);
    expect(await off.json()).toEqual({ error: "The postback is not enabled on this server: POSTBACK_TOKEN is not set" });
    const weak = await postback(params, "short", configuredEnv({ POSTBACK_TOKEN: "short" }));
    expect(await weak.json()).toEqual({ error: "The postback is not enabled on this server: POSTBACK_TOKEN must be at least 16 characters" });
  });

  it("refuses bad values with 400 and a reason, before writing anything", async () => {
    const s1 = buyer();
    const cases: [Record<string, string>, string][] = [
      [{ oid: "11", price: "1", s1 }, "leadid is required (the network's #leadid#), so a conversion is counted once"],
      [{ leadid: "#leadid#", oid: "11", price: "1", s1 }, "leadid was sent as the unfilled macro; the postback URL must use #leadid#"],
      [{ leadid: "L", oid: "eleven", price: "1", s1 }, "oid must be the offer id, a whole number (#oid#)"],
      [{ leadid: "L", price: "1", s1 }, "oid is required (the network's #oid#)"],
      [{ leadid: "L", oid: "11", price: "-1.00", s1 }, "price must be an amount of at least 0 such as 12.50 (#price#)"],
      [{ leadid: "L", oid: "11", price: "1e3", s1 }, "price must be an amount of at least 0 such as 12.50 (#price#)"],
      [{ leadid: "L", oid: "11", price: "1", s1: "x".repeat(51) }, "s1 must be at most 50 characters"],
      [{ leadid: "L", oid: "11", price: "1", s1, s2: "y".repeat(101) }, "s2 must be at most 100 characters"],
    ];
    for (const [params, error] of cases) {
      const res = await postback(params);
      expect(res.status, error).toBe(400);
      expect((await res.json<ApiErrorBody>()).error).toBe(error);
    }
    const twice = await callWith(configuredEnv(), `/postback/cake?token=${POSTBACK_TOKEN}&leadid=A&leadid=B&oid=1&price=1`);
    expect(twice.status).toBe(400);
    expect(await statsFor(s1)).toEqual([]);
  });

  it("counts a conversion live, once, however often it is sent", async () => {
    const s1 = buyer();
    const params = { leadid: `L-${s1}`, oid: "11", price: "12.345600", s1, s2: "clk-1", s3: "#s3#", s4: "extra" };
    const res = await postback(params);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, result: "counted" });
    expect(await (await postback(params)).json()).toEqual({ ok: true, result: "duplicate" });
    expect(await statsFor(s1)).toEqual([{ date: today(), subid2: "clk-1", clicks: 0, conversions: 1, revenueCents: 1235 }]);
    const [ledger] = await db()
      .select()
      .from(cakeConversions)
      .where(eq(cakeConversions.conversionId, `L-${s1}`));
    expect(ledger).toMatchObject({ source: "postback", counted: true, subid3: "", revenueCents: 1235 });
    const attributed = await db().select().from(cakeAttributedDaily).where(eq(cakeAttributedDaily.subid1, s1));
    expect(attributed.map((r) => [r.campaignId, r.conversions, r.revenueCents])).toEqual([[0, 1, 1235]]);
  });

  it("counts a conversion once when the pull later reports the same id", async () => {
    const s1 = buyer();
    await postback({ leadid: `C-${s1}`, oid: "11", price: "4.00", s1, s2: "clk-1" });
    const fakes = createFakes();
    fakes.cake.state.conversions.push(pulled(`C-${s1}`, s1, { price: "4.250000" }));
    fakes.cake.state.clicks.push({ click_id: 1, click_date: `${today()}T07:59:00`, offer_id: 11, offer_name: "Sweeps", subid_1: s1, subid_2: "clk-1" });
    expect((await pullNow(fakes)).status).toBe("ok");
    // The network's own figure replaces the postback's, and the click arrives with it.
    expect(await statsFor(s1)).toEqual([{ date: today(), subid2: "clk-1", clicks: 1, conversions: 1, revenueCents: 425 }]);
    const [ledger] = await db()
      .select()
      .from(cakeConversions)
      .where(eq(cakeConversions.conversionId, `C-${s1}`));
    expect(ledger).toMatchObject({ source: "pull", counted: true });
    expect(ledger!.postbackAt).not.toBeNull();
    expect((await pullNow(fakes)).rowsUpserted).toBe(0);
  });

  it("does not count a postback for a conversion the pull already reported", async () => {
    const s1 = buyer();
    const fakes = createFakes();
    fakes.cake.state.conversions.push(pulled(`P-${s1}`, s1));
    await pullNow(fakes);
    const res = await postback({ leadid: `P-${s1}`, oid: "11", price: "4.00", s1, s2: "clk-1" });
    expect(await res.json()).toEqual({ ok: true, result: "already-reported" });
    expect(await statsFor(s1)).toEqual([{ date: today(), subid2: "clk-1", clicks: 0, conversions: 1, revenueCents: 400 }]);
  });

  it("retires a postback the pull reports under another id for the same click", async () => {
    const s1 = buyer();
    await postback({ leadid: `lead-${s1}`, oid: "11", price: "4.00", s1, s2: "clk-7" });
    const fakes = createFakes();
    fakes.cake.state.conversions.push(pulled(`conv-${s1}`, s1, { subid_2: "clk-7" }));
    await pullNow(fakes);
    expect(await statsFor(s1)).toEqual([{ date: today(), subid2: "clk-7", clicks: 0, conversions: 1, revenueCents: 400 }]);
    const [ledger] = await db()
      .select()
      .from(cakeConversions)
      .where(eq(cakeConversions.conversionId, `lead-${s1}`));
    expect(ledger).toMatchObject({ source: "postback", counted: false, retiredReason: "same-click" });
  });

  it("keeps an unreported postback live until a pull covering its day runs well after it", async () => {
    const s1 = buyer();
    await postback({ leadid: `late-${s1}`, oid: "11", price: "9.00", s1 });
    const fakes = createFakes();
    await pullNow(fakes, Date.now() + HOUR);
    expect(await statsFor(s1)).toEqual([{ date: today(), subid2: "", clicks: 0, conversions: 1, revenueCents: 900 }]);

    const later = Date.now() + 7 * HOUR;
    if (dayIn(later, "UTC") !== today()) {
      // Seven hours on is tomorrow: a one-day pull would not cover the postback's day.
      await runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: later }, { source: "cake", trigger: "manual", days: 2 });
    } else {
      await pullNow(fakes, later);
    }
    expect(await statsFor(s1)).toEqual([]);
    const [ledger] = await db()
      .select()
      .from(cakeConversions)
      .where(and(eq(cakeConversions.conversionId, `late-${s1}`), eq(cakeConversions.source, "postback")));
    expect(ledger).toMatchObject({ counted: false, retiredReason: "grace" });
  });
});
