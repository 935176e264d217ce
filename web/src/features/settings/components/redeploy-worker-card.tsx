import { RefreshCw } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast, toastError } from "@/components/ui/toast";
import { useRedeployWorker, type RedeployReport } from "../redeploy-api";

const LINES: { key: keyof Omit<RedeployReport, "message">; label: string }[] = [
  { key: "attached", label: "Attached now" },
  { key: "alreadyAttached", label: "Already attached" },
  { key: "unknown", label: "Attached but not in Domains (left as they are)" },
  { key: "failed", label: "Could not attach" },
];

/** Reconciles the active tracking domains with the Worker's custom domains; deletes nothing. */
export function RedeployWorkerCard() {
  const redeploy = useRedeployWorker();
  const [report, setReport] = useState<RedeployReport | null>(null);
  return (
    <Card>
      <CardHeader>
        <CardTitle icon={RefreshCw}>Redeploy Worker</CardTitle>
        <CardDescription>
          Attaches every active tracking domain to this Worker as a Custom Domain again, for instance after a deploy removed one. It reports what it found and
          deletes nothing.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div>
          <Button
            onClick={() =>
              redeploy.mutate(undefined, {
                onSuccess: (answer) => {
                  setReport(answer);
                  toast({ title: "Worker redeployed", description: answer.message });
                },
                onError: (err) => {
                  setReport(null);
                  toastError("Redeploy failed", err, "Failed to redeploy worker");
                },
              })
            }
            disabled={redeploy.isPending}
          >
            <RefreshCw />
            {redeploy.isPending ? "Redeploying..." : "Redeploy Worker"}
          </Button>
        </div>
        {report ? (
          <dl className="grid gap-2 text-sm" aria-label="Redeploy report">
            {LINES.filter((l) => report[l.key].length).map((l) => (
              <div key={l.key}>
                <dt className="text-slate-500">{l.label}</dt>
                <dd className="break-words font-mono text-xs text-slate-800">{report[l.key].join(", ")}</dd>
              </div>
            ))}
            {LINES.every((l) => !report[l.key].length) ? <p className="text-slate-600">{report.message}</p> : null}
          </dl>
        ) : null}
      </CardContent>
    </Card>
  );
}
