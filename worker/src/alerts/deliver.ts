/**
 * DeliverAlert (schemas/alerts.ts) built from the Worker's env and database: the admins' in-app
 * list, then every target channel at once, each cut off after CHANNEL_TIMEOUT_MS. A channel's
 * failure never throws; a channel the service says is gone is marked broken and the admins told
 * in the app, and a broken channel is skipped until it is edited or tested successfully.
 */
import { builtinChannelIds, channelsByIds, markBroken, recordDelivery } from "../db/queries/alert-channels";
import { notifyAdmins } from "../db/queries/notifications";
import type { Bindings, Db } from "../env";
import type { FetchFn } from "../integrations/http";
import type { AlertMessage, AlertTarget, ChannelDelivery, DeliverAlert } from "../schemas/alerts";
import { sendToChannel, type ChannelTarget, type SendDeps, type SendOutcome } from "./channels";
import { alertConfig } from "./config";

export interface DelivererDeps {
  fetch?: FetchFn;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function sendDeps(env: Bindings, deps: DelivererDeps = {}): SendDeps {
  return {
    fetch: deps.fetch ?? ((input, init) => fetch(input, init)),
    config: alertConfig(env),
    email: env.ALERT_EMAIL,
    now: deps.now ?? Date.now,
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}

/** Records one channel's answer; marks it broken (telling the admins once) when the service said so. */
export async function recordOutcome(db: Db, channel: { id: number; name: string }, result: SendOutcome, now: number) {
  await recordDelivery(db, channel.id, `${result.ok ? "ok" : "failed"}: ${result.detail}`, now);
  if (!result.broken) return;
  const marked = await markBroken(db, channel.id, result.detail, now);
  if (marked.length)
    await notifyAdmins(
      db,
      {
        title: `Channel "${channel.name}" is broken`,
        text: `${result.detail}. Nothing is sent to it until it is edited or a test message succeeds.`,
        link: "/rules/channels",
        severity: "warning",
        sourceKind: "channel",
      },
      now,
    );
}

export function alertDeliverer(env: Bindings, db: Db, deps: DelivererDeps = {}): DeliverAlert {
  const send = sendDeps(env, deps);
  return async (target: AlertTarget, message: AlertMessage): Promise<ChannelDelivery[]> => {
    const now = send.now();
    if (target.admins) {
      await notifyAdmins(
        db,
        { title: message.title, text: message.text, link: message.link ?? null, severity: message.severity, sourceKind: message.source.kind },
        now,
      );
    }
    // A channel deleted since the rule chose it is simply not there: nothing to deliver to.
    const channels = await channelsByIds(db, [...new Set(target.channelIds)]);
    return Promise.all(
      channels.map(async (channel): Promise<ChannelDelivery> => {
        if (channel.brokenAt !== null) {
          return {
            channelId: channel.id,
            kind: channel.kind,
            ok: false,
            status: null,
            detail: `Not sent: the channel is broken (${channel.brokenReason ?? "unknown reason"})`,
          };
        }
        const target: ChannelTarget = { id: channel.id, kind: channel.kind, settings: channel.settings, secret: channel.secret };
        const result = await sendToChannel(target, message, send);
        try {
          await recordOutcome(db, channel, result, send.now());
        } catch (err) {
          // The delivery happened; failing to note it must not turn into a thrown alert.
          console.error(`alert channel ${channel.id}: recording the delivery failed`, err);
        }
        const { broken: _broken, ...delivery } = result;
        return delivery;
      }),
    );
  };
}

/** Where the built-in alerts go: the admins in the app and the channels chosen for them. */
export const builtinTarget = async (db: Db): Promise<AlertTarget> => ({ admins: true, channelIds: await builtinChannelIds(db) });
