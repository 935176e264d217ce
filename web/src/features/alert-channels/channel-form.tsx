import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import {
  CHANNEL_KIND_LABELS,
  createChannelSchema,
  updateChannelSchema,
  type CreateChannelInput,
  type UpdateChannelInput,
} from "../../../../worker/src/schemas/alert-channels";
import { CHANNEL_KINDS, type ChannelKind } from "../../../../worker/src/schemas/alerts";
import type { Channel } from "./api";

/** Every field of every kind; the form sends the ones of the chosen kind. */
interface Values {
  kind: ChannelKind;
  name: string;
  builtin: boolean;
  to: string;
  webhookUrl: string;
  botToken: string;
  chatId: string;
  url: string;
  newSigningSecret: boolean;
}

const blank: Values = { kind: "slack", name: "", builtin: true, to: "", webhookUrl: "", botToken: "", chatId: "", url: "", newSigningSecret: false };

const fromChannel = (c: Channel): Values => ({
  ...blank,
  kind: c.kind,
  name: c.name,
  builtin: c.builtin,
  to: c.settings.to ?? "",
  chatId: c.settings.chatId ?? "",
  url: c.settings.url ?? "",
});

function inputOf(v: Values, editing: boolean): Record<string, unknown> {
  const common = { kind: v.kind, name: v.name, builtin: v.builtin };
  switch (v.kind) {
    case "email":
      return { ...common, to: v.to };
    case "slack":
      return { ...common, webhookUrl: v.webhookUrl };
    case "telegram":
      return { ...common, botToken: v.botToken, chatId: v.chatId };
    case "webhook":
      return editing ? { ...common, url: v.url, newSigningSecret: v.newSigningSecret } : { ...common, url: v.url };
  }
}

type ChannelFormProps = {
  emailDestinations: string[];
  busy: boolean;
  submitLabel: string;
} & (
  | { channel?: undefined; onSubmit(input: CreateChannelInput): void }
  /** The channel being edited. */
  | { channel: Channel; onSubmit(input: UpdateChannelInput): void }
);

/**
 * A channel's fields, checked with the API's own schema before sending. Editing, a secret left
 * blank keeps the saved one (the screen never has it to fill in).
 */
export function ChannelForm(props: ChannelFormProps) {
  const { channel, emailDestinations, busy, submitLabel } = props;
  const [values, setValues] = useState<Values>(channel ? fromChannel(channel) : blank);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (patch: Partial<Values>) => setValues((v) => ({ ...v, ...patch }));
  const editing = channel !== undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input = inputOf(values, editing);
    const parsed = (editing ? updateChannelSchema : createChannelSchema).safeParse(input);
    if (!parsed.success) {
      const next: Record<string, string> = {};
      for (const issue of parsed.error.issues) next[String(issue.path[0] ?? "name")] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    // Sent as typed (the server trims and lower-cases as it checks), once the same schema passed it.
    if (props.channel) props.onSubmit(input as UpdateChannelInput);
    else props.onSubmit(input as CreateChannelInput);
  };

  const secretHint = editing ? `Saved: ${channel.secretHint ?? "none"}. Leave blank to keep it.` : undefined;

  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Kind">
          <Select
            value={values.kind}
            onValueChange={(kind) => set({ kind: kind as ChannelKind })}
            options={CHANNEL_KINDS.map((k) => ({ value: k, label: CHANNEL_KIND_LABELS[k] }))}
            disabled={editing}
          />
        </Field>
        <Field label="Name" error={errors.name}>
          <Input value={values.name} onChange={(e) => set({ name: e.target.value })} placeholder="Media buying on Slack" maxLength={100} />
        </Field>
      </div>
      {values.kind === "email" && (
        <Field label="Send to" error={errors.to} hint={emailDestinations.length ? `One of the verified addresses: ${emailDestinations.join(", ")}` : undefined}>
          <Input type="email" value={values.to} onChange={(e) => set({ to: e.target.value })} placeholder={emailDestinations[0] ?? "ops@example.com"} />
        </Field>
      )}
      {values.kind === "slack" && (
        <Field
          label="Incoming webhook URL"
          error={errors.webhookUrl}
          hint={secretHint ?? "From Slack: Apps → Incoming Webhooks → Add New Webhook. Shown masked once saved."}
        >
          <Input
            value={values.webhookUrl}
            onChange={(e) => set({ webhookUrl: e.target.value })}
            placeholder="https://hooks.slack.com/services/T…/B…/…"
            autoComplete="off"
          />
        </Field>
      )}
      {values.kind === "telegram" && (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Bot token" error={errors.botToken} hint={secretHint ?? "From @BotFather. Shown masked once saved."}>
            <Input value={values.botToken} onChange={(e) => set({ botToken: e.target.value })} placeholder="123456789:AA…" autoComplete="off" />
          </Field>
          <Field label="Chat ID" error={errors.chatId} hint="A group's number (e.g. -1001234567890) or a channel's @name; add the bot to it first.">
            <Input value={values.chatId} onChange={(e) => set({ chatId: e.target.value })} />
          </Field>
        </div>
      )}
      {values.kind === "webhook" && (
        <Field label="URL" error={errors.url} hint="https:// only. Each call is signed: the signing secret is shown once, when the channel is created.">
          <Input value={values.url} onChange={(e) => set({ url: e.target.value })} placeholder="https://example.com/trackyard-alerts" />
        </Field>
      )}
      <Checkbox
        checked={values.builtin}
        onCheckedChange={(builtin) => set({ builtin })}
        label="Send built-in alerts here"
        description="Besides the admins' notification list in the app."
      />
      <div>
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : submitLabel}
        </Button>
      </div>
    </form>
  );
}
