import { Link } from "react-router";
import { useState } from "react";
import { RulesTabs } from "@/components/rules-tabs";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { Switch } from "@/components/ui/switch";
import { toast, toastError } from "@/components/ui/toast";
import { useReportTime } from "@/lib/report-time";
import type { BuiltinAlertKey } from "../../../../worker/src/schemas/builtin-alerts";
import { useBuiltinAlerts, useSaveBuiltinAlert, type BuiltinAlert } from "./api";

function AlertRow({ alert }: { alert: BuiltinAlert }) {
  const save = useSaveBuiltinAlert();
  const { dateTime, timeZone } = useReportTime();
  const [draft, setDraft] = useState(alert.threshold === null ? "" : String(alert.threshold));
  const spec = alert.thresholdSpec;
  const number = Number(draft);
  const numberProblem =
    spec && (!/^\d+$/.test(draft.trim()) || number < spec.min || number > spec.max)
      ? `${spec.label} must be a whole number from ${spec.min} to ${spec.max.toLocaleString("en-US")}`
      : null;
  const send = (enabled: boolean, threshold: number | null) =>
    save.mutate(
      { alert: alert.key as BuiltinAlertKey, json: { enabled, threshold } },
      {
        onSuccess: () => toast({ title: "Saved", description: `${alert.label}: ${enabled ? "on" : "off"}` }),
        onError: (err) => toastError("Error", err, "Failed to save the alert"),
      },
    );
  const switchId = `builtin-${alert.key}`;
  return (
    <li className="grid gap-3 rounded-lg border border-slate-200 p-4 sm:grid-cols-[1fr_auto] sm:items-start">
      <div className="min-w-0">
        <div className="flex items-center gap-3">
          <Switch
            id={switchId}
            checked={alert.enabled}
            disabled={save.isPending}
            onCheckedChange={(on) => send(on, spec ? number : null)}
            aria-label={`${alert.label} on`}
          />
          <label htmlFor={switchId} className="font-semibold text-slate-900">
            {alert.label}
          </label>
        </div>
        <p className="mt-1 text-sm text-slate-600">{alert.description}</p>
        <p className="mt-1 text-xs text-slate-500">
          {alert.lastFired ? `Last fired ${dateTime(alert.lastFired.at)} (${timeZone}): ${alert.lastFired.title}` : "Has not fired yet."}
        </p>
      </div>
      {spec ? (
        <form
          className="flex items-end gap-2"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (!numberProblem) send(alert.enabled, number);
          }}
        >
          <label className="grid gap-1 text-xs font-medium text-slate-700">
            {spec.label}
            <Input
              className="w-28"
              inputMode="numeric"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              aria-invalid={numberProblem ? true : undefined}
              aria-label={`${alert.label}: ${spec.label}`}
            />
          </label>
          <Button type="submit" variant="secondary" size="md" disabled={save.isPending || numberProblem !== null || number === alert.threshold}>
            Save
          </Button>
        </form>
      ) : null}
      {numberProblem ? (
        <p role="alert" className="text-xs text-danger-600 sm:col-span-2">
          {numberProblem}
        </p>
      ) : null}
    </li>
  );
}

export default function BuiltInAlertsScreen() {
  const alerts = useBuiltinAlerts();
  return (
    <>
      <PageHeader title="Rules" description="Alerts Trackyard raises by itself" />
      <RulesTabs />
      <Card>
        <CardHeader>
          <CardTitle>Built-in alerts</CardTitle>
          <CardDescription>
            Checked every 15 minutes. Each goes to every admin&apos;s notification list and to the channels marked &quot;Built-in alerts&quot; on{" "}
            <Link to="/rules/channels" className="text-brand-700 underline-offset-4 hover:underline">
              Channels
            </Link>
            , once per occurrence.
          </CardDescription>
        </CardHeader>
        <CardContent>
          {alerts.isPending ? (
            <div className="flex justify-center py-8">
              <Spinner />
            </div>
          ) : alerts.isError ? (
            <p className="py-6 text-center text-sm text-danger-600">{alerts.error.message}</p>
          ) : (
            <ul className="grid gap-3">
              {alerts.data.map((a) => (
                <AlertRow key={a.key} alert={a} />
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
    </>
  );
}
