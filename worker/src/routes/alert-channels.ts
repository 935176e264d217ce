import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { sendToChannel, webhookUrlProblem, type ChannelTarget } from "../alerts/channels";
import { alertConfig, emailProblem } from "../alerts/config";
import { recordOutcome, sendDeps } from "../alerts/deliver";
import { newSigningSecret } from "../alerts/webhook-signature";
import { audit } from "../audit/record";
import { getChannel, listChannels, type AlertChannelRow } from "../db/queries/alert-channels";
import { alertChannels } from "../db/schema";
import type { AppEnv, Bindings } from "../env";
import { badRequest, notFound } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { createChannelSchema, updateChannelSchema } from "../schemas/alert-channels";
import type { AlertMessage } from "../schemas/alerts";
import { idParam } from "../schemas/common";

type ChannelInput =
  | { kind: "email"; to: string }
  | { kind: "slack"; webhookUrl?: string }
  | { kind: "telegram"; botToken?: string; chatId: string }
  | { kind: "webhook"; url: string };

/** Secrets never go back to the browser: it sees enough to recognise which one is saved. */
function secretHint(row: AlertChannelRow): string | null {
  if (!row.secret) return null;
  if (row.kind === "slack") return row.secret.replace(/\/[^/]+$/, "/••••");
  if (row.kind === "telegram") return `${row.secret.split(":")[0]}:••••`;
  return `••••${row.secret.slice(-4)}`;
}

const channelJson = (row: AlertChannelRow) => ({
  id: row.id,
  name: row.name,
  kind: row.kind,
  settings: row.settings,
  secretHint: secretHint(row),
  builtin: row.builtin,
  brokenAt: isoOrNull(row.brokenAt),
  brokenReason: row.brokenReason,
  lastSentAt: isoOrNull(row.lastSentAt),
  lastStatus: row.lastStatus,
  createdAt: iso(row.createdAt),
});

/** The settings and secret to store for `input`; a blank secret keeps `before`'s. Bad values are a 400. */
function stored(env: Bindings, input: ChannelInput, before?: AlertChannelRow): { settings: Record<string, string>; secret: string } {
  switch (input.kind) {
    case "email": {
      const config = alertConfig(env);
      const problem = emailProblem(config);
      if (problem) throw badRequest(problem);
      if (!config.emailTo.includes(input.to)) throw badRequest(`Address must be one of the verified destinations: ${config.emailTo.join(", ")}`);
      return { settings: { to: input.to }, secret: "" };
    }
    case "slack":
      return { settings: {}, secret: input.webhookUrl || before?.secret || "" };
    case "telegram":
      return { settings: { chatId: input.chatId }, secret: input.botToken || before?.secret || "" };
    case "webhook": {
      const problem = webhookUrlProblem(input.url);
      if (problem) throw badRequest(problem);
      return { settings: { url: input.url }, secret: before?.secret ?? "" };
    }
  }
}

const TEST_MESSAGE: AlertMessage = {
  title: "Test message from Trackyard",
  text: "This channel is set up: alerts will arrive here.",
  facts: [{ label: "Sent by", value: "the Channels screen" }],
  link: "/rules/channels",
  severity: "info",
  source: { kind: "builtin", alert: "test" },
};

export const alertChannelRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const config = alertConfig(c.env);
    return c.json(
      { channels: (await listChannels(c.get("db"))).map(channelJson), email: { problem: emailProblem(config), destinations: config.emailTo } },
      200,
    );
  })

  .post("/", validate("json", createChannelSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    const values = stored(c.env, input);
    // The webhook's signing secret is ours to make, and this answer is the one time it is shown.
    const signingSecret = input.kind === "webhook" ? newSigningSecret() : null;
    const [inserted] = await db.batch([
      db
        .insert(alertChannels)
        .values({ name: input.name, kind: input.kind, builtin: input.builtin, settings: values.settings, secret: signingSecret ?? values.secret })
        .returning(),
      audit(c, { action: "channel.create", kind: "channel", id: null, summary: `Name: ${input.name}; kind: ${input.kind}` }),
    ]);
    const row = inserted[0]!;
    return c.json({ channel: channelJson(row), signingSecret }, 201);
  })

  .put("/:id", validate("param", idParam), validate("json", updateChannelSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const before = await getChannel(db, id);
    if (!before) throw notFound("Channel not found");
    if (before.kind !== input.kind) throw badRequest("A channel's kind cannot change: create a new channel instead");
    const values = stored(c.env, input, before);
    const signingSecret = input.kind === "webhook" && input.newSigningSecret ? newSigningSecret() : null;
    // An edit is the admin's fix for a broken channel: it is tried again from the next alert on.
    const [updated] = await db.batch([
      db
        .update(alertChannels)
        .set({
          name: input.name,
          builtin: input.builtin,
          settings: values.settings,
          secret: signingSecret ?? values.secret,
          brokenAt: null,
          brokenReason: null,
          updatedAt: Date.now(),
        })
        .where(eq(alertChannels.id, id))
        .returning(),
      audit(c, { action: "channel.update", kind: "channel", id, summary: `Name: ${input.name}${signingSecret ? "; new signing secret" : ""}` }),
    ]);
    const row = updated[0];
    if (!row) throw notFound("Channel not found");
    return c.json({ channel: channelJson(row), signingSecret }, 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getChannel(db, id);
    if (!before) throw notFound("Channel not found");
    await db.batch([
      db.delete(alertChannels).where(eq(alertChannels.id, id)),
      audit(c, { action: "channel.delete", kind: "channel", id, summary: `Name: ${before.name}` }, { ifChanged: true }),
    ]);
    return c.json({ ok: true }, 200);
  })

  /** Sends a test message now, even to a broken channel: success is how a fixed channel is un-broken. */
  .post("/:id/test", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const channel = await getChannel(db, id);
    if (!channel) throw notFound("Channel not found");
    const deps = sendDeps(c.env);
    const target: ChannelTarget = { id: channel.id, kind: channel.kind, settings: channel.settings, secret: channel.secret };
    const result = await sendToChannel(target, TEST_MESSAGE, deps);
    const now = deps.now();
    if (result.ok) await db.update(alertChannels).set({ brokenAt: null, brokenReason: null }).where(eq(alertChannels.id, id));
    await recordOutcome(db, channel, result, now);
    const after = await getChannel(db, id);
    const { broken: _broken, ...delivery } = result;
    return c.json({ delivery, channel: after ? channelJson(after) : channelJson(channel) }, 200);
  });
