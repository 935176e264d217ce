import { Plus, Webhook } from "lucide-react";
import { useState } from "react";
import { Instant, ZoneOfColumn } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { can, isAdmin, useUser, type CurrentUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import {
  createWebhookSchema,
  type CreateWebhookInput,
  WEBHOOK_DISABLE_AFTER_FAILURES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS,
  WEBHOOK_LOG_SHOWN,
  type WebhookEventType,
} from "../../../../../worker/src/schemas/webhooks";
import { useAllWebhooks, useCreateWebhook, useWebhookAction, useWebhookDeliveries, useWebhooks } from "../api";
import { ShownOnceDialog } from "./shown-once-dialog";

type Subscription = NonNullable<ReturnType<typeof useWebhooks>["data"]>[number];

/** The events this user may subscribe to: the same rule the server checks (routes/webhooks.ts). */
const subscribable = (user: CurrentUser | null | undefined): WebhookEventType[] =>
  WEBHOOK_EVENT_TYPES.filter((e) => {
    const who = WEBHOOK_EVENTS[e].who;
    return who === "admin" ? isAdmin(user) : who.feature.some((f) => can(user, f));
  });

function CreateWebhookDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange(open: boolean): void; onCreated(secret: string): void }) {
  const { data: user } = useUser();
  const create = useCreateWebhook();
  const form = useSchemaForm(createWebhookSchema, BLANK);
  const { errors } = form.formState;
  const events = form.watch("events");
  const offered = subscribable(user);

  const toggle = (event: WebhookEventType, on: boolean) =>
    form.setValue("events", on ? [...events, event] : events.filter((x) => x !== event), { shouldValidate: form.formState.isSubmitted });

  const onValid = (input: CreateWebhookInput) =>
    create.mutate(input, {
      onSuccess: ({ secret }) => {
        form.reset(BLANK);
        onCreated(secret);
      },
      onError: (err) => showRefusal(form, err, ["url", "events"], "The webhook was not created", "Could not create the webhook"),
    });
  const submit = form.handleSubmit(onValid);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Add a webhook"
      description="Trackyard POSTs each event as signed JSON to this https:// address."
      footer={
        <>
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={create.isPending}>
            {create.isPending ? "Adding..." : "Add Webhook"}
          </Button>
        </>
      }
    >
      <form className="grid gap-4" noValidate onSubmit={submit}>
        <Field label="URL" error={errors.url?.message} hint="A public https:// address: never this machine or a private network.">
          <Input {...form.register("url")} inputMode="url" placeholder="https://example.com/trackyard-hook" />
        </Field>
        <fieldset className="grid gap-2.5">
          <legend className="mb-1 text-sm font-medium text-slate-800">Events</legend>
          {offered.length === 0 ? <p className="text-sm text-slate-500">Your role and features can read none of the events.</p> : null}
          {offered.map((e) => (
            <Checkbox
              key={e}
              checked={events.includes(e)}
              onCheckedChange={(on) => toggle(e, on)}
              label={<code className="font-mono text-xs">{e}</code>}
              description={WEBHOOK_EVENTS[e].label}
            />
          ))}
          {errors.events?.message ? (
            <p role="alert" className="text-xs text-danger-600">
              {errors.events.message}
            </p>
          ) : null}
        </fieldset>
      </form>
    </Dialog>
  );
}
const BLANK: CreateWebhookInput = { url: "", events: [] };

/** A new subscription's signing secret, shown this once with a copy button. */
const SecretDialog = ({ secret, onClose }: { secret: string | null; onClose(): void }) => (
  <ShownOnceDialog
    value={secret}
    onClose={onClose}
    title="Copy the signing secret"
    description="It is shown only this once. Check each delivery's X-Trackyard-Signature with it (docs/webhooks.md)."
    testId="webhook-secret"
    copyLabel="Copy the secret"
    copiedTitle="Signing secret copied"
  />
);

/** The latest deliveries of one subscription, in the report time zone. */
function DeliveryLog({ webhook, onClose }: { webhook: Subscription | null; onClose(): void }) {
  const log = useWebhookDeliveries(webhook?.id ?? null);
  return (
    <Dialog
      open={webhook !== null}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title="Delivery log"
      description={
        <>
          The latest {WEBHOOK_LOG_SHOWN} attempts to <span className="break-all">{webhook?.url}</span>, newest first.
        </>
      }
      className="max-w-3xl"
    >
      {log.isPending ? (
        <Spinner />
      ) : log.isError ? (
        <p className="text-sm text-danger-600">{log.error.message}</p>
      ) : log.data.length === 0 ? (
        <p className="text-sm text-slate-500">Nothing delivered yet.</p>
      ) : (
        <Table phone="cards" stickyFirstColumn={false} scrollLabel="Delivery log">
          <TableHeader>
            <TableRow>
              <TableHead>
                Time
                <ZoneOfColumn />
              </TableHead>
              <TableHead>Event</TableHead>
              <TableHead>Status</TableHead>
              <TableHead numeric>ms</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {log.data.map((d) => (
              <TableRow key={d.id}>
                <TableCell cardRole="title" className="tabular whitespace-nowrap">
                  <Instant at={d.at} />
                </TableCell>
                <TableCell label="Event">
                  <code className="font-mono text-xs">{d.eventType}</code>
                  {d.attempt > 1 ? <span className="ml-1 text-xs text-slate-500">(attempt {d.attempt})</span> : null}
                </TableCell>
                <TableCell label="Status">
                  <span className="grid gap-0.5">
                    <Badge variant={d.ok ? "success" : "warning"} className="w-fit">
                      {d.status ?? "No answer"}
                    </Badge>
                    {d.error ? <span className="text-xs text-slate-500 [overflow-wrap:anywhere]">{d.error}</span> : null}
                  </span>
                </TableCell>
                <TableCell label="ms" numeric>
                  {d.durationMs}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Dialog>
  );
}

interface ListProps {
  webhooks: Subscription[];
  label: string;
  showOwner: boolean;
  onLog(w: Subscription): void;
  onDelete(w: Subscription): void;
}

function WebhookList({ webhooks, label, showOwner, onLog, onDelete }: ListProps) {
  const act = useWebhookAction();
  if (webhooks.length === 0) return <p className="text-sm text-slate-500">No webhooks yet.</p>;
  const run = (w: Subscription, action: "test" | "enable") =>
    act.mutate(
      { id: w.id, action },
      {
        onSuccess: () => toast({ title: action === "test" ? "Test event queued: it shows in the delivery log" : "Webhook enabled again" }),
        onError: (err) => toastError(action === "test" ? "The test event was not sent" : "The webhook was not enabled", err, "Please try again"),
      },
    );
  return (
    <ul aria-label={label} className="divide-y divide-slate-100 rounded-md ring-1 ring-inset ring-slate-200">
      {webhooks.map((w) => (
        <li key={w.id} className="grid gap-2 px-3 py-2.5 text-sm">
          <div className="grid min-w-0 gap-1">
            <span className="flex flex-wrap items-center gap-2">
              <span className="min-w-0 break-all font-medium text-slate-800">{w.url}</span>
              {showOwner ? <Badge variant="outline">{w.owner.username}</Badge> : null}
              {w.disabledAt ? <Badge variant="warning">Switched off</Badge> : <Badge variant="success">Active</Badge>}
            </span>
            <span className="flex flex-wrap gap-1">
              {w.events.map((e) => (
                <Badge key={e} variant="secondary" className="font-mono">
                  {e}
                </Badge>
              ))}
            </span>
            {w.disabledAt ? (
              <span className="text-xs text-amber-800">
                {w.disabledReason} (<Instant at={w.disabledAt} />)
              </span>
            ) : null}
            <span className="tabular text-xs text-slate-500">
              {w.lastAttemptAt ? (
                <>
                  Last delivery <Instant at={w.lastAttemptAt} show="relative" />: {w.lastOk ? "delivered" : "failed"}
                  {w.failures > 0 ? ` · ${w.failures} failed in a row` : ""}
                </>
              ) : (
                "Nothing delivered yet"
              )}
            </span>
          </div>
          <div className="flex flex-wrap gap-2">
            {w.disabledAt ? (
              <Button size="sm" onClick={() => run(w, "enable")} disabled={act.isPending}>
                Enable
              </Button>
            ) : (
              <Button variant="secondary" size="sm" onClick={() => run(w, "test")} disabled={act.isPending}>
                Send Test Event
              </Button>
            )}
            <Button variant="secondary" size="sm" onClick={() => onLog(w)}>
              Delivery Log
            </Button>
            <Button variant="secondary" size="sm" onClick={() => onDelete(w)} aria-label={`Delete webhook ${w.url}`}>
              Delete
            </Button>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * The user's webhooks (docs/webhooks.md): events POSTed, signed, to their own https:// URLs; the
 * secret shown once; a test event; each one's delivery log; switched off after a run of failures
 * and enabled again here. Admins also see and manage everyone's.
 */
export function WebhooksCard() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const own = useWebhooks();
  const all = useAllWebhooks(admin);
  const act = useWebhookAction();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [logOf, setLogOf] = useState<Subscription | null>(null);
  const [deleting, setDeleting] = useState<Subscription | null>(null);
  const others = all.data?.filter((w) => w.owner.id !== user?.id) ?? [];

  const confirmDelete = () => {
    if (!deleting) return;
    act.mutate(
      { id: deleting.id, action: "delete" },
      {
        onSuccess: () => {
          toast({ title: "Webhook deleted" });
          setDeleting(null);
        },
        onError: (err) => toastError("The webhook was not deleted", err, "Could not delete the webhook"),
      },
    );
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Webhook className="size-4 text-brand-700" aria-hidden="true" />
          Webhooks
        </CardTitle>
        <CardDescription>
          Events sent to your own https:// URLs as they happen, signed with a secret of their own. A failed delivery is retried for about two hours; after{" "}
          {WEBHOOK_DISABLE_AFTER_FAILURES} failures in a row a webhook is switched off and you are told.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {own.isPending ? (
          <Spinner />
        ) : own.isError ? (
          <p className="text-sm text-danger-600">{own.error.message}</p>
        ) : (
          <WebhookList webhooks={own.data} label="Your webhooks" showOwner={false} onLog={setLogOf} onDelete={setDeleting} />
        )}
        <div>
          <Button variant="secondary" onClick={() => setCreating(true)}>
            <Plus />
            Add Webhook
          </Button>
        </div>
        {admin ? (
          <div className="grid gap-2 border-t border-slate-100 pt-4">
            <h3 className="text-sm font-semibold text-slate-800">Other users&apos; webhooks</h3>
            {all.isPending ? (
              <Spinner />
            ) : all.isError ? (
              <p className="text-sm text-danger-600">{all.error.message}</p>
            ) : (
              <WebhookList webhooks={others} label="Other users' webhooks" showOwner onLog={setLogOf} onDelete={setDeleting} />
            )}
          </div>
        ) : null}
      </CardContent>
      <CreateWebhookDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(s) => {
          setCreating(false);
          setSecret(s);
        }}
      />
      <SecretDialog secret={secret} onClose={() => setSecret(null)} />
      <DeliveryLog webhook={logOf} onClose={() => setLogOf(null)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => (open ? undefined : setDeleting(null))}
        title="Delete this webhook?"
        description={`Nothing more is sent to ${deleting?.url ?? ""}, and its delivery log goes with it.`}
        confirmLabel="Delete"
        onConfirm={confirmDelete}
        busy={act.isPending}
      />
    </Card>
  );
}
