import { useQuery } from "@tanstack/react-query";
import { Bot, UserRound } from "lucide-react";
import { Dialog } from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { useReportTime } from "@/lib/report-time";
import { historyQuery } from "../api";
import { formatShare, percentages } from "../editor";

interface HistoryDialogProps {
  campaignId: number;
  pathId: number;
  pathName: string;
  landers: { id: number; name: string }[];
  offers: { id: number; name: string }[];
  onClose(): void;
}

type Weighted = { weight: number; paused?: boolean };

/** "Quiz A 60% · Quiz B 40%": a change's weights as the shares they gave. */
function shares<T extends Weighted>(variants: readonly T[], name: (v: T) => string) {
  const split = percentages(variants.map((v) => ({ weight: String(v.weight), paused: v.paused ?? false })));
  return variants.map((v, i) => `${name(v)} ${v.paused ? "paused" : formatShare(split[i] ?? null)}`).join(" · ");
}

/** A path's weight changes, newest first: when, who (or the auto-optimiser), why, and the weights. */
export function HistoryDialog({ campaignId, pathId, pathName, landers, offers, onClose }: HistoryDialogProps) {
  const history = useQuery(historyQuery(campaignId, pathId));
  const { dateTime, timeZone } = useReportTime();
  const landerName = (id: number) => landers.find((l) => l.id === id)?.name ?? `Lander #${id}`;
  const offerName = (id: number) => offers.find((o) => o.id === id)?.name ?? `Offer #${id}`;
  const rows = history.data?.entries ?? [];
  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={`Weight history: ${pathName}`}
      description={`Every change of this path's weights, newest first. Times in ${timeZone}.`}
      className="max-w-2xl"
    >
      {history.isPending ? (
        <div className="flex justify-center py-10">
          <Spinner label="Loading weight history..." />
        </div>
      ) : history.isError ? (
        <p className="text-sm text-danger-600">{history.error.message}</p>
      ) : rows.length === 0 ? (
        <EmptyState title="No weight changes yet">Changes made here or by auto-optimisation will be listed with their reason.</EmptyState>
      ) : (
        <ol className="grid gap-3" aria-label="Weight changes">
          {rows.map((row) => (
            <li key={row.id} className="grid gap-1 rounded-md border border-slate-200 p-3 text-sm">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <span className="inline-flex items-center gap-1.5 font-medium text-slate-900">
                  {row.by === null ? (
                    <Bot className="size-4 text-brand-700" aria-hidden="true" />
                  ) : (
                    <UserRound className="size-4 text-slate-500" aria-hidden="true" />
                  )}
                  {row.by === null ? "Auto-optimiser" : row.by.username}
                </span>
                <time className="tabular text-xs text-slate-500" dateTime={row.at}>
                  {dateTime(row.at)}
                </time>
              </div>
              <p className="text-slate-600">{row.reason}</p>
              {row.weights.landers.length ? (
                <p className="tabular text-xs text-slate-700">
                  <span className="font-medium">Landers:</span> {shares(row.weights.landers, (v) => landerName(v.landerId))}
                </p>
              ) : null}
              {row.weights.offers.length ? (
                <p className="tabular text-xs text-slate-700">
                  <span className="font-medium">Offers:</span> {shares(row.weights.offers, (v) => offerName(v.offerId))}
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </Dialog>
  );
}
