/**
 * Webhooks out (docs/webhooks.md), through the real routes and the real queue: subscribing on
 * Account's routes, conversions arriving by the CAKE postback after a real click, and the queue's
 * consumer delivering to a fake subscriber endpoint (this isolate's fetch, routed by path).
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from "../src/alerts/webhook-signature";
import { auditLog, notifications, userSubid1Assignments, webhookSubscriptions } from "../src/db/schema";
import { WEBHOOK_DISABLE_AFTER_FAILURES } from "../src/schemas/webhooks";
import { createReceiverFake, type ReceiverFake } from "./fakes/webhook-receiver-fake";
import { bodyOf, client, db, idParam, makeAdmin, makeUser, ORIGIN, uniqueName, type TestUser } from "./helpers";
import { configuredEnv, createFakes, fakeHttp, POSTBACK_TOKEN, visitLink } from "./performance-helpers";
import { runSync } from "../src/sync/run-sync";
import { createMessageBatch } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { claimSends } from "../src/db/queries/tiktok-events";
import { consumeEvents, TIKTOK_EVENTS_QUEUE_NAME } from "../src/tiktok-events/consume";
import { createTikTokEventsFake } from "./fakes/tiktok-events-fake";
import { configure, storedClick, testEnv } from "./tiktok-events-helpers";
import { configureDomain } from "../src/domains/configure";
import { finishDomains } from "../src/jobs/finish-domains";
import { createDomainFakes, domainDeps, freshName, insertDomain } from "./domain-helpers";

const RECEIVER = "https://hooks.receiver.test";
const receivers = new Map<string, ReceiverFake>();

beforeEach(() => {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const fake = url.origin === RECEIVER ? receivers.get(url.pathname) : undefined;
    if (fake) return fake.handle(request);
    // A retry left over from an earlier test whose receiver is gone.
    if (url.origin === RECEIVER) return new Response("gone", { status: 410 });
    throw new Error(`unexpected external call to ${request.url}`);
  });
});
afterEach(() => vi.restoreAllMocks());

/** A receiver of this test's own, at its own path. */
function receiver() {
  const path = `/${uniqueName("hook")}`;
  const fake = createReceiverFake();
  receivers.set(path, fake);
  return { url: `${RECEIVER}${path}`, fake };
}

const subscribe = async (user: TestUser, url: string, events: ("conversion.created" | "conversion.sent_to_tiktok" | "rule.fired" | "domain.active")[]) =>
  bodyOf(await client(user).webhooks.$post({ json: { url, events } }), 201);

const deliveriesOf = async (user: TestUser, id: number) => bodyOf(await client(user).webhooks[":id"].deliveries.$get(idParam(id)), 200);

/** Waits for `check` to hold (queue deliveries take a moment); its last failure is the test's. */
const eventually = <T>(check: () => Promise<T> | T, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 50 });

/** A campaign of `mediaBuyer` and one visitor's real click through its tracking link: the click id CAKE's sub2 carries. */
async function clickOf(admin: TestUser, mediaBuyer: string) {
  const api = client(admin);
  await bodyOf(await api.settings.$post({ json: { key: "redirect_domain", value: "https://trk.webhooks.test" } }), 200);
  const lander = await bodyOf(await api.landers.$post({ json: { name: uniqueName("LP "), url: "https://lander.webhooks.test/lp" } }), 201);
  const campaign = await bodyOf(
    await api.campaigns.$post({ json: { name: uniqueName("Camp "), landerId: lander.id, offerId: null, bhToggle: true, mediaBuyer } }),
    201,
  );
  const ad = campaign
    .trackingUrl!.replace("__CAMPAIGN_ID__", "1799")
    .replace("__AID__", "1800")
    .replace("__CID__", "1801")
    .replace("__PLACEMENT__", "tiktok_feed");
  const res = await visitLink(ad, "198.51.100.77");
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!).searchParams.get("clickId")!;
}

const postback = (leadid: string, mediaBuyer: string, clickId: string, price = "12.50") =>
  visitLink(`${ORIGIN}/postback/cake?${new URLSearchParams({ token: POSTBACK_TOKEN, leadid, oid: "11", price, s1: mediaBuyer, s2: clickId })}`, "203.0.113.9");

describe("subscribing", () => {
  it("shows the signing secret once, keeps it only encrypted, and lists the subscription without it", async () => {
    const admin = await makeAdmin();
    const { url } = receiver();
    const created = await subscribe(admin, url, ["conversion.created", "rule.fired"]);
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.webhook).toMatchObject({ url, events: ["conversion.created", "rule.fired"], disabledAt: null, failures: 0 });
    const listed = await bodyOf(await client(admin).webhooks.$get(), 200);
    expect(listed.map((w) => w.id)).toContain(created.webhook.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const [row] = await db().select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, created.webhook.id));
    expect(row!.secret).not.toContain(created.secret);
    expect(row!.secret).toMatch(/^v1:/);
    const [entry] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "webhook.create"), eq(auditLog.entityId, String(created.webhook.id))));
    expect(entry!.summary).toContain(url);
  });

  it.each([
    ["http://hooks.example.com/x", "URL must be an https:// address"],
    ["https://localhost/hook", "localhost is this machine or a private network"],
    ["https://10.1.2.3/hook", "10.1.2.3 is this machine or a private network"],
    ["https://172.20.0.1/hook", "172.20.0.1 is this machine or a private network"],
    ["https://192.168.1.10/hook", "192.168.1.10 is this machine or a private network"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is this machine or a private network"],
    ["https://127.0.0.1:8443/hook", "127.0.0.1 is this machine or a private network"],
    ["https://[::1]/hook", "[::1] is this machine or a private network"],
    ["https://[fd12:3456::1]/hook", "[fd12:3456::1] is this machine or a private network"],
    ["https://[fe80::1]/hook", "[fe80::1] is this machine or a private network"],
    ["https://0.0.0.0/hook", "0.0.0.0 is this machine or a private network"],
    ["https://printer.local/hook", "printer.local is this machine or a private network"],
    ["https://api.corp.internal/hook", "api.corp.internal is this machine or a private network"],
    ["https://user:pw@hooks.example.com/x", "URL must not contain a user name or password"],
    ["not a url", "URL is not a valid address"],
  ])("refuses %s with a 400 saying why, storing nothing", async (url, message) => {
    const admin = await makeAdmin();
    const res = await client(admin).webhooks.$post({ json: { url, events: ["rule.fired"] } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(message);
    expect(await db().select().from(webhookSubscriptions).where(eq(webhookSubscriptions.userId, admin.id))).toEqual([]);
  });

  it("lets a member subscribe only to conversions, and only with a feature that reads them", async () => {
    const without = await makeUser("user", ["sparks"]);
    const refused = await client(without).webhooks.$post({ json: { url: receiver().url, events: ["conversion.created"] } });
    expect(refused.status).toBe(403);
    const reader = await makeUser("user", ["dashboard"]);
    const admins = await client(reader).webhooks.$post({ json: { url: receiver().url, events: ["conversion.created", "rule.fired"] } });
    expect(admins.status).toBe(403);
    expect(await admins.text()).toContain("rule.fired");
    await subscribe(reader, receiver().url, ["conversion.created", "conversion.sent_to_tiktok"]);
  });
});

describe("delivering", () => {
  it("delivers conversion.created for a postback after a real click, signed, once however often CAKE repeats it", async () => {
    const admin = await makeAdmin();
    const buyer = uniqueName("mb");
    const { url, fake } = receiver();
    const { secret, webhook } = await subscribe(admin, url, ["conversion.created"]);
    const clickId = await clickOf(admin, buyer);
    const lead = uniqueName("lead");
    expect((await postback(lead, buyer, clickId)).status).toBe(200);

    await eventually(() => expect(fake.received()).toHaveLength(1));
    const [got] = fake.received();
    expect(got!.event).toMatchObject({
      type: "conversion.created",
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      data: { conversion_id: lead, source: "postback", media_buyer: buyer, click_id: clickId, revenue: "12.50", offer_id: 11 },
    });
    const timestamp = Number(got!.headers.get(TIMESTAMP_HEADER));
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(300);
    expect(got!.headers.get(SIGNATURE_HEADER)).toBe(await signWebhook(secret, timestamp, got!.body));
    expect(got!.headers.get("X-Trackyard-Event")).toBe("conversion.created");

    // The same postback again, then a pull reporting it and one new conversion: only the new one is sent.
    expect((await postback(lead, buyer, clickId)).status).toBe(200);
    const fakes = createFakes();
    const pulled = (conversionId: string) => ({
      conversion_id: conversionId,
      conversion_date: `${new Date().toISOString().slice(0, 10)}T08:00:00`,
      offer_id: 11,
      offer_name: "Sweeps",
      subid_1: buyer,
      subid_2: clickId,
      subid_3: "",
      price: "12.50",
      disposition: "Approved",
    });
    const newLead = uniqueName("pulled");
    fakes.cake.state.conversions.push(pulled(lead), pulled(newLead));
    expect((await runPull(fakes)).status).toBe("ok");
    await eventually(() => expect(fake.received()).toHaveLength(2));
    expect(fake.received()[1]!.event.data).toMatchObject({ conversion_id: newLead, source: "pull" });
    const log = await deliveriesOf(admin, webhook.id);
    expect(log.map((d) => [d.eventType, d.ok, d.status, d.attempt])).toEqual([
      ["conversion.created", true, 200, 1],
      ["conversion.created", true, 200, 1],
    ]);
  }, 60_000);

  it("retries a 500 with the queue until the receiver takes it, logging each attempt", async () => {
    const admin = await makeAdmin();
    const buyer = uniqueName("mb");
    const { url, fake } = receiver();
    fake.answerNext(500, 503);
    const { webhook } = await subscribe(admin, url, ["conversion.created"]);
    await postback(uniqueName("lead"), buyer, await clickOf(admin, buyer));
    await eventually(async () => expect((await deliveriesOf(admin, webhook.id)).length).toBe(3));
    const log = await deliveriesOf(admin, webhook.id);
    expect(log.map((d) => [d.attempt, d.ok, d.status])).toEqual([
      [3, true, 200],
      [2, false, 503],
      [1, false, 500],
    ]);
    expect(log[2]!.error).toContain("Answered 500");
    expect(new Set(fake.received().map((r) => r.event.id)).size).toBe(1);
    const [sub] = await bodyOf(await client(admin).webhooks.$get(), 200);
    expect(sub).toMatchObject({ id: webhook.id, failures: 0, lastOk: true });
  }, 60_000);

  it("counts a redirect as a failure and does not follow it", async () => {
    const admin = await makeAdmin();
    const { url, fake } = receiver();
    fake.answerNext("redirect");
    const { webhook } = await subscribe(admin, url, ["rule.fired"]);
    expect((await client(admin).webhooks[":id"].test.$post(idParam(webhook.id))).status).toBe(202);
    await eventually(async () => expect((await deliveriesOf(admin, webhook.id)).length).toBe(2));
    const [second, first] = await deliveriesOf(admin, webhook.id);
    expect(first).toMatchObject({ eventType: "webhook.test", ok: false, status: 302, error: "Answered a redirect (302), which is not followed" });
    expect(second).toMatchObject({ ok: true, status: 200, attempt: 2 });
    // Only the subscriber was called: the redirect's target never was.
    expect(fake.received()).toHaveLength(2);
  }, 60_000);

  it("gives up on an attempt after 5 s without an answer, and logs it", async () => {
    const admin = await makeAdmin();
    const { url, fake } = receiver();
    fake.answerNext("hang");
    const { webhook } = await subscribe(admin, url, ["rule.fired"]);
    await client(admin).webhooks[":id"].test.$post(idParam(webhook.id));
    await eventually(async () => expect((await deliveriesOf(admin, webhook.id)).length).toBeGreaterThanOrEqual(1), 30_000);
    const log = await deliveriesOf(admin, webhook.id);
    const first = log.at(-1)!;
    expect(first).toMatchObject({ ok: false, status: null, error: "Not reached: no answer within 5 s" });
    expect(first.durationMs).toBeGreaterThanOrEqual(4_900);
    await eventually(async () => expect((await deliveriesOf(admin, webhook.id))[0]).toMatchObject({ ok: true, attempt: 2 }), 30_000);
  }, 60_000);

  it(`switches a subscription off after ${WEBHOOK_DISABLE_AFTER_FAILURES} failures in a row, tells its owner, and stops retrying until enabled`, async () => {
    const admin = await makeAdmin();
    const { url, fake } = receiver();
    fake.answerAlways(500);
    const { webhook } = await subscribe(admin, url, ["rule.fired"]);
    // Most of the run of failures already behind it: the last two come from this test's event.
    await db()
      .update(webhookSubscriptions)
      .set({ failures: WEBHOOK_DISABLE_AFTER_FAILURES - 2 })
      .where(eq(webhookSubscriptions.id, webhook.id));
    await client(admin).webhooks[":id"].test.$post(idParam(webhook.id));
    const told = () => db().select().from(notifications).where(eq(notifications.userId, admin.id));
    await eventually(async () => expect(await told()).toHaveLength(1));
    const [note] = await told();
    expect(note).toMatchObject({ title: `Webhook to hooks.receiver.test switched off`, link: "/account", severity: "warning" });
    expect(note!.text).toContain(`${WEBHOOK_DISABLE_AFTER_FAILURES} deliveries in a row failed`);
    // The attempt that switched it off asked for no retry: two attempts, no more.
    expect((await deliveriesOf(admin, webhook.id)).map((d) => d.attempt)).toEqual([2, 1]);
    const [sub] = await bodyOf(await client(admin).webhooks.$get(), 200);
    expect(sub!.disabledAt).not.toBeNull();
    expect(sub!.disabledReason).toContain("Answered 500");
    expect((await client(admin).webhooks[":id"].test.$post(idParam(webhook.id))).status).toBe(400);
    const [entry] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "webhook.disable"), eq(auditLog.entityId, String(webhook.id))));
    expect(entry).toBeDefined();

    // Enabled again: its count starts over and deliveries resume.
    fake.answerAlways(null);
    const enabled = await bodyOf(await client(admin).webhooks[":id"].enable.$post(idParam(webhook.id)), 200);
    expect(enabled).toMatchObject({ disabledAt: null, failures: 0 });
    await client(admin).webhooks[":id"].test.$post(idParam(webhook.id));
    await eventually(async () => expect((await deliveriesOf(admin, webhook.id))[0]).toMatchObject({ ok: true }));
  }, 60_000);

  it("sends a member only the conversions of their own media buyers; an admin gets every one", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard"]);
    const mine = uniqueName("mine");
    const theirs = uniqueName("theirs");
    await db().insert(userSubid1Assignments).values({ userId: member.id, subid1: mine });
    const forMember = receiver();
    const forAdmin = receiver();
    await subscribe(member, forMember.url, ["conversion.created"]);
    await subscribe(admin, forAdmin.url, ["conversion.created"]);

    const theirLead = uniqueName("lead");
    await postback(theirLead, theirs, await clickOf(admin, theirs));
    await eventually(() => expect(forAdmin.fake.received()).toHaveLength(1));
    const myLead = uniqueName("lead");
    await postback(myLead, mine, await clickOf(admin, mine));
    await eventually(() => expect(forAdmin.fake.received()).toHaveLength(2));
    await eventually(() => expect(forMember.fake.received()).toHaveLength(1));
    expect(forMember.fake.received()[0]!.event.data.conversion_id).toBe(myLead);
    expect(forAdmin.fake.received().map((r) => r.event.data.conversion_id)).toEqual([theirLead, myLead]);
  }, 60_000);

  it("delivers conversion.sent_to_tiktok once TikTok's Events API took the conversion", async () => {
    const admin = await makeAdmin();
    const { url, fake } = receiver();
    await subscribe(admin, url, ["conversion.sent_to_tiktok"]);
    await configure();
    const click = await storedClick();
    const lead = uniqueName("sent");
    const buyer = uniqueName("mb");
    await db().run(sql`
      insert into cake_conversions (conversion_id, source, date, offer_id, offer_name, subid1, subid2, revenue_cents, counted, pulled_at, webhook_at)
      values (${lead}, 'pull', '2026-11-25', 11, 'Sweeps', ${buyer}, ${click.clickId}, 4250, 1, ${Date.now()}, ${Date.now()})`);
    const [id] = await claimSends(
      db(),
      [{ conversionId: lead, event: "CompletePayment", subid2: click.clickId, valueCents: 4250, eventAt: Date.now() - 1000 }],
      {
        configured: true,
        currency: "USD",
        now: Date.now(),
      },
    );
    const tiktok = createTikTokEventsFake();
    const batch = createMessageBatch(TIKTOK_EVENTS_QUEUE_NAME, [{ id: "sent-1", timestamp: new Date(), attempts: 1, body: { ids: [id!] } }]);
    await consumeEvents(batch, testEnv(), { fetch: tiktok.fetch });
    expect(tiktok.received()).toHaveLength(1);

    await eventually(() => expect(fake.received()).toHaveLength(1));
    expect(fake.received()[0]!.event).toMatchObject({
      type: "conversion.sent_to_tiktok",
      data: { conversion_id: lead, tiktok_event: "CompletePayment", value: "42.50", currency: "USD", media_buyer: buyer, offer_id: 11 },
    });
  }, 60_000);

  it("delivers domain.active once, when the cron finds the zone active and attaches the tracking host", async () => {
    const admin = await makeAdmin();
    const { url, fake } = receiver();
    await subscribe(admin, url, ["domain.active"]);
    // A domain bought and configured at the (fake) registrar and Cloudflare, as the Domains screen does.
    const domainFakes = createDomainFakes();
    const name = freshName("hooked");
    domainFakes.namecheap.state.domains.set(name, { id: 78, nameservers: ["dns1.registrar-servers.com"], created: Date.now() });
    const row = await insertDomain({ domain: name, status: "purchased", purchaseOrderId: "80000002", purchaseAmountCents: 136 });
    expect((await configureDomain(domainDeps(domainFakes), row.id, "trk")).domain?.status).toBe("configuring_dns");
    expect(fake.received()).toHaveLength(0);

    // Cloudflare activates the zone; the cron attaches trk and the domain is active.
    await finishDomains({ ...domainDeps(domainFakes), now: Date.now });
    await eventually(() => expect(fake.received()).toHaveLength(1));
    expect(fake.received()[0]!.event).toMatchObject({ type: "domain.active", data: { domain_id: row.id, domain: name, host: `trk.${name}` } });
    // The cron again: the active domain is not looked at, so nothing more is sent.
    expect(await finishDomains({ ...domainDeps(domainFakes), now: Date.now })).toEqual({ purchasesChecked: 0, zonesChecked: 0 });
    expect(fake.received()).toHaveLength(1);
  }, 60_000);

  it("keeps another user's subscription and log from a member", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard"]);
    const { webhook } = await subscribe(admin, receiver().url, ["rule.fired"]);
    const res = await client(member).webhooks[":id"].deliveries.$get(idParam(webhook.id));
    expect(res.status).toBe(404);
    expect((await client(member).webhooks[":id"].$delete(idParam(webhook.id))).status).toBe(404);
    expect((await client(admin).webhooks[":id"].$delete(idParam(webhook.id))).status).toBe(200);
  });
});

/** A CAKE pull of today through the fakes, as the cron runs it. */
const runPull = (fakes: ReturnType<typeof createFakes>) =>
  runSync({ db: db(), env: configuredEnv(), http: fakeHttp(fakes), now: Date.now() }, { source: "cake", trigger: "manual", days: 1 });
