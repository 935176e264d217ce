import { Info } from "lucide-react";
import { StatCard } from "@/components/ui/card";
import { cn } from "@/lib/cn";
import type { Report } from "../api";
import { count, money, money3, percent, profitClass, roas, roi } from "../format";

/** The six cards (docs/screens.md §2). Figures show a dash until the first answer. */
export function SummaryCards({ report }: { report: Report | undefined }) {
  const t = report?.totals;
  const blank = "\u00a0";
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-3 2xl:grid-cols-6">
      {/* CAKE's clicks, beside our own Link Clicks above: say whose they are. */}
      <StatCard label="Visits" value={t ? count(t.visits) : "—"} note="CAKE clicks: visits to the offer" />
      <StatCard label="Conversions" value={t ? count(t.conversions) : "—"} note={t ? `CR ${percent(t.cr)}` : blank} />
      <StatCard label="Revenue" value={t ? money(t.revenue) : "—"} note={t ? `EPV ${money3(t.epv)}` : blank} />
      <StatCard
        label="Spend"
        value={t ? money(t.spend) : "—"}
        note={
          t ? (
            <>
              CPV {money3(t.cpv)}
              {report?.spendNote ? (
                <span className="mt-1 flex items-start gap-1 text-amber-800" data-testid="spend-note">
                  <Info className="mt-px size-3.5 shrink-0" aria-hidden="true" />
                  <span>{report.spendNote}</span>
                </span>
              ) : null}
            </>
          ) : (
            blank
          )
        }
      />
      <StatCard label="Profit" value={t ? money(t.profit) : "—"} valueClassName={cn(t && profitClass(t.profit))} note={blank} />
      <StatCard
        label="ROI / ROAS"
        value={
          t ? (
            // Wraps after the slash in a narrow card instead of cutting the ROAS off.
            <span className="flex flex-wrap gap-x-1.5">
              <span>{roi(t.roi)}</span> <span>/</span> <span>{roas(t.roas)}</span>
            </span>
          ) : (
            "—"
          )
        }
        note={blank}
      />
    </div>
  );
}
