import { Hourglass } from "lucide-react";
import { Card } from "@/components/ui/card";
import { formatNumber } from "@/lib/format";
import type { ClicksPipeline } from "../api";

/** "45 seconds", "about 3 minutes", "about 2 hours". */
export function aboutDuration(seconds: number) {
  if (seconds < 90) return `${formatNumber(seconds)} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${formatNumber(minutes)} minutes`;
  return `about ${formatNumber(Math.round(minutes / 60))} hours`;
}

function explanation(p: ClicksPipeline) {
  const wait = aboutDuration(p.delaySeconds);
  if (p.reason === "failing")
    return `Storing clicks is failing and being retried: the oldest waiting click was answered ${wait} ago. Clicks wait in the queue and appear once they are stored.`;
  if (p.reason === "silent")
    return `No clicks have been stored for ${wait}, though about ${formatNumber(p.clicksPerMinuteBefore ?? 0)} a minute were coming in before that. If visitors are still arriving, their clicks are waiting in the queue and will appear when it catches up.`;
  return `The newest clicks may take ${wait} to appear here. They wait in the queue and appear as it catches up; stats and exports follow with the same delay.`;
}

/** Shown while new clicks reach the Click Log later than the backlog alert's number of seconds. */
export function DelayNotice({ pipeline }: { pipeline: ClicksPipeline | undefined }) {
  if (!pipeline?.delayed) return null;
  return (
    <Card className="border-amber-200 bg-amber-50" role="status" data-testid="delay-notice">
      <div className="flex items-start gap-3 p-4">
        <Hourglass className="mt-0.5 size-5 shrink-0 text-amber-700" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <h2 className="font-semibold text-amber-900">{pipeline.reason === "silent" ? "Clicks may be delayed" : "Clicks are delayed"}</h2>
          <p className="mt-1 text-sm text-amber-900">{explanation(pipeline)}</p>
          <p className="mt-1 text-xs text-amber-800">
            Shown when clicks are more than {formatNumber(pipeline.thresholdSeconds)} seconds behind (the Clicks queue backlog alert's number, on Rules ›
            Built-in alerts).
          </p>
        </div>
      </div>
    </Card>
  );
}
