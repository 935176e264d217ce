import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, RefreshCw, XCircle } from "lucide-react";
import { Instant } from "@/components/instant";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { useNow } from "@/lib/use-now";
import { syncStatusQuery, useSyncNow, type SyncStatus } from "../api";
import { SetupSteps } from "./setup-steps";
import { TestEventsBanner, TikTokEvents } from "./tiktok-events";

type Source = SyncStatus["sources"][number];
type Outcome = NonNullable<Source["lastRun"]>;

function outcomeLine(o: Pick<Outcome, "status" | "rowsFetched" | "error">, label: string) {
  if (o.status === "ok") return `${label}: ${o.rowsFetched.toLocaleString("en-US")} rows fetched`;
  if (o.status === "not_configured") return `${label}: not configured`;
  if (o.status === "running") return `${label}: a long click report, going on in steps`;
  return `${label}: ${o.status.replace("_", " ")}${o.error ? ` (${o.error})` : ""}`;
}

function SourceState({ source }: { source: Source }) {
  useNow(30_000);
  const failed = source.lastRun?.status === "error" || source.lastRun?.status === "interrupted";
  const going = source.configured && source.lastRun?.status === "running";
  const Icon = !source.configured ? XCircle : failed ? AlertTriangle : going ? RefreshCw : CheckCircle2;
  return (
    <li className="flex min-w-0 items-start gap-2">
      <Icon
        className={cn(
          "mt-0.5 size-4 shrink-0",
          !source.configured ? "text-slate-400" : failed ? "text-amber-600" : going ? "text-slate-500 motion-safe:animate-spin" : "text-success-600",
        )}
        aria-hidden="true"
      />
      <div className="min-w-0 text-sm">
        <p>
          <span className="font-medium text-slate-900">{source.label}</span>{" "}
          {!source.configured ? (
            <span className="text-slate-500">not configured</span>
          ) : source.lastSuccessAt ? (
            <span className="text-slate-600">
              last synced <Instant at={source.lastSuccessAt} show="relative" />
            </span>
          ) : (
            <span className="text-slate-500">never synced</span>
          )}
        </p>
        {!source.configured && source.problems.length ? (
          <SetupSteps label={source.label} fix={source.fix} problems={source.problems} readme="Performance data sources" />
        ) : failed && source.lastRun?.error ? (
          <p className="text-xs text-amber-700">Last run failed: {source.lastRun.error}</p>
        ) : going && source.lastRun ? (
          <p className="text-xs text-slate-500">
            Sync going on since <Instant at={source.lastRun.startedAt} show="relative" />
          </p>
        ) : null}
      </div>
    </li>
  );
}

/** Admins: where the figures come from, when each source last synced, and Sync now. */
export function DataSources() {
  const status = useQuery(syncStatusQuery);
  const sync = useSyncNow();

  const run = () =>
    sync.mutate(undefined, {
      onSuccess: ({ outcomes }) => {
        const labels = new Map(status.data?.sources.map((s) => [s.source, s.label]));
        const going = outcomes.some((o) => o.status === "running");
        toast({
          title: going ? "Sync started" : "Sync finished",
          description: outcomes.map((o) => outcomeLine(o, labels.get(o.source) ?? o.source)).join("\n"),
        });
      },
      onError: (err) => toastError("Sync failed", err, "Could not run the sync"),
    });

  return (
    <>
      <TestEventsBanner />
      {/* One card: the sources the figures come from, then the conversions sent back to TikTok. */}
      <Card className="overflow-hidden">
        <section className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between" aria-label="Data sources">
          <div className="flex min-w-0 flex-col gap-1">
            <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Data sources</p>
            {status.isPending ? (
              <p className="text-sm text-slate-500">Loading sync status...</p>
            ) : status.isError ? (
              <p className="text-sm text-danger-700">{status.error.message || "Could not load the sync status"}</p>
            ) : (
              <ul className="grid grid-cols-[minmax(0,1fr)] gap-x-8 gap-y-2 sm:grid-cols-2">
                {status.data.sources.map((s) => (
                  <SourceState key={s.source} source={s} />
                ))}
              </ul>
            )}
          </div>
          <Button variant="secondary" size="sm" onClick={run} disabled={sync.isPending} className="self-start sm:self-center">
            <RefreshCw className={cn(sync.isPending && "animate-spin")} />
            {sync.isPending ? "Syncing..." : "Sync now"}
          </Button>
        </section>
        <TikTokEvents />
      </Card>
    </>
  );
}
