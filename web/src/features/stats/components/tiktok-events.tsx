import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, FlaskConical, RotateCcw, Settings2, XCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { Instant } from "@/components/instant";
import { useReportTime } from "@/lib/report-time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { onDemand } from "@/lib/on-demand";
import { FAILURE_KIND_LABELS, NO_PIXEL_CODE, SKIP_REASON_LABELS } from "../../../../../worker/src/schemas/tiktok-events";
import { tiktokEventsQuery, useResendFailed, useSaveEventSettings, type TikTokEventsStatus } from "../api";
import { SetupSteps } from "./setup-steps";

// Fetched when an admin points at or opens Settings: the form library is not part of the Stats
// screen's first load.
const settingsChunk = onDemand(() => import("./tiktok-event-settings-dialog"));

const count = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

type TestEvents = NonNullable<TikTokEventsStatus["testEvents"]>;

/** "set by alice on Nov 22, 2026 10:14:03 (UTC)" in the report time zone, or that nobody knows (a code set before this was recorded). */
const setByLine = ({ setBy, setAt }: TestEvents, named: (iso: string) => string) =>
  setBy && setAt ? `set by ${setBy} on ${named(setAt)}` : "who set it was not recorded";

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

/** Failed conversions 'Resend failed' sends again: the temporary ones and those of a token or access problem. */
const resendable = ({ failed }: TikTokEventsStatus) => failed.temporary + failed.setup;

/** What Resend failed will do, in a sentence: how many go again and why, and how many stay failed and why. */
function resendSentence(status: TikTokEventsStatus) {
  const { temporary, setup, refused } = status.failed;
  const why = [
    temporary ? `${count(temporary)} after ${FAILURE_KIND_LABELS.temporary}` : "",
    setup ? `${count(setup)} after a ${FAILURE_KIND_LABELS.setup} problem` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const again = resendable(status) ? `Resend failed sends ${plural(resendable(status), "conversion", "conversions")} again (${why}).` : "";
  const stay = refused
    ? `${plural(refused, "conversion", "conversions")} TikTok refused as malformed ${refused === 1 ? "stays" : "stay"} failed: resending would fail again.`
    : "";
  return [again, stay].filter(Boolean).join(" ");
}

const KIND_BADGE = { temporary: "secondary", setup: "warning", refused: "destructive" } as const;

/** Whether today has anything to show; a new install's row of zeros would only push the figures down. */
const hasAnyToday = ({ today }: TikTokEventsStatus) => today.sent + today.failed + today.waiting + Object.values(today.skipped).reduce((s, n) => s + n, 0) > 0;

/** Admins: whether conversions reach TikTok, what happened to today's, and Resend failed. */
export function TikTokEvents() {
  const status = useQuery(tiktokEventsQuery);
  const resend = useResendFailed();
  const [editing, setEditing] = useState(false);
  const settings = settingsChunk.useModule(editing);
  useEffect(() => {
    if (!settings.failed) return;
    setEditing(false);
    toast({ title: "Could not open the settings", description: "Check your connection and reload the page.", variant: "destructive" });
  }, [settings.failed]);
  const data = status.data;
  const time = useReportTime();
  const testing = data?.testEvents ?? null;
  const Icon = !data?.configured ? XCircle : data.failedTotal || testing ? AlertTriangle : CheckCircle2;
  const toResend = data ? resendable(data) : 0;

  const resendFailed = () =>
    resend.mutate(undefined, {
      onSuccess: ({ requeued }) =>
        toast({ title: "Resending", description: `${plural(requeued, "failed conversion is", "failed conversions are")} on their way to TikTok again.` }),
      onError: (err) => toastError("Resend failed", err, "Could not resend the failed conversions"),
    });

  return (
    <section className="grid gap-3 border-t border-slate-200 p-4" aria-label="Conversions sent to TikTok">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 items-start gap-2">
          <Icon
            className={cn("mt-0.5 size-4 shrink-0", !data?.configured ? "text-slate-400" : data.failedTotal || testing ? "text-amber-600" : "text-success-600")}
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
                  {testing ? <span className="font-medium text-amber-800">, Test Events only</span> : null}
                </span>
              ) : (
                <span className="text-slate-500">not configured</span>
              )}
            </p>
            {testing ? (
              <p className="text-xs text-amber-800">
                Test event code <span className="font-mono">{testing.code}</span>, {setByLine(testing, time.named)}: nothing sent counts in your campaigns until
                it is cleared.
              </p>
            ) : null}
            {data && !data.configured ? (
              <>
                {data.problems.includes(NO_PIXEL_CODE) ? (
                  <p className="mt-1 text-xs text-slate-600">No pixel code is set: put your pixel's code in Settings on this card.</p>
                ) : null}
                {data.problems.some((p) => p !== NO_PIXEL_CODE) ? (
                  <SetupSteps
                    label="Conversions to TikTok"
                    fix={data.fix}
                    problems={data.problems.filter((p) => p !== NO_PIXEL_CODE)}
                    readme="Conversions sent to TikTok"
                  />
                ) : null}
              </>
            ) : null}
          </div>
        </div>
        <div className="flex shrink-0 gap-2">
          <Button
            variant="secondary"
            size="sm"
            onClick={resendFailed}
            disabled={!toResend || !data?.configured || resend.isPending}
            title={data ? resendSentence(data) || undefined : undefined}
          >
            <RotateCcw className={cn(resend.isPending && "animate-spin")} />
            Resend failed{toResend ? ` (${count(toResend)})` : ""}
          </Button>
          <Button
            variant="secondary"
            size="sm"
            onClick={() => setEditing(true)}
            onPointerEnter={() => void settingsChunk.preload().catch(() => undefined)}
            onFocus={() => void settingsChunk.preload().catch(() => undefined)}
            disabled={!data}
          >
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
          {data.failedTotal ? (
            <p className="text-xs text-slate-600">
              {resendSentence(data)}
              {toResend && !data.configured ? " Set sending up first." : ""}
            </p>
          ) : null}
          {data.failures.length ? (
            <ul className="grid gap-1.5 border-t border-slate-100 pt-2 text-xs" aria-label="Latest failures">
              {data.failures.map((f) => (
                <li key={`${f.conversionId}-${f.event}`} className="grid gap-0.5 sm:flex sm:items-start sm:gap-2">
                  <span className="flex shrink-0 items-center gap-2">
                    <span className="font-mono text-slate-700">{f.conversionId}</span>
                    <Badge variant={KIND_BADGE[f.kind]}>{FAILURE_KIND_LABELS[f.kind]}</Badge>
                  </span>
                  <span className="min-w-0 text-danger-700">{f.message ?? "failed"}</span>
                  <Instant at={f.at} show="relative" className="shrink-0 text-slate-500 sm:ml-auto" />
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      {data && editing && settings.module ? <settings.module.default open={editing} onOpenChange={setEditing} current={data.settings} /> : null}
    </section>
  );
}

/**
 * Admins, at the top of the Stats screen: a test event code left set sends every conversion to
 * Test Events, where TikTok does not count it, so the campaigns stop learning. Says so, who set
 * it, and clears it in one click.
 */
export function TestEventsBanner() {
  const status = useQuery(tiktokEventsQuery);
  const save = useSaveEventSettings();
  const time = useReportTime();
  const testing = status.data?.testEvents;
  if (!status.data || !testing) return null;
  const { settings } = status.data;
  const stop = () =>
    save.mutate(
      { pixelCode: settings.pixelCode, testEventCode: "", pendingEvent: settings.pendingEvent, currency: settings.currency },
      {
        onSuccess: () => toast({ title: "Test event code cleared", description: "Conversions count in your campaigns from now on." }),
        onError: (err) => toastError("Not cleared", err, "Could not clear the test event code"),
      },
    );
  return (
    <section
      aria-label="Conversions are going to Test Events"
      className="flex flex-col gap-3 rounded-lg bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-inset ring-amber-300 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 items-start gap-2">
        <FlaskConical className="mt-0.5 size-4 shrink-0 text-amber-700" aria-hidden="true" />
        <div className="min-w-0">
          <p className="font-medium">Conversions are going to TikTok's Test Events, not to your campaigns</p>
          <p className="text-amber-800">
            The test event code <span className="font-mono">{testing.code}</span> ({setByLine(testing, time.named)}) sends every conversion to Events Manager →
            Test Events, where it counts for nothing. Clear it once testing is done (here, or in Conversions to TikTok → Settings).
          </p>
        </div>
      </div>
      <Button variant="secondary" size="sm" onClick={stop} disabled={save.isPending} className="self-start sm:self-center">
        {save.isPending ? "Clearing..." : "Clear the test code"}
      </Button>
    </section>
  );
}
