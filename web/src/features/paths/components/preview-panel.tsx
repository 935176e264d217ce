import { TZDate } from "@date-fns/tz";
import { Search } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Combobox } from "@/components/ui/combobox";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toastError } from "@/components/ui/toast";
import { useReportDays } from "@/lib/report-days";
import type { PreviewInput } from "../../../../../worker/src/schemas/paths";
import { usePreview } from "../api";
import { COUNTRIES } from "../countries";
import { formatShare } from "../editor";

const ANY = "any";
const DEVICE_OPTIONS = [
  { value: ANY, label: "Any device" },
  { value: "mobile", label: "Mobile" },
  { value: "tablet", label: "Tablet" },
  { value: "desktop", label: "Desktop" },
];
const COUNTRY_OPTIONS = [{ value: ANY, label: "No country (as a local visit)" }, ...COUNTRIES.map((c) => ({ value: c.code, label: c.label }))];

/** "2026-11-26T09:30" read on the clock of `timeZone`, as an instant with its offset. */
export function instantIn(local: string, timeZone: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return undefined;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  return new TZDate(y, mo - 1, d, h, mi, timeZone).toISOString();
}

interface PreviewPanelProps {
  campaignId: number;
  /** The form has changes not saved: the preview answers for the saved paths. */
  dirty: boolean;
  landers: { id: number; name: string }[];
  offers: { id: number; name: string }[];
}

/** "Which path?": a visitor's properties in, the path and the weights they would get out. */
export function PreviewPanel({ campaignId, dirty, landers, offers }: PreviewPanelProps) {
  const { timeZone } = useReportDays();
  const preview = usePreview(campaignId);
  const [country, setCountry] = useState(ANY);
  const [device, setDevice] = useState(ANY);
  const [os, setOs] = useState("");
  const [at, setAt] = useState("");
  const [query, setQuery] = useState("");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input: PreviewInput = {
      ...(country !== ANY && { country }),
      ...(device !== ANY && { deviceType: device }),
      ...(os.trim() && { os: os.trim() }),
      ...(at && { at: instantIn(at, timeZone) }),
      ...(query.trim() && { query: query.trim().replace(/^\?/, "") }),
    };
    preview.mutate(input, { onError: (err) => toastError("Preview failed", err, "Failed to preview the path") });
  };

  const result = preview.data;
  const nameOf = (list: { id: number; name: string }[], id: number, noun: string) => list.find((x) => x.id === id)?.name ?? `${noun} #${id}`;

  return (
    <Card className="xl:sticky xl:top-4">
      <CardHeader>
        <CardTitle icon={Search}>Which path?</CardTitle>
        <CardDescription>A visitor's properties, and the path and weights they would get.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form className="grid gap-3" onSubmit={submit} aria-label="Which path preview">
          <Field label="Country">
            <Combobox value={country} onValueChange={setCountry} options={COUNTRY_OPTIONS} placeholder="Type a name or code" empty="No country matches" />
          </Field>
          <Field label="Device">
            <Select value={device} onValueChange={setDevice} options={DEVICE_OPTIONS} />
          </Field>
          <Field label="OS" hint="As detected: iOS, Android, Windows...">
            <Input value={os} onChange={(e) => setOs(e.target.value)} placeholder="Any" />
          </Field>
          <Field label={`Time (${timeZone})`} hint="Empty: now.">
            <Input type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
          </Field>
          <Field label="URL parameters" hint="The tracking URL's query, e.g. utm_source=tt&plc=feed">
            <Input value={query} onChange={(e) => setQuery(e.target.value)} placeholder="utm_source=tt" spellCheck={false} />
          </Field>
          <Button type="submit" variant="secondary" disabled={preview.isPending}>
            {preview.isPending ? "Checking..." : "Show path"}
          </Button>
          {dirty ? <p className="text-xs text-amber-700">Answers for the saved paths: save to preview your changes.</p> : null}
        </form>
        {result ? (
          <section aria-label="Preview result" aria-live="polite" className="grid gap-3 rounded-md border border-brand-100 bg-brand-50 p-3">
            <p className="text-sm text-slate-800">
              This visitor takes <strong className="font-semibold">{result.path.name}</strong>
              {result.path.isDefault ? " (the default path)" : ""}.
            </p>
            {result.notes.map((note) => (
              <p key={note} className="text-xs text-slate-600">
                {note}
              </p>
            ))}
            {[
              {
                title: "Landers",
                rows: result.directToOffer
                  ? []
                  : result.landers.map((v) => ({ key: v.landerId, name: v.name || nameOf(landers, v.landerId, "Lander"), share: v.percent })),
              },
              { title: "Offers", rows: result.offers.map((v) => ({ key: v.offerId, name: v.name || nameOf(offers, v.offerId, "Offer"), share: v.percent })) },
            ].map((group) => (
              <div key={group.title}>
                <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{group.title}</h3>
                {group.rows.length ? (
                  <ul className="mt-1 grid gap-0.5 text-sm">
                    {group.rows.map((r) => (
                      <li key={r.key} className="flex justify-between gap-3">
                        <span className="min-w-0 truncate">{r.name}</span>
                        <span className="tabular font-medium">{formatShare(r.share)}</span>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="mt-1 text-sm text-slate-500">
                    {group.title === "Landers" ? "None: straight to offer." : "None: the lander's exit goes nowhere."}
                  </p>
                )}
              </div>
            ))}
          </section>
        ) : null}
      </CardContent>
    </Card>
  );
}
