import { Clock } from "lucide-react";
import { useEffect, useMemo } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Combobox, type ComboboxOption } from "@/components/ui/combobox";
import { Field } from "@/components/ui/field";
import { toast, toastError } from "@/components/ui/toast";
import { useSchemaForm } from "@/lib/schema-form";
import { useNow } from "@/lib/use-now";
import { DEFAULT_REPORT_TIMEZONE, settingValueSchemas } from "../../../../../worker/src/schemas/settings";
import { useSaveSettings, useSettings } from "../api";

/** "UTC-05:00" for a zone at an instant (daylight saving included). */
export function utcOffset(timeZone: string, at: Date): string {
  try {
    const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value;
    // "GMT-05:00", or "GMT" itself at zero.
    return !name || name === "GMT" ? "UTC+00:00" : name.replace("GMT", "UTC");
  } catch {
    return "";
  }
}

const localTime = (timeZone: string, at: Date) => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "numeric", minute: "2-digit" }).format(at);
  } catch {
    return "";
  }
};

/** Every IANA zone the browser knows, UTC first, each with its offset now; the stored one even if the list lacks it. */
export function timeZoneOptions(current: string, at: Date): ComboboxOption[] {
  const names = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const all = ["UTC", ...names.filter((n) => n !== "UTC")];
  if (current && !all.includes(current)) all.push(current);
  return all.map((name) => ({ value: name, label: name, hint: utcOffset(name, at) }));
}

const zoneFormSchema = z.object({ report_timezone: settingValueSchemas.report_timezone });

/**
 * The report time zone (setting report_timezone): which 24 hours make a day for our clicks in
 * the Stats screen and the Click Log, and when "today" starts for the syncs. Changing it makes
 * the click rollup's days stale: the next cron run rebuilds it for the new zone, and until then
 * the report reads clicks directly (README, "Days and time zones").
 */
export function ReportTimeZoneCard() {
  const settings = useSettings();
  const save = useSaveSettings();
  const stored = settings.data?.report_timezone ?? DEFAULT_REPORT_TIMEZONE;
  const form = useSchemaForm(zoneFormSchema, { report_timezone: stored });
  const zone = form.watch("report_timezone");
  const now = useNow(60_000);
  // The offsets of the moment the card opened: searching "utc-05" finds the zones at -05 today.
  const options = useMemo(() => timeZoneOptions(stored, new Date()), [stored]);

  useEffect(() => form.reset({ report_timezone: stored }), [stored, form]);

  const submit = ({ report_timezone }: z.output<typeof zoneFormSchema>) =>
    save.mutate([{ key: "report_timezone", value: report_timezone }], {
      onSuccess: () =>
        toast({ title: "Settings updated", description: `Report time zone: ${report_timezone}. The click rollup is rebuilt for it within 15 minutes.` }),
      onError: (err) => toastError("Error", err, "Failed to update settings"),
    });

  const changed = zone !== stored;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Clock className="size-4 text-brand-700" aria-hidden="true" />
          Report Time Zone
        </CardTitle>
        <CardDescription>
          Which 24 hours make a day for your clicks on the Stats screen and in the Click Log, and when &ldquo;today&rdquo; starts for the CAKE and TikTok syncs.
          Use the zone your CAKE network and TikTok ad accounts report in, so a day means the same hours for clicks, revenue and spend.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" noValidate onSubmit={form.handleSubmit(submit)}>
          <p className="text-sm text-slate-600" aria-live="polite">
            Current: <span className="font-medium text-slate-900">{stored}</span>{" "}
            <span className="tabular text-slate-500">
              ({utcOffset(stored, new Date(now))}, {localTime(stored, new Date(now))} there now)
            </span>
          </p>
          <Field
            label="Report Time Zone"
            error={form.formState.errors.report_timezone?.message}
            hint="Type to search: a city (New York), a region (Europe) or an offset (UTC-05)."
          >
            <Combobox
              value={zone}
              onValueChange={(v) => form.setValue("report_timezone", v, { shouldValidate: form.formState.isSubmitted })}
              options={options}
              placeholder="Search time zones"
              empty="No time zone matches"
            />
          </Field>
          {changed ? (
            <p className="rounded-md bg-amber-50 p-3 text-xs text-amber-900" role="note">
              Saving moves every day boundary of your clicks to {zone}. The Stats screen switches at once, reading clicks directly (slower for long ranges), and
              the next 15-minute cron run rebuilds the daily click rollup for the new zone. CAKE revenue and TikTok spend keep the days their sources report.
            </p>
          ) : null}
          <div>
            <Button type="submit" disabled={save.isPending || !changed}>
              {save.isPending ? "Saving..." : "Save Time Zone"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
