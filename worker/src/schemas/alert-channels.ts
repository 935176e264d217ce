import { z } from "zod";
import { CHANNEL_KINDS } from "./alerts";

export const CHANNEL_NAME_MAX = 100;

export const CHANNEL_KIND_LABELS: Record<(typeof CHANNEL_KINDS)[number], string> = {
  email: "Email",
  slack: "Slack",
  telegram: "Telegram",
  webhook: "Webhook",
};

const name = z
  .string({ error: "Name is required" })
  .trim()
  .min(1, "Name is required")
  .max(CHANNEL_NAME_MAX, `Name must be at most ${CHANNEL_NAME_MAX} characters`);
const builtin = z.boolean().default(false);

/** A Slack incoming webhook: Slack's own host and /services/ path, so a typo never posts elsewhere. */
const slackWebhookUrl = z
  .string({ error: "Webhook URL is required" })
  .trim()
  .regex(
    /^https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+$/,
    "Webhook URL must look like https://hooks.slack.com/services/T…/B…/…",
  );

/** Telegram's bot token, as BotFather gives it: the bot's number, a colon, 30 or more characters. */
const botToken = z
  .string({ error: "Bot token is required" })
  .trim()
  .regex(/^\d{5,}:[A-Za-z0-9_-]{30,}$/, "Bot token must look like 123456789:AA… (from @BotFather)");

/** A private chat's or group's number (groups are negative), or a public channel's @name. */
const chatId = z
  .string({ error: "Chat ID is required" })
  .trim()
  .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, "Chat ID must be a number (e.g. -1001234567890) or a channel's @name");

/** Checked against the verified destinations (ALERT_EMAIL_TO) by the route, which knows them. */
const emailTo = z.email("Address must be an email address").trim().toLowerCase();

const webhookUrl = z.string({ error: "URL is required" }).trim().min(1, "URL is required").max(2048, "URL must be at most 2048 characters");

/**
 * A new channel. Secret fields (a Slack webhook URL, a bot token) are sent once here; the webhook's
 * signing secret is made by the server and shown once in the answer.
 */
export const createChannelSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("email"), name, builtin, to: emailTo }),
    z.object({ kind: z.literal("slack"), name, builtin, webhookUrl: slackWebhookUrl }),
    z.object({ kind: z.literal("telegram"), name, builtin, botToken, chatId }),
    z.object({ kind: z.literal("webhook"), name, builtin, url: webhookUrl }),
  ],
  { error: "Kind must be email, slack, telegram or webhook" },
);
export type CreateChannelInput = z.input<typeof createChannelSchema>;

/** A secret field of an edit: blank or absent keeps the saved secret. */
const keep = <T extends z.ZodType<string, string>>(schema: T) => z.literal("").or(schema).optional();

/** An edit: the kind stays; a secret left blank keeps the saved one. `newSigningSecret` makes the webhook a new one. */
export const updateChannelSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("email"), name, builtin, to: emailTo }),
    z.object({ kind: z.literal("slack"), name, builtin, webhookUrl: keep(slackWebhookUrl) }),
    z.object({ kind: z.literal("telegram"), name, builtin, botToken: keep(botToken), chatId }),
    z.object({ kind: z.literal("webhook"), name, builtin, url: webhookUrl, newSigningSecret: z.boolean().default(false) }),
  ],
  { error: "Kind must be email, slack, telegram or webhook" },
);
export type UpdateChannelInput = z.input<typeof updateChannelSchema>;
