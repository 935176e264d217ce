import { Archive, Download } from "lucide-react";
import { Card } from "@/components/ui/card";
import { formatDate, formatNumber } from "@/lib/format";
import { archiveUrl, type ClickRetention } from "../api";

const kilobytes = (bytes: number) =>
  bytes < 1024 * 1024 ? `${formatNumber(Math.max(1, Math.round(bytes / 1024)))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * How long the Click Log keeps raw clicks, and, for a range reaching past that, the archived days
 * it can offer instead (each a gzipped CSV with the export's columns).
 */
export function RetentionNotice({ retention }: { retention: ClickRetention | undefined }) {
  if (!retention) return null;
  const kept = `Raw clicks are kept for ${formatNumber(retention.retentionDays)} days, then archived by day and removed from the Click Log.`;
  if (!retention.reachesPastRetention) {
    return <p className="text-xs text-slate-500">{kept} The stats keep every day.</p>;
  }
  return (
    <Card className="border-amber-200 bg-amber-50" data-testid="retention-notice">
      <div className="flex items-start gap-3 p-4">
        <Archive className="mt-0.5 size-5 shrink-0 text-amber-700" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <h2 className="font-semibold text-amber-900">This range reaches past the click retention</h2>
          <p className="mt-1 text-sm text-amber-900">{kept} The totals above count only the clicks still kept; the stats screen still has every day.</p>
          {retention.retentionProblem ? <p className="mt-1 text-sm text-amber-900">{retention.retentionProblem}.</p> : null}
          {retention.archives.length ? (
            <ul className="mt-3 grid gap-1.5 sm:grid-cols-2 lg:grid-cols-3" aria-label="Archived days">
              {retention.archives.map((a) => (
                <li key={a.day}>
                  <a
                    href={archiveUrl(a.day)}
                    download
                    className="flex items-center justify-between gap-3 rounded-md border border-amber-200 bg-white px-3 py-2 text-sm text-slate-800 hover:border-amber-300 hover:bg-amber-100 focus-visible:outline-2 focus-visible:outline-brand-600"
                  >
                    <span className="flex items-center gap-2 font-medium">
                      <Download className="size-4 text-amber-700" aria-hidden="true" />
                      {formatDate(a.day)}
                    </span>
                    <span className="tabular text-right text-xs text-slate-500">
                      {formatNumber(a.rows)} clicks · {kilobytes(a.bytes)}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-2 text-sm text-amber-900">No archived day falls in this range yet.</p>
          )}
        </div>
      </div>
    </Card>
  );
}
