import { Info } from "lucide-react";
import { Card } from "@/components/ui/card";
import type { Report } from "../api";
import { count, percent } from "../format";

function Figure({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="min-w-0">
      <dt className="truncate text-xs font-medium uppercase tracking-wide text-slate-500" title={note}>
        {label}
      </dt>
      <dd className="tabular mt-1 truncate text-xl font-semibold text-slate-900">{value}</dd>
    </div>
  );
}

/**
 * Our own traffic, counted by Trackyard from the first click in every grouping: the figures a new
 * team has before CAKE and TikTok are connected (the six cards below stay at 0 until they are).
 */
export function TrafficStrip({ report }: { report: Report | undefined }) {
  const t = report?.traffic;
  const cakeWaiting = report !== undefined && report.lastSync.cake === null;
  return (
    <Card role="region" aria-label="Our traffic" className="grid gap-3 p-4 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)] sm:items-center sm:gap-6 sm:px-5">
      <div className="min-w-0">
        <p className="text-sm font-semibold text-slate-900">Our traffic</p>
        <p className="text-xs text-slate-500">Clicks on our tracking links, counted from the first click.</p>
      </div>
      <dl className="grid grid-cols-3 gap-3">
        <Figure label="Link Clicks" value={t ? count(t.linkClicks) : "—"} note="Clicks on our tracking links" />
        <Figure label="Exit Clicks" value={t ? count(t.exitClicks) : "—"} note="Visitors the lander sent on to the offer" />
        <Figure label="Lander CTR" value={t ? percent(t.landerCtr) : "—"} note="Exit clicks / link clicks" />
      </dl>
      {cakeWaiting ? (
        <p className="flex items-start gap-1.5 text-xs text-slate-500 sm:col-span-2">
          <Info className="mt-px size-3.5 shrink-0" aria-hidden="true" />
          <span>Visits, conversions and revenue below come from CAKE, spend from TikTok: they read 0 until their first sync.</span>
        </p>
      ) : null}
    </Card>
  );
}
