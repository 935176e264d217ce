import { BellRing, Pencil, Send, Trash2 } from "lucide-react";
import { useState } from "react";
import { RulesTabs } from "@/components/rules-tabs";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { useReportTime } from "@/lib/report-time";
import { CHANNEL_KIND_LABELS } from "../../../../worker/src/schemas/alert-channels";
import { useChannels, useCreateChannel, useDeleteChannel, useTestChannel, useUpdateChannel, type Channel } from "./api";
import { ChannelForm } from "./channel-form";

/** What the channel posts to, without its secret. */
function destination(c: Channel): string {
  if (c.kind === "email") return c.settings.to ?? "";
  if (c.kind === "telegram") return `Chat ${c.settings.chatId ?? ""} · bot ${c.secretHint ?? ""}`;
  if (c.kind === "webhook") return `${c.settings.url ?? ""} · secret ${c.secretHint ?? ""}`;
  return c.secretHint ?? "";
}

function ChannelRow({ channel, onEdit, onDelete }: { channel: Channel; onEdit(): void; onDelete(): void }) {
  const test = useTestChannel();
  const { dateTime, timeZone } = useReportTime();
  const sendTest = () =>
    test.mutate(channel.id, {
      onSuccess: ({ delivery }) =>
        delivery.ok
          ? toast({ title: "Test message sent", description: delivery.detail })
          : toast({ title: "Test message not delivered", description: delivery.detail, variant: "destructive" }),
      onError: (err) => toastError("Test message", err, "Could not send the test message"),
    });
  return (
    <li className="grid gap-2 rounded-lg border border-slate-200 p-4" data-testid="channel-row">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-semibold text-slate-900">{channel.name}</h3>
            <Badge variant="secondary">{CHANNEL_KIND_LABELS[channel.kind]}</Badge>
            {channel.brokenAt ? <Badge variant="destructive">Broken</Badge> : null}
            {channel.builtin ? <Badge variant="outline">Built-in alerts</Badge> : null}
          </div>
          <p className="mt-1 break-all font-mono text-xs text-slate-600">{destination(channel)}</p>
        </div>
        <div className="flex gap-1">
          <Button variant="secondary" size="sm" onClick={sendTest} disabled={test.isPending}>
            <Send /> {test.isPending ? "Sending..." : "Send test"}
          </Button>
          <Button variant="ghost" size="icon" aria-label={`Edit ${channel.name}`} onClick={onEdit}>
            <Pencil />
          </Button>
          <Button variant="ghost" size="icon" aria-label={`Delete ${channel.name}`} onClick={onDelete}>
            <Trash2 className="text-danger-600" />
          </Button>
        </div>
      </div>
      {channel.brokenAt ? (
        <p className="rounded-md bg-danger-50 p-2 text-sm text-danger-700" role="status">
          Broken since {dateTime(channel.brokenAt)} ({timeZone}): {channel.brokenReason}. Nothing is sent to it until it is edited or a test message succeeds.
        </p>
      ) : channel.lastSentAt ? (
        <p className="text-xs text-slate-500">
          Last sent {dateTime(channel.lastSentAt)} ({timeZone}): {channel.lastStatus}
        </p>
      ) : null}
    </li>
  );
}

export default function ChannelsScreen() {
  const channels = useChannels();
  const create = useCreateChannel();
  const update = useUpdateChannel();
  const remove = useDeleteChannel();
  const [formKey, setFormKey] = useState(0);
  const [editing, setEditing] = useState<Channel | null>(null);
  const [deleting, setDeleting] = useState<Channel | null>(null);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const rows = channels.data?.channels ?? [];
  const email = channels.data?.email;

  return (
    <>
      <PageHeader title="Rules" description="Where alerts go besides the notification list in the app" />
      <RulesTabs />
      <div className="grid grid-cols-1 gap-6">
        <Card>
          <CardHeader>
            <CardTitle>Add a channel</CardTitle>
            <CardDescription>Email, a Slack incoming webhook, a Telegram bot or a signed webhook.{email?.problem ? ` ${email.problem}.` : ""}</CardDescription>
          </CardHeader>
          <CardContent>
            <ChannelForm
              key={formKey}
              emailDestinations={email?.destinations ?? []}
              busy={create.isPending}
              submitLabel="Add channel"
              onSubmit={(input) =>
                create.mutate(input, {
                  onSuccess: ({ channel, signingSecret }) => {
                    toast({ title: "Channel added", description: `${channel.name} is ready: send it a test message.` });
                    if (signingSecret) setSecret({ name: channel.name, value: signingSecret });
                    setFormKey((k) => k + 1);
                  },
                  onError: (err) => toastError("Error", err, "Failed to add the channel"),
                })
              }
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Channels</CardTitle>
          </CardHeader>
          <CardContent>
            {channels.isPending ? (
              <div className="flex justify-center py-8">
                <Spinner />
              </div>
            ) : channels.isError ? (
              <p className="py-6 text-center text-sm text-danger-600">{channels.error.message}</p>
            ) : rows.length === 0 ? (
              <EmptyState icon={<BellRing />} title="No channels yet. Alerts reach the admins in the app only." />
            ) : (
              <ul className="grid gap-3">
                {rows.map((c) => (
                  <ChannelRow key={c.id} channel={c} onEdit={() => setEditing(c)} onDelete={() => setDeleting(c)} />
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </div>
      <Dialog open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} title={`Edit ${editing?.name ?? "channel"}`}>
        {editing ? (
          <ChannelForm
            channel={editing}
            emailDestinations={email?.destinations ?? []}
            busy={update.isPending}
            submitLabel="Save"
            onSubmit={(json) =>
              update.mutate(
                { id: editing.id, json },
                {
                  onSuccess: ({ channel, signingSecret }) => {
                    toast({ title: "Channel saved" });
                    setEditing(null);
                    if (signingSecret) setSecret({ name: channel.name, value: signingSecret });
                  },
                  onError: (err) => toastError("Error", err, "Failed to save the channel"),
                },
              )
            }
          />
        ) : null}
      </Dialog>
      <Dialog
        open={secret !== null}
        onOpenChange={(o) => !o && setSecret(null)}
        title="Copy the signing secret now"
        description={`The webhook ${secret?.name ?? ""} signs every call with this secret. It is not shown again (docs/alerts.md says how to check the signature).`}
        footer={<Button onClick={() => setSecret(null)}>Done</Button>}
      >
        <div className="flex items-center gap-2">
          <code className="min-w-0 flex-1 break-all rounded bg-slate-100 p-2 font-mono text-xs text-slate-800" data-testid="signing-secret">
            {secret?.value}
          </code>
          <CopyButton text={secret?.value ?? ""} label="Copy the signing secret" />
        </div>
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete channel?"
        description={`${deleting?.name ?? "This channel"} will receive no more alerts; rules that chose it skip it.`}
        confirmLabel="Delete channel"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast({ title: "Channel deleted" });
              setDeleting(null);
            },
            onError: (err) => toastError("Error", err, "Failed to delete the channel"),
          })
        }
      />
    </>
  );
}
