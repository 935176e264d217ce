import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, ChevronRight, RefreshCw, XCircle } from "lucide-react";
import { useId, useState } from "react";
import { ReadmeLink } from "@/components/readme-link";
import { Instant } from "@/components/instant";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { useNow } from "@/lib/use-now";
import { syncStatusQuery, useSyncNow, type SyncStatus } from "../api";
import { TikTokEvents } from "./tiktok-events";

type Source = SyncStatus["sources"][number];
type Outcome = NonNullable<Source["lastRun"]>;

function outcomeLine(o: Pick<Outcome, "status" | "rowsFetched" | "error">, label: string) {
  if (o.status === "ok") return `${label}: ${o.rowsFetched.toLocaleString("en-US")} rows fetched`;
  if (o.status === "not_configured") return `${label}: not configured`;
  return `${label}: ${o.status.replace("_", " ")}${o.error ? ` (${o.error})` : ""}`;
}

function SourceState({ source }: { source: Source }) {
  useNow(30_000);
  const failed = source.lastRun?.status === "error" || source.lastRun?.status === "interrupted";
  const Icon = !source.configured ? XCircle : failed ? AlertTriangle : CheckCircle2;
  return (
    <li className="flex min-w-0 items-start gap-2">
      <Icon
        className={cn("mt-0.5 size-4 shrink-0", !source.configured ? "text-slate-400" : failed ? "text-amber-600" : "text-success-600")}
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
          <SetupSteps source={source} />
        ) : failed && source.lastRun?.error ? (
          <p className="text-xs text-amber-700">Last run failed: {source.lastRun.error}</p>
        ) : null}
      </div>
    </li>
  );
}

const code = "rounded bg-slate-100 px-1 font-mono text-[0.7rem] text-slate-800 break-words";

function CommandBlock({ label, text }: { label: string; text: string }) {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-1">
      <p className="text-slate-500">{label}</p>
      <div className="flex items-start gap-2">
        <pre className="min-w-0 flex-1 overflow-x-auto rounded-md border border-slate-200 bg-slate-50 px-2 py-1.5 font-mono text-[0.7rem] text-slate-800">
          {text}
        </pre>
        <CopyButton text={text} label={`Copy: ${label}`} className="size-7 [&_svg]:size-3.5" />
      </div>
    </div>
  );
}

/**
 * What is missing and where each setting goes: a Worker secret put with wrangler (a [vars] entry
 * for a var), and locally a line in .dev.vars, which `npm start` reads. The exact commands for
 * just these settings are one click away, so the card stays short on the dashboard.
 */
function SetupSteps({ source }: { source: Source }) {
  const [open, setOpen] = useState(false);
  const fix = source.fix;
  const secrets = fix.filter((f) => f.secret);
  const vars = fix.filter((f) => !f.secret);
  // A problem no known setting explains (none today) is still said.
  const other = source.problems.filter((p) => !fix.some((f) => f.problem === p));
  const stepsId = useId();
  return (
    <div className="mt-1 grid grid-cols-[minmax(0,1fr)] gap-1.5 text-xs text-slate-600">
      <ul className="grid gap-1" aria-label={`${source.label} settings to set`}>
        {fix.map((f) => (
          <li key={f.name}>
            <code className={code}>{f.name}</code> ({f.secret ? "secret" : "var"}) {f.problem.slice(f.name.length).trim()}: {f.what}.
          </li>
        ))}
        {other.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      <p className="text-slate-500">
        Secrets: <code className={code}>npx wrangler secret put NAME</code>; locally, <code className={code}>NAME=…</code> lines in{" "}
        <code className={code}>.dev.vars</code>, then restart <code className={code}>npm start</code>.
      </p>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={stepsId}
          onClick={() => setOpen((o) => !o)}
          className="inline-flex items-center gap-1 text-xs font-medium text-brand-700 underline-offset-2 hover:underline"
        >
          <ChevronRight className={cn("size-3.5 transition-transform", open && "rotate-90")} aria-hidden="true" />
          Commands for these settings
        </button>
        <ReadmeLink section="Performance data sources" />
      </div>
      {open ? (
        <div id={stepsId} className="grid grid-cols-[minmax(0,1fr)] gap-2">
          {secrets.length ? (
            <CommandBlock
              label="On Cloudflare (each asks for the value; the Worker has it at once):"
              text={secrets.map((f) => `npx wrangler secret put ${f.name}`).join("\n")}
            />
          ) : null}
          {vars.length ? (
            <CommandBlock label="On Cloudflare, under [vars] in wrangler.toml, then deploy:" text={vars.map((f) => `${f.name} = "…"`).join("\n")} />
          ) : null}
          <CommandBlock label="Locally, in .dev.vars (then restart npm start):" text={fix.map((f) => `${f.name}=…`).join("\n")} />
        </div>
      ) : null}
    </div>
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
        toast({ title: "Sync finished", description: outcomes.map((o) => outcomeLine(o, labels.get(o.source) ?? o.source)).join("\n") });
      },
      onError: (err) => toastError("Sync failed", err, "Could not run the sync"),
    });

  return (
    <>
      <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between" aria-label="Data sources" role="region">
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
      </Card>
      <TikTokEvents />
    </>
  );
}
