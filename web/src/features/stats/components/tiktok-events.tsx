import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, RotateCcw, Settings2, XCircle } from "lucide-react";
import { useState } from "react";
import { Instant } from "@/components/instant";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import {
  PENDING_EVENT_CHOICES,
  SKIP_REASON_LABELS,
  tiktokEventSettingsSchema,
  type TikTokEventSettings,
} from "../../../../../worker/src/schemas/tiktok-events";
import { tiktokEventsQuery, useResendFailed, useSaveEventSettings, type TikTokEventsStatus } from "../api";

const count = (n: number) => n.toLocaleString("en-US");

function SettingsDialog({ open, onOpenChange, current }: { open: boolean; onOpenChange(open: boolean): void; current: TikTokEventSettings }) {
  // The four fields only: the schema is strict, as the API is.
  const { pixelCode, testEventCode, pendingEvent, currency } = current;
  const form = useSchemaForm(tiktokEventSettingsSchema, { pixelCode, testEventCode, pendingEvent, currency });
  const { errors } = form.formState;
  const save = useSaveEventSettings();
  const submit = (settings: TikTokEventSettings) =>
    save.mutate(settings, {
      onSuccess: () => {
        toast({ title: "Settings updated", description: settings.pixelCode ? "Conversions go to TikTok from now on." : "Sending to TikTok is off." });
        onOpenChange(false);
      },
      onError: (err) => {
        showRefusal(form, err, ["pixelCode", "testEventCode", "pendingEvent", "currency"], "Error", "Failed to update settings");
      },
    });
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="TikTok Events API"
      description="Approved CAKE conversions whose click came from TikTok are sent to this pixel. The access token is the TIKTOK_EVENTS_ACCESS_TOKEN secret."
    >
      <form className="grid gap-4" onSubmit={form.handleSubmit(submit)} noValidate>
        <Field label="Pixel code" error={errors.pixelCode?.message} hint="Events Manager → your pixel's ID (event_source_id). Empty turns sending off.">
          <Input {...form.register("pixelCode")} placeholder="C4A1B2C3D4E5F6G7H8I9" autoComplete="off" />
        </Field>
        <Field label="Test event code" error={errors.testEventCode?.message} hint="Optional: events then show under Test Events instead of counting.">
          <Input {...form.register("testEventCode")} placeholder="TEST12345" autoComplete="off" />
        </Field>
        <Field label="Pending conversions" error={errors.pendingEvent?.message}>
          <Select
            value={form.watch("pendingEvent") || "none"}
            onValueChange={(v) => form.setValue("pendingEvent", PENDING_EVENT_CHOICES.find((e) => e === v) ?? "")}
            options={PENDING_EVENT_CHOICES.map((e) => (e ? { value: e, label: `Send as ${e}` } : { value: "none", label: "Not sent (wait until approved)" }))}
          />
        </Field>
        <Field label="Currency" error={errors.currency?.message} hint="Of the payout sent as the purchase's value.">
          <Input {...form.register("currency")} maxLength={3} className="w-24 uppercase" />
        </Field>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving..." : "Save"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function Counts({ status }: { status: TikTokEventsStatus }) {
  const t = status.today;
  const skipped = Object.entries(t.skipped).filter(([, n]) => n > 0);
  const skippedTotal = skipped.reduce((s, [, n]) => s + n, 0);
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
      {[
        ["Sent", t.sent, "text-success-600"],
        ["Failed", t.failed, t.failed ? "text-danger-700" : "text-slate-900"],
        ["Waiting", t.waiting, "text-slate-900"],
        ["Skipped", skippedTotal, "text-slate-900"],
      ].map(([label, n, tone]) => (
        <div key={label as string} className="flex items-baseline justify-between gap-2 sm:block">
          <dt className="text-xs text-slate-500">{label}</dt>
          <dd className={cn("tabular text-right font-semibold sm:text-left", tone as string)}>{count(n as number)}</dd>
        </div>
      ))}
      {skipped.length ? (
        <p className="col-span-full text-xs text-slate-500">
          Skipped: {skipped.map(([r, n]) => `${count(n)} ${SKIP_REASON_LABELS[r as keyof typeof SKIP_REASON_LABELS]}`).join(", ")}
        </p>
      ) : null}
    </dl>
  );
}

/** Whether today has anything to show; a new install's row of zeros would only push the figures down. */
const hasAnyToday = ({ today }: TikTokEventsStatus) => today.sent + today.failed + today.waiting + Object.values(today.skipped).reduce((s, n) => s + n, 0) > 0;

/** Admins: whether conversions reach TikTok, what happened to today's, and Resend failed. */
export function TikTokEvents() {
  const status = useQuery(tiktokEventsQuery);
  const resend = useResendFailed();
  const [editing, setEditing] = useState(false);
  const data = status.data;
  const Icon = !data?.configured ? XCircle : data.failedTotal ? AlertTriangle : CheckCircle2;

  const resendFailed = () =>
    resend.mutate(undefined, {
      onSuccess: ({ requeued }) => toast({ title: "Resending", description: `${count(requeued)} failed conversions are on their way to TikTok again.` }),
      onError: (err) => toastError("Resend failed", err, "Could not resend the failed conversions"),
    });

  return (
    <Card className="grid gap-3 p-4" aria-label="Conversions sent to TikTok" role="region">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 items-start gap-2">
          <Icon
            className={cn("mt-0.5 size-4 shrink-0", !data?.configured ? "text-slate-400" : data.failedTotal ? "text-amber-600" : "text-success-600")}
            aria-hidden="true"
          />
          <div className="min-w-0 text-sm">
            <p>
              <span className="font-medium text-slate-900">Conversions to TikTok</span>{" "}
              {status.isPending ? (
                <span className="text-slate-500">loading...</span>
              ) : status.isError ? (
                <span className="text-danger-700">{status.error.message || "Could not load their state"}</span>
              ) : data!.configured ? (
                <span className="text-slate-600">
                  sending to pixel <span className="font-mono">{data!.settings.pixelCode}</span>
                  {data!.settings.testEventCode ? ` (test code ${data!.settings.testEventCode})` : ""}
                </span>
              ) : (
                <span className="text-slate-500">not configured</span>
              )}
            </p>
            {data && !data.configured ? <p className="text-xs text-slate-500">{data.problems.join("; ")}</p> : null}
          </div>
        </div>
        <div className="flex shrink-0 gap-2">
          <Button variant="secondary" size="sm" onClick={resendFailed} disabled={!data?.failedTotal || resend.isPending}>
            <RotateCcw className={cn(resend.isPending && "animate-spin")} />
            Resend failed{data?.failedTotal ? ` (${count(data.failedTotal)})` : ""}
          </Button>
          <Button variant="secondary" size="sm" onClick={() => setEditing(true)} disabled={!data}>
            <Settings2 />
            Settings
          </Button>
        </div>
      </div>
      {data && (data.configured || hasAnyToday(data) || data.failures.length) ? (
        <>
          <div className="grid gap-1">
            <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Today ({data.day})</p>
            <Counts status={data} />
          </div>
          {data.failures.length ? (
            <ul className="grid gap-1 border-t border-slate-100 pt-2 text-xs" aria-label="Latest failures">
              {data.failures.map((f) => (
                <li key={`${f.conversionId}-${f.event}`} className="grid gap-0.5 sm:flex sm:gap-2">
                  <span className="shrink-0 font-mono text-slate-700">{f.conversionId}</span>
                  <span className="min-w-0 text-danger-700">{f.message ?? "failed"}</span>
                  <Instant at={f.at} show="relative" className="shrink-0 text-slate-500 sm:ml-auto" />
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      {data && editing ? <SettingsDialog open={editing} onOpenChange={setEditing} current={data.settings} /> : null}
    </Card>
  );
}
