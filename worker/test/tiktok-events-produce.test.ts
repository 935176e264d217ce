import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimSends } from "../src/db/queries/tiktok-events";
import { dayIn } from "../src/lib/calendar-days";
import { STALE_SEND_MS, sweepTikTokEventsJob } from "../src/jobs/tiktok-events";
import { runSync } from "../src/sync/run-sync";
import { consumeEvents, TIKTOK_EVENTS_QUEUE_NAME } from "../src/tiktok-events/consume";
import { eventFor, produceSends } from "../src/tiktok-events/produce";
import { createTikTokEventsFake, type TikTokEventsFake } from "./fakes/tiktok-events-fake";
import { call, db, makeAdmin, makeUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv, createFakes, fakeHttp } from "./performance-helpers";
import { configure, EVENTS_HOST, sendingEnv, serveFake, sendOf, sendsOf, storedClick, testEnv } from "./tiktok-events-helpers";

const DAY = 86_400_000;

let fake: TikTokEventsFake;
beforeEach(async () => {
  fake = serveFake(createTikTokEventsFake());
  await configure();
});
afterEach(() => vi.restoreAllMocks());

/** Until the queue (run by the test Worker itself) has settled the conversion's row. */
const settled = (conversionId: string) =>
  vi.waitUntil(async () => (await sendsOf(conversionId)).every((r) => r.status !== "queued" && r.status !== "sending"), { timeout: 10_000, interval: 50 });

let n = 0;
const leadId = () => `lead-${Date.now().toString(36)}-${++n}`;

function postback(leadid: string, clickId: string, price = "12.50", env = sendingEnv()) {
  const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid, oid: "11", price, s1: "mb", s2: clickId, s3: "" });
  return callWith(env, `/postback/cake?${q}`);
}

async function pull(conversions: { id: string; clickId: string; disposition?: string; at?: number }[], env = sendingEnv()) {
  const fakes = createFakes();
  const now = Date.now();
  for (const c of conversions) {
    fakes.cake.state.conversions.push({
      conversion_id: c.id,
      conversion_date: new Date(c.at ?? now - 60_000).toISOString().slice(0, 19),
      offer_id: 11,
      offer_name: "Sweeps",
      subid_1: "mb",
      subid_2: c.clickId,
      subid_3: "",
      price: "12.50",
      disposition: c.disposition ?? "Approved",
    });
  }
  const run = await runSync({ db: db(), env, http: fakeHttp(fakes), now }, { source: "cake", trigger: "manual", days: 2 });
  expect(run.status).toBe("ok");
}

describe("conversions handed on to TikTok", () => {
  it("sends a conversion once when the postback and the pull both report it, in either order", async () => {
    const first = await storedClick();
    const a = leadId();
    expect(await (await postback(a, first.clickId)).json()).toEqual({ ok: true, result: "counted" });
    await settled(a);
    await pull([{ id: a, clickId: first.clickId }]);
    await postback(a, first.clickId);
    await settled(a);

    const second = await storedClick();
    const b = leadId();
    await pull([{ id: b, clickId: second.clickId }]);
    await postback(b, second.clickId);
    await pull([{ id: b, clickId: second.clickId }]);
    await settled(b);

    for (const id of [a, b]) expect(await sendsOf(id)).toEqual([expect.objectContaining({ status: "sent", event: "CompletePayment", valueCents: 1250 })]);
    const received = fake.received().filter((e) => e.event_id === a || e.event_id === b);
    expect(received.map((e) => e.event_id).sort()).toEqual([a, b].sort());
    expect(fake.state.duplicates).toBe(0);
    // The offer (CAKE's #oid#) goes as what was bought, so Events Manager flags nothing.
    for (const e of received) expect(e.properties).toMatchObject({ content_type: "product", contents: [{ content_id: "11", price: 12.5, quantity: 1 }] });
    expect(fake.state.diagnostics.filter((d) => d.event_id === a || d.event_id === b)).toEqual([]);
  });

  it("records why a conversion is not sent: no ttclid, not TikTok, outside the 28-day window", async () => {
    const noTtclid = await storedClick({ ttclid: null });
    const notTikTok = await storedClick({ ttclid: null, tiktokCampaignId: null });
    const old = await storedClick({ clickedAt: Date.now() - 29 * DAY });
    const ids = { noTtclid: leadId(), notTikTok: leadId(), unknownClick: leadId(), old: leadId() };
    await postback(ids.noTtclid, noTtclid.clickId);
    await postback(ids.notTikTok, notTikTok.clickId);
    await postback(ids.unknownClick, "not-a-click-of-ours");
    await postback(ids.old, old.clickId);
    expect(await sendOf(ids.noTtclid)).toMatchObject({ status: "skipped", skipReason: "no_ttclid" });
    expect(await sendOf(ids.notTikTok)).toMatchObject({ status: "skipped", skipReason: "not_tiktok" });
    expect(await sendOf(ids.unknownClick)).toMatchObject({ status: "skipped", skipReason: "not_tiktok" });
    expect(await sendOf(ids.old)).toMatchObject({ status: "skipped", skipReason: "outside_window" });
    // A skipped row keeps the click's id, not the visitor's values (a row decided again reads them from the click).
    const visitor = { ttclid: null, ipAddress: null, userAgent: null, pageUrl: null };
    expect(await sendOf(ids.noTtclid)).toMatchObject({ clickId: noTtclid.clickId, ...visitor });
    expect(await sendOf(ids.old)).toMatchObject({ clickId: old.clickId, ...visitor });
  });

  it("maps CAKE's dispositions: approved is a purchase, pending only when the admin chose an event, rejected never", async () => {
    expect(eventFor("Approved", "")).toBe("CompletePayment");
    expect(eventFor("", "")).toBe("CompletePayment");
    expect(eventFor("Pending", "")).toBeNull();
    expect(eventFor("Pending", "SubmitForm")).toBe("SubmitForm");
    expect(eventFor("Rejected", "CompletePayment")).toBeNull();

    const click = await storedClick();
    const [pending, rejected] = [leadId(), leadId()];
    await pull([
      { id: pending, clickId: click.clickId, disposition: "Pending" },
      { id: rejected, clickId: click.clickId, disposition: "Rejected" },
    ]);
    expect(await sendsOf(pending)).toEqual([]);
    expect(await sendsOf(rejected)).toEqual([]);
    await configure({ pendingEvent: "SubmitForm" });
    await pull([{ id: pending, clickId: click.clickId, disposition: "Pending" }]);
    await settled(pending);
    await pull([{ id: pending, clickId: click.clickId, disposition: "Approved" }]);
    await settled(pending);
    expect((await sendsOf(pending)).map((r) => [r.event, r.status]).sort()).toEqual([
      ["CompletePayment", "sent"],
      ["SubmitForm", "sent"],
    ]);
    expect(await sendsOf(rejected)).toEqual([]);
  });

  it("skips conversions while the token is unset, and sends them once it is set and a pull sees them again", async () => {
    const click = await storedClick();
    const id = leadId();
    const noToken = configuredEnv({ TIKTOK_BASE_URL: EVENTS_HOST });
    expect((await postback(id, click.clickId, "9.99", noToken)).status).toBe(200);
    expect(await sendOf(id)).toMatchObject({ status: "skipped", skipReason: "not_configured" });
    await pull([{ id, clickId: click.clickId }], noToken);
    expect(await sendOf(id)).toMatchObject({ status: "skipped", skipReason: "not_configured" });
    await pull([{ id, clickId: click.clickId }]);
    await settled(id);
    expect(await sendOf(id)).toMatchObject({ status: "sent" });
  });

  it("skips what was queued when sending is switched off, and sends it once it is on again and the sweep or a pull sees it", async () => {
    // Queued while sending was on: their messages are still on the queue (kept back here).
    const [a, b] = [await storedClick(), await storedClick()];
    const [viaSweep, viaPull] = [leadId(), leadId()];
    const held = { ...sendingEnv(), TIKTOK_EVENTS_QUEUE: { send: async () => undefined, sendBatch: async () => undefined } };
    await postback(viaSweep, a.clickId, "5.00", held as unknown as ReturnType<typeof sendingEnv>);
    await postback(viaPull, b.clickId, "6.00", held as unknown as ReturnType<typeof sendingEnv>);
    const ids = [(await sendOf(viaSweep)).id, (await sendOf(viaPull)).id];
    expect([(await sendOf(viaSweep)).status, (await sendOf(viaPull)).status]).toEqual(["queued", "queued"]);

    // Switched off (the pixel cleared); then the queue delivers them.
    await configure({ pixelCode: "" });
    const batch = createMessageBatch(TIKTOK_EVENTS_QUEUE_NAME, [{ id: `off-${viaSweep}`, timestamp: new Date(), attempts: 1, body: { ids } }]);
    await consumeEvents(batch, testEnv());
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toHaveLength(1);
    for (const id of [viaSweep, viaPull]) {
      expect(await sendOf(id)).toMatchObject({ status: "skipped", skipReason: "not_configured", message: expect.stringContaining("no pixel code") });
    }
    expect(fake.received().filter((e) => e.event_id === viaSweep || e.event_id === viaPull)).toEqual([]);

    // Still off: the sweep leaves them skipped.
    await sweepTikTokEventsJob.run({ db: db(), env: testEnv(), now: Date.now() });
    expect(await sendOf(viaSweep)).toMatchObject({ status: "skipped", skipReason: "not_configured" });

    // On again: the cron's sweep sends one, a pull the other (the sweep is kept out of that one's way).
    await configure();
    await db().run(sql`update tiktok_event_sends set event_at = event_at - ${30 * DAY} where conversion_id = ${viaPull}`);
    await sweepTikTokEventsJob.run({ db: db(), env: testEnv(), now: Date.now() });
    await settled(viaSweep);
    expect(await sendOf(viaSweep)).toMatchObject({ status: "sent", valueCents: 500 });
    expect(await sendOf(viaPull)).toMatchObject({ status: "skipped", skipReason: "not_configured" });
    await pull([{ id: viaPull, clickId: b.clickId }]);
    await settled(viaPull);
    expect(await sendOf(viaPull)).toMatchObject({ status: "sent" });
    expect(
      fake
        .received()
        .filter((e) => e.event_id === viaSweep || e.event_id === viaPull)
        .map((e) => e.event_id),
    ).toEqual([viaSweep, viaPull]);
    expect(fake.state.duplicates).toBe(0);
  });

  it("counts the postback even when handing it on fails, and the cron's sweep hands it on later", async () => {
    const click = await storedClick();
    const id = leadId();
    const broken = {
      ...sendingEnv(),
      TIKTOK_EVENTS_QUEUE: { send: () => Promise.reject(new Error("queue down")), sendBatch: () => Promise.reject(new Error("queue down")) },
    };
    const res = await postback(id, click.clickId, "5.00", broken as unknown as ReturnType<typeof sendingEnv>);
    expect(await res.json()).toEqual({ ok: true, result: "counted" });
    // Claimed, but its message never left: the sweep finds it once it is stale.
    expect(await sendOf(id)).toMatchObject({ status: "queued" });
    await sweepTikTokEventsJob.run({ db: db(), env: testEnv(), now: Date.now() });
    expect(await sendOf(id)).toMatchObject({ status: "queued" });
    await sweepTikTokEventsJob.run({ db: db(), env: testEnv(), now: Date.now() + STALE_SEND_MS + 1000 });
    await settled(id);
    expect(await sendOf(id)).toMatchObject({ status: "sent" });

    // A postback whose claim never happened at all (the Worker was cut off) is claimed by the sweep.
    const lost = leadId();
    await db().run(sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, subid2, revenue_cents, counted, postback_at)
      values (${lost}, 'postback', ${dayIn(Date.now(), "UTC")}, 11, ${click.clickId}, 700, 1, ${Date.now()})`);
    await sweepTikTokEventsJob.run({ db: db(), env: testEnv(), now: Date.now() });
    await settled(lost);
    expect(await sendOf(lost)).toMatchObject({ status: "sent", valueCents: 700 });
  });

  it("claims a conversion twice at once only once", async () => {
    const click = await storedClick();
    const claim = { conversionId: leadId(), event: "CompletePayment", subid2: click.clickId, valueCents: 100, eventAt: Date.now() };
    const opts = { configured: true, currency: "USD", now: Date.now() };
    const results = await Promise.all([claimSends(db(), [claim], opts), claimSends(db(), [claim], opts), claimSends(db(), [claim], opts)]);
    expect(results.flat()).toHaveLength(1);
  });

  it("produces nothing for no conversions", async () => {
    expect(await produceSends(db(), testEnv(), [], Date.now())).toEqual({ claimed: 0 });
  });
});

describe("GET /api/tiktok-events, settings and resend", () => {
  it("shows the day's counts by state and reason, the failures with TikTok's message, and whether it is configured", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/tiktok-events", { cookie: admin.cookie });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      configured: boolean;
      tokenSet: boolean;
      settings: unknown;
      today: { sent: number; failed: number; waiting: number; skipped: Record<string, number> };
      failures: { message: string }[];
    };
    expect(body).toMatchObject({ configured: true, tokenSet: true, settings: { pixelCode: "CPIXEL0123456789ABCD", currency: "USD" } });
    const [sent, skipped] = await Promise.all([
      db().all<{ n: number }>(sql`select count(*) as n from tiktok_event_sends where status = 'sent'`),
      db().all<{ n: number }>(sql`select count(*) as n from tiktok_event_sends where skip_reason = 'no_ttclid'`),
    ]);
    expect(body.today.sent).toBe(sent[0]!.n);
    expect(body.today.skipped.no_ttclid).toBe(skipped[0]!.n);
    expect(Object.keys(body.today.skipped).sort()).toEqual(["no_ttclid", "not_configured", "not_tiktok", "outside_window"]);
  });

  it("records who set the test event code and when, keeps that while the code stays, and forgets it once cleared", async () => {
    const [first, second] = [await makeAdmin(), await makeAdmin()];
    const put = (json: unknown, cookie: string) => call("/api/tiktok-events/settings", { method: "PUT", json, cookie });
    const testEvents = async () => ((await (await call("/api/tiktok-events", { cookie: first.cookie })).json()) as { testEvents: unknown }).testEvents;
    const settings = { pixelCode: "CABC123", testEventCode: "TEST1", pendingEvent: "", currency: "USD" };

    const before = Date.now();
    expect((await put(settings, first.cookie)).status).toBe(200);
    const set = (await testEvents()) as { code: string; setBy: string; setAt: string };
    expect(set).toEqual({ code: "TEST1", setBy: first.username, setAt: expect.any(String) });
    expect(Date.parse(set.setAt)).toBeGreaterThanOrEqual(before - 1000);
    // Another admin saves other settings: the code stays, and so does who set it.
    await put({ ...settings, currency: "EUR" }, second.cookie);
    expect(await testEvents()).toEqual(set);
    await put({ ...settings, testEventCode: "TEST2" }, second.cookie);
    expect(await testEvents()).toMatchObject({ code: "TEST2", setBy: second.username });
    await put({ ...settings, testEventCode: "" }, first.cookie);
    expect(await testEvents()).toBeNull();
  });

  it("says where the missing token goes: the secret's name, that it is a secret, and what to put there", async () => {
    const admin = await makeAdmin();
    const res = await callWith(configuredEnv({ TIKTOK_BASE_URL: EVENTS_HOST }), "/api/tiktok-events", { cookie: admin.cookie });
    expect(await res.json()).toMatchObject({
      configured: false,
      problems: ["TIKTOK_EVENTS_ACCESS_TOKEN is not set"],
      fix: [
        {
          name: "TIKTOK_EVENTS_ACCESS_TOKEN",
          secret: true,
          problem: "TIKTOK_EVENTS_ACCESS_TOKEN is not set",
          what: expect.stringContaining("Events API access token"),
        },
      ],
    });
  });

  it("takes the settings whole and refuses bad ones with a reason; members may not", async () => {
    const admin = await makeAdmin();
    const put = (json: unknown, cookie = admin.cookie) => call("/api/tiktok-events/settings", { method: "PUT", json, cookie });
    const ok = await put({ pixelCode: " CABC123 ", testEventCode: "TEST1", pendingEvent: "SubmitForm", currency: "eur" });
    expect(await ok.json()).toEqual({ pixelCode: "CABC123", testEventCode: "TEST1", pendingEvent: "SubmitForm", currency: "EUR" });
    const bad = await put({ pixelCode: "C<script>", testEventCode: "", pendingEvent: "Refund", currency: "dollars" });
    expect(bad.status).toBe(400);
    const error = (await bad.json()) as { details: string[] };
    expect(error.details).toEqual([
      expect.stringMatching(/^pixelCode: The pixel code may hold only/),
      expect.stringMatching(/^pendingEvent: /),
      expect.stringMatching(/^currency: The currency must be a three-letter code/),
    ]);
    const member = await makeUser("user", ["dashboard"]);
    expect((await put({ pixelCode: "", testEventCode: "", pendingEvent: "", currency: "USD" }, member.cookie)).status).toBe(403);
    expect((await call("/api/tiktok-events/resend", { json: {}, cookie: member.cookie })).status).toBe(403);
  });
});
