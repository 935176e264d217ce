/**
 * What rules and built-in alerts hand to the notification channels (issue: rules and alerts), shared
 * by the rules engine, the built-in alerts and the channels that deliver them. Zod-free types only:
 * the routes that create channels and rules keep their own zod schemas.
 */

/** Where an alert can go besides the app itself. */
export const CHANNEL_KINDS = ["email", "slack", "telegram", "webhook"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type AlertSeverity = "info" | "warning" | "critical";

/** One alert, written once and rendered by each channel in its own format. */
export interface AlertMessage {
  /** One short line: an email's subject, the first line of a chat message, the in-app title. */
  title: string;
  /** Plain text, a sentence or two: what happened and what was done. */
  text: string;
  /** The figures that triggered it, in order (label → value as shown, e.g. "Spend" → "$42.10"). */
  facts: { label: string; value: string }[];
  /** A path inside the app to open for more, e.g. "/rules/12". */
  link?: string;
  severity: AlertSeverity;
  /** What raised it: a rule's firing or a built-in alert, for the in-app list and the webhook body. */
  source: { kind: "rule"; ruleId: number; firingId: number } | { kind: "builtin"; alert: string };
}

/** Who receives an alert: channels by id, and the admins' in-app notification list. */
export interface AlertTarget {
  channelIds: number[];
  /** Post it to the in-app notification list of every admin. */
  admins: boolean;
}

/** What one channel answered: kept on the firing's history so a user sees why a message did not arrive. */
export interface ChannelDelivery {
  channelId: number;
  kind: ChannelKind;
  ok: boolean;
  /** The HTTP status the channel's service answered, null when it was never reached. */
  status: number | null;
  /** A short reason, e.g. "Slack: webhook revoked (410), channel marked broken". */
  detail: string;
}

/** Sends one alert to its target; never throws for a channel's failure (each is reported in the result). */
export type DeliverAlert = (target: AlertTarget, message: AlertMessage) => Promise<ChannelDelivery[]>;
