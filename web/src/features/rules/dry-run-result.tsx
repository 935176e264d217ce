import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useReportTime } from "@/lib/report-time";
import type { DryRun } from "./api";
import { figuresText } from "./figures-text";

/** What the unsaved rule would have matched over the last 7 days, per scope item. */
export function DryRunResult({ result, error }: { result: DryRun | undefined; error: Error | null }) {
  const { dateTime: at, timeZone } = useReportTime();
  return (
    <Card aria-live="polite">
      <CardHeader>
        <CardTitle>Dry run: the last 7 days</CardTitle>
        <CardDescription>
          {result
            ? `Evaluated as the cron would have at this time on each of the last 7 days: ${result.matchedItems} of ${result.checkedItems} scope items matched. Times in ${timeZone} (the report time zone).`
            : "The rule could not be tried."}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {error ? <p className="text-sm text-danger-600">{error.message}</p> : null}
        {result?.missing.map((m) => (
          <p key={m.key} className="text-sm text-amber-800">
            {m.note}
          </p>
        ))}
        {result && result.items.length === 0 ? <p className="text-sm text-slate-600">Nothing matched: the rule would not have fired.</p> : null}
        {result?.items.map((item) => (
          <section key={item.key} aria-label={`Dry run for ${item.label}`} className="rounded-lg border border-slate-200 p-3">
            <h3 className="font-medium text-slate-900">{item.label}</h3>
            <p className="mt-1 text-sm text-slate-600">
              Would have fired {item.firings.length} time{item.firings.length === 1 ? "" : "s"}: {item.firings.map(at).join(", ")}
              {item.adGroups.length ? ` · ad groups ${item.adGroups.join(", ")}` : ""}
            </p>
            <ul className="mt-2 grid gap-1 text-sm">
              {item.matches.map((m) => (
                <li key={m.at} className="flex flex-wrap gap-x-2">
                  <span className="tabular text-slate-500">{at(m.at)}</span>
                  {item.firings.includes(m.at) ? <Badge variant="warning">fires</Badge> : <Badge variant="secondary">in cooldown</Badge>}
                  <span className="text-slate-800">{figuresText(m.figures)}</span>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </CardContent>
    </Card>
  );
}
