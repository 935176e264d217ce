import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CHANNEL_TIMEOUT_MS } from "../src/alerts/channels";
import { alertDeliverer } from "../src/alerts/deliver";
import { signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../src/alerts/webhook-signature";
import { alertChannels, notifications } from "../src/db/schema";
import type { Bindings } from "../src/env";
import type { AlertMessage } from "../src/schemas/alerts";
import { hangUntilAborted } from "./fakes/hang";
import { createSlackFake, type SlackFake } from "./fakes/slack-fake";
import { createTelegramFake, type TelegramFake } from "./fakes/telegram-fake";
import { bodyOf, client, db, idParam, makeAdmin, uniqueName } from "./helpers";

const SLACK_HOST = "https://slack.test";
const TELEGRAM_HOST = "https://telegram.test";
const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

afterEach(() => vi.restoreAllMocks());

const message = (over: Partial<AlertMessage> = {}): AlertMessage => ({
  title: "Spend without conversions",
  text: "Ad group 17 spent $42.10 in the last 6 hours with no conversion.",
  facts: [
    { label: "Spend", value: "$42.10" },
    { label: "Conversions", value: "0" },
  ],
  link: "/rules/alerts",
  severity: "warning",
  source: { kind: "builtin", alert: "spend-without-conversions" },
  ...over,
});

/** The fakes answer the Worker's Slack and Telegram hosts (vitest.config.ts); any other call is a test failure. */
function serveFakes(slack: SlackFake = createSlackFake(), telegram: TelegramFake = createTelegramFake(), other?: (r: Request) => Promise<Response>) {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const origin = new URL(request.url).origin;
    if (origin === SLACK_HOST) return slack.handle(request);
    if (origin === TELEGRAM_HOST) return telegram.handle(request);
    if (other) return other(request);
    throw new Error(`unexpected external call to ${request.url}`);
  });
  return { slack, telegram };
}

async function createChannel(admin: { cookie: string }, json: Parameters<ReturnType<typeof client>["alert-channels"]["$post"]>[0]["json"]) {
  return bodyOf(await client(admin)["alert-channels"].$post({ json }), 201);
}

const slackPath = () => `/services/T${uniqueName("t")}/B${uniqueName("b")}/${uniqueName("secret")}`;

const notificationsOf = (userId: string) => db().select().from(notifications).where(eq(notifications.userId, userId));

describe("notification channels", () => {
  it("saves a Slack channel without ever sending its webhook URL back, and delivers an alert to it as text and blocks", async () => {
    const admin = await makeAdmin();
    const path = slackPath();
    const { channel } = await createChannel(admin, { kind: "slack", name: "Night shift", webhookUrl: `https://hooks.slack.com${path}`, builtin: true });
    expect(channel.secretHint).toMatch(/\/••••$/);
    const listed = await bodyOf(await client(admin)["alert-channels"].$get(), 200);
    expect(JSON.stringify(listed)).not.toContain(path.split("/").pop()!);

    const { slack } = serveFakes();
    const deliveries = await alertDeliverer(env as Bindings, db())({ channelIds: [channel.id], admins: false }, message());
    expect(deliveries).toEqual([{ channelId: channel.id, kind: "slack", ok: true, status: 200, detail: "Slack: sent" }]);
    const [post] = slack.received();
    expect(post!.path).toBe(path);
    expect(post!.text).toContain("Spend without conversions");
    expect(JSON.stringify(post!.blocks)).toContain("$42.10");
  }, 20_000);

  it.each([404, 410])(
    "marks a Slack channel whose webhook answers %i broken, tells the admins once, and sends nothing more until a test message succeeds",
    async (status) => {
      const admin = await makeAdmin();
      const { channel } = await createChannel(admin, { kind: "slack", name: `Revoked ${status}`, webhookUrl: `https://hooks.slack.com${slackPath()}` });
      const { slack } = serveFakes();
      slack.failNext(status);
      const deliver = alertDeliverer(env as Bindings, db());
      const [first] = await deliver({ channelIds: [channel.id], admins: false }, message());
      expect(first).toMatchObject({ ok: false, status, detail: expect.stringContaining("channel marked broken") });
      const [row] = await db().select().from(alertChannels).where(eq(alertChannels.id, channel.id));
      expect(row!.brokenAt).not.toBeNull();
      expect(row!.brokenReason).toContain(`webhook revoked (${status}`);
      const told = await notificationsOf(admin.id);
      expect(told).toEqual([expect.objectContaining({ title: `Channel "Revoked ${status}" is broken`, link: "/rules/channels", readAt: null })]);

      const [second] = await deliver({ channelIds: [channel.id], admins: false }, message());
      expect(second).toMatchObject({ ok: false, status: null, detail: expect.stringContaining("the channel is broken") });
      expect(slack.received()).toEqual([]);
      expect(await notificationsOf(admin.id)).toHaveLength(1);

      const tested = await bodyOf(await client(admin)["alert-channels"][":id"].test.$post(idParam(channel.id)), 200);
      expect(tested.delivery).toMatchObject({ ok: true, status: 200 });
      expect(tested.channel.brokenAt).toBeNull();
      const [third] = await deliver({ channelIds: [channel.id], admins: false }, message());
      expect(third).toMatchObject({ ok: true });
    },
    20_000,
  );

  it("an edit un-breaks a channel too", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "slack", name: "Edited", webhookUrl: `https://hooks.slack.com${slackPath()}` });
    await db().update(alertChannels).set({ brokenAt: Date.now(), brokenReason: "Slack: webhook revoked (410)" }).where(eq(alertChannels.id, channel.id));
    const res = await client(admin)["alert-channels"][":id"].$put({
      ...idParam(channel.id),
      json: { kind: "slack", name: "Edited again", webhookUrl: "", builtin: false },
    });
    const { channel: after } = await bodyOf(res, 200);
    expect(after).toMatchObject({ name: "Edited again", brokenAt: null, secretHint: channel.secretHint });
  });

  it("sends a Telegram message to the chat with the bot's token; 403 (bot blocked) breaks the channel", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "telegram", name: "TG", botToken: TOKEN, chatId: "-1001234567890" });
    expect(channel.secretHint).toBe("123456789:••••");
    expect(JSON.stringify(channel)).not.toContain(TOKEN.split(":")[1]);
    const { telegram } = serveFakes();
    const deliver = alertDeliverer(env as Bindings, db());
    expect(await deliver({ channelIds: [channel.id], admins: false }, message())).toEqual([
      { channelId: channel.id, kind: "telegram", ok: true, status: 200, detail: "Telegram: sent" },
    ]);
    expect(telegram.received()).toEqual([expect.objectContaining({ token: TOKEN, chat_id: "-1001234567890", text: expect.stringContaining("Spend: $42.10") })]);

    telegram.failNext({ status: 403 });
    const [blocked] = await deliver({ channelIds: [channel.id], admins: false }, message());
    expect(blocked).toMatchObject({ ok: false, status: 403, detail: expect.stringContaining("bot was blocked by the user") });
    const [row] = await db().select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(row!.brokenReason).toContain("bot blocked");
    expect(await notificationsOf(admin.id)).toHaveLength(1);
  }, 20_000);

  it("waits Telegram's retry_after once on 429, then reports a second 429 instead of waiting again", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "telegram", name: "TG busy", botToken: TOKEN, chatId: "42" });
    const { telegram } = serveFakes();
    const waits: number[] = [];
    const deliver = alertDeliverer(env as Bindings, db(), { sleep: async (ms) => void waits.push(ms) });
    telegram.failNext({ status: 429, retryAfter: 3 });
    expect(await deliver({ channelIds: [channel.id], admins: false }, message())).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
    expect(waits).toEqual([3000]);

    telegram.failNext({ status: 429, retryAfter: 2 }, { status: 429, retryAfter: 2 });
    const [limited] = await deliver({ channelIds: [channel.id], admins: false }, message());
    expect(limited).toMatchObject({ ok: false, status: 429, detail: expect.stringContaining("rate limited") });
    expect(waits).toEqual([3000, 2000]);
    // A rate limit is not a broken channel.
    const [row] = await db().select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(row!.brokenAt).toBeNull();
    expect(telegram.received()).toHaveLength(1);
  }, 20_000);

  it("reports Telegram's 500 without breaking the channel, and never shows the token in a failure", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "telegram", name: "TG down", botToken: TOKEN, chatId: "42" });
    const { telegram } = serveFakes();
    telegram.failNext({ status: 500 });
    const [failed] = await alertDeliverer(env as Bindings, db())({ channelIds: [channel.id], admins: false }, message());
    expect(failed).toMatchObject({ ok: false, status: 500 });
    expect(failed!.detail).not.toContain(TOKEN);
  });

  it("signs a webhook with HMAC-SHA256 over `${timestamp}.${body}` as docs/alerts.md tells a receiver to check, and shows the secret once", async () => {
    const admin = await makeAdmin();
    const created = await createChannel(admin, { kind: "webhook", name: "Ops hook", url: "https://hooks.example.test/trackyard" });
    expect(created.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    const secret = created.signingSecret!;
    const listed = await bodyOf(await client(admin)["alert-channels"].$get(), 200);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const seen: Request[] = [];
    serveFakes(undefined, undefined, async (request) => {
      seen.push(request.clone());
      return new Response("thanks", { status: 202 });
    });
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    const [delivery] = await alertDeliverer(env as Bindings, db(), { now: () => at })({ channelIds: [created.channel.id], admins: false }, message());
    expect(delivery).toMatchObject({ ok: true, status: 202 });
    const request = seen[0]!;
    expect(request.url).toBe("https://hooks.example.test/trackyard");
    const body = await request.text();
    const timestamp = request.headers.get(TIMESTAMP_HEADER)!;
    expect(timestamp).toBe(String(at / 1000));
    expect(request.headers.get(SIGNATURE_HEADER)).toBe(await signWebhook(secret, Number(timestamp), body));
    // The receiver's own check, as docs/alerts.md writes it: Web Crypto's HMAC over the same bytes.
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`)));
    expect(request.headers.get(SIGNATURE_HEADER)).toBe(`sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`);
    expect(JSON.parse(body)).toMatchObject({ title: "Spend without conversions", sentAt: new Date(at).toISOString(), facts: message().facts });
  });

  it("makes a webhook a new signing secret on request, shown once, and keeps the old one otherwise", async () => {
    const admin = await makeAdmin();
    const created = await createChannel(admin, { kind: "webhook", name: "Rotated", url: "https://hooks.example.test/rotate" });
    const api = client(admin)["alert-channels"][":id"];
    const kept = await bodyOf(
      await api.$put({ ...idParam(created.channel.id), json: { kind: "webhook", name: "Rotated", url: "https://hooks.example.test/rotate" } }),
      200,
    );
    expect(kept.signingSecret).toBeNull();
    expect(kept.channel.secretHint).toBe(created.channel.secretHint);
    const rotated = await bodyOf(
      await api.$put({
        ...idParam(created.channel.id),
        json: { kind: "webhook", name: "Rotated", url: "https://hooks.example.test/rotate", newSigningSecret: true },
      }),
      200,
    );
    expect(rotated.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    const [row] = await db().select().from(alertChannels).where(eq(alertChannels.id, created.channel.id));
    expect(row!.secret).toBe(rotated.signingSecret);
  });

  it("does not follow a webhook's redirect and gives up on one that does not answer in 5 s", async () => {
    const admin = await makeAdmin();
    const moved = await createChannel(admin, { kind: "webhook", name: "Moved", url: "https://moved.example.test/" });
    const slow = await createChannel(admin, { kind: "webhook", name: "Slow", url: "https://slow.example.test/" });
    const redirects: string[] = [];
    serveFakes(undefined, undefined, async (request) => {
      redirects.push(request.redirect);
      if (request.url.startsWith("https://moved")) return new Response(null, { status: 302, headers: { location: "https://elsewhere.test/" } });
      return hangUntilAborted(request.signal);
    });
    const started = Date.now();
    const deliveries = await alertDeliverer(env as Bindings, db())({ channelIds: [moved.channel.id, slow.channel.id], admins: false }, message());
    expect(Date.now() - started).toBeLessThan(CHANNEL_TIMEOUT_MS + 3_000);
    expect(redirects).toEqual(["manual", "manual"]);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channelId: moved.channel.id, ok: false, status: 302, detail: expect.stringContaining("not followed") }),
        expect.objectContaining({ channelId: slow.channel.id, ok: false, status: null, detail: expect.stringContaining("no answer within 5 s") }),
      ]),
    );
  }, 20_000);

  it("refuses a webhook that is not https (plain http only on localhost), and bad Slack or Telegram values, with a 400", async () => {
    const admin = await makeAdmin();
    const api = client(admin)["alert-channels"];
    const cases = [
      [{ kind: "webhook", name: "x", url: "http://hooks.example.test/" }, "https://"],
      [{ kind: "webhook", name: "x", url: "ftp://hooks.example.test/" }, "https://"],
      [{ kind: "slack", name: "x", webhookUrl: "https://evil.test/services/T/B/C" }, "hooks.slack.com"],
      [{ kind: "telegram", name: "x", botToken: "nope", chatId: "42" }, "Bot token"],
      [{ kind: "telegram", name: "x", botToken: TOKEN, chatId: "chat" }, "Chat ID"],
      [{ kind: "email", name: "x", to: "stranger@elsewhere.test" }, "verified destinations"],
      [{ kind: "pager", name: "x" }, "Kind must be"],
    ] as const;
    for (const [json, says] of cases) {
      const res = await api.$post({ json: json as never });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(((await res.json()) as unknown as { error: string }).error).toContain(says);
    }
    const local = await api.$post({ json: { kind: "webhook", name: "Local receiver", url: "http://localhost:8787/hook" } });
    expect(local.status).toBe(201);
    expect(
      await db()
        .select()
        .from(alertChannels)
        .where(and(eq(alertChannels.name, "x"))),
    ).toEqual([]);
  });

  it("emails a verified destination through the send_email binding, from ALERT_EMAIL_FROM", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "email", name: "Ops mail", to: "OPS@trackyard.test" });
    expect(channel.settings).toEqual({ to: "ops@trackyard.test" });
    const sent: unknown[] = [];
    const ALERT_EMAIL = { send: async (m: unknown) => (sent.push(m), { messageId: "<fake@trackyard.test>" }) } as unknown as SendEmail;
    const [delivery] = await alertDeliverer({ ...(env as Bindings), ALERT_EMAIL }, db())({ channelIds: [channel.id], admins: false }, message());
    expect(delivery).toMatchObject({ ok: true, kind: "email", detail: "Email: sent to ops@trackyard.test" });
    expect(sent).toEqual([
      {
        from: "alerts@trackyard.test",
        to: "ops@trackyard.test",
        subject: "[Trackyard] Spend without conversions",
        text: expect.stringContaining("Conversions: 0"),
      },
    ]);
  });

  it("posts to every admin's in-app list when the target says so, and skips a deleted channel", async () => {
    const admin = await makeAdmin();
    const deliveries = await alertDeliverer(env as Bindings, db())({ channelIds: [999_999], admins: true }, message({ title: `Own ${uniqueName()}` }));
    expect(deliveries).toEqual([]);
    const mine = await notificationsOf(admin.id);
    expect(mine).toEqual([expect.objectContaining({ severity: "warning", link: "/rules/alerts", sourceKind: "builtin", readAt: null })]);
  });

  it("deletes a channel", async () => {
    const admin = await makeAdmin();
    const { channel } = await createChannel(admin, { kind: "telegram", name: "Gone", botToken: TOKEN, chatId: "7" });
    await bodyOf(await client(admin)["alert-channels"][":id"].$delete(idParam(channel.id)), 200);
    expect(await db().select().from(alertChannels).where(eq(alertChannels.id, channel.id))).toEqual([]);
    expect((await client(admin)["alert-channels"][":id"].$delete(idParam(channel.id))).status).toBe(404);
  });
});
