import { useQuery } from "@tanstack/react-query";
import { Trophy } from "lucide-react";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/page";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { formatMoney, formatNumber } from "@/lib/format";
import { splitTestQuery, type SplitTestMetric } from "../api";

interface SplitTestDialogProps {
  campaignId: number;
  pathId: number;
  pathName: string;
  onClose(): void;
}

interface Interval {
  value: number;
  low: number;
  high: number;
}

/** "2.10%" from a fraction. */
export const formatRate = (fraction: number, decimals = 2) => `${(fraction * 100).toFixed(decimals)}%`;

/** "2.10% (1.6–2.7%)": a rate with its 95% interval, the interval one decimal coarser. */
export const formatRateInterval = ({ value, low, high }: Interval) => `${formatRate(value)} (${(low * 100).toFixed(1)}–${formatRate(high, 1)})`;

/** "$0.42 ($0.30–$0.55)": revenue per visit (in cents) with its 95% interval. */
export const formatEpvInterval = ({ value, low, high }: Interval) => `${formatMoney(value / 100)} (${formatMoney(low / 100)}–${formatMoney(high / 100)})`;

/** "97%": rounded down, like the verdict, so it never claims more than the draws do; "<1%" for a sliver. */
export function formatProbability(p: number) {
  if (p > 0 && p < 0.01) return "<1%";
  return `${Math.floor(p * 100)}%`;
}

const PERIODS = [7, 14, 30];
const METRIC_OPTIONS: { value: SplitTestMetric; label: string }[] = [
  { value: "cr", label: "Conversion rate" },
  { value: "epv", label: "Revenue per visit" },
];

/** The endpoint's answer, as the typed client gives it. */
type Answer = Awaited<ReturnType<NonNullable<ReturnType<typeof splitTestQuery>["queryFn"]>>>;
type SplitTest = NonNullable<Answer["landers"]>;

/** One kind of variant's figures and verdict: a table, cards on a phone. */
function SplitTestSection({ title, test }: { title: string; test: SplitTest }) {
  const decided = test.winner !== null;
  return (
    <section className="grid min-w-0 gap-2" aria-label={title}>
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</h3>
      <p
        role="status"
        className={cn(
          "flex items-start gap-2 rounded-md border px-3 py-2 text-sm font-medium",
          decided ? "border-emerald-200 bg-emerald-50 text-emerald-800" : "border-slate-200 bg-slate-50 text-slate-800",
        )}
      >
        {decided ? <Trophy className="mt-0.5 size-4 shrink-0" aria-hidden="true" /> : null}
        {test.verdict}
      </p>
      <div className="rounded-md border border-slate-200">
        <Table aria-label={`${title} split test`} phone="cards">
          <TableHeader>
            <TableRow>
              <TableHead>Variant</TableHead>
              <TableHead numeric>Visits</TableHead>
              <TableHead numeric>Exits</TableHead>
              <TableHead numeric>CTR</TableHead>
              <TableHead numeric>Conversions</TableHead>
              <TableHead numeric>CR (95%)</TableHead>
              <TableHead numeric>Revenue</TableHead>
              <TableHead numeric>EPV (95%)</TableHead>
              <TableHead numeric>Probability best</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {test.variants.map((v) => {
              const winner = v.id === test.winner;
              return (
                <TableRow key={v.id} className={winner ? "bg-emerald-50/70" : undefined} data-winner={winner || undefined}>
                  <TableCell cardRole="title" className={cn("font-medium text-slate-900", winner && "first:bg-emerald-50")}>
                    <span className="inline-flex flex-wrap items-center gap-1.5">
                      {v.name}
                      {winner ? <Badge variant="success">Winner</Badge> : null}
                      {v.paused ? <Badge variant="secondary">Paused</Badge> : null}
                    </span>
                  </TableCell>
                  <TableCell numeric label="Visits">
                    {formatNumber(v.visits)}
                  </TableCell>
                  <TableCell numeric label="Exits">
                    {formatNumber(v.exits)}
                  </TableCell>
                  <TableCell numeric label="CTR">
                    {formatRate(v.ctr)}
                  </TableCell>
                  <TableCell numeric label="Conversions">
                    {formatNumber(v.conversions)}
                  </TableCell>
                  <TableCell numeric label="CR (95%)" className="whitespace-nowrap">
                    {formatRateInterval(v.cr)}
                  </TableCell>
                  <TableCell numeric label="Revenue">
                    {formatMoney(v.revenueCents / 100)}
                  </TableCell>
                  <TableCell numeric label="EPV (95%)" className="whitespace-nowrap">
                    {formatEpvInterval(v.epvCents)}
                  </TableCell>
                  <TableCell numeric label="Prob. best" className={winner ? "font-semibold text-emerald-800" : undefined}>
                    {formatProbability(v.probabilityBest)}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </div>
      <p className="text-xs text-slate-500">{test.method}</p>
    </section>
  );
}

/** A saved path's split test: its landers' and offers' figures over a period, and whether a winner is known. */
export function SplitTestDialog({ campaignId, pathId, pathName, onClose }: SplitTestDialogProps) {
  // Until chosen, the server answers with the path's own optimisation window and metric.
  const [days, setDays] = useState<number | undefined>();
  const [metric, setMetric] = useState<SplitTestMetric | undefined>();
  const test = useQuery(splitTestQuery(campaignId, pathId, days, metric));
  const { isError, error } = test;
  useEffect(() => {
    if (isError) toastError("Error", error, "Failed to load the split test");
  }, [isError, error]);

  const data = test.data;
  const shownDays = days ?? data?.days ?? 7;
  const shownMetric = metric ?? data?.metric ?? "cr";
  const periodOptions = [...new Set([...PERIODS, shownDays])].sort((a, b) => a - b).map((d) => ({ value: String(d), label: `Last ${d} days` }));
  const sections: [string, SplitTest][] = [];
  if (data?.landers) sections.push(["Landers", data.landers]);
  if (data?.offers) sections.push(["Offers", data.offers]);
  const visits = sections.reduce((sum, [, t]) => sum + t.variants.reduce((s, v) => s + v.visits, 0), 0);

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={`Split test: ${pathName}`}
      description="How each lander and offer of this path did, and whether a winner is known."
      className="max-w-5xl"
    >
      <div className="flex flex-wrap gap-3">
        <Field label="Period">
          <Select value={String(shownDays)} onValueChange={(d) => setDays(Number(d))} options={periodOptions} aria-label="Period" className="w-40" />
        </Field>
        <Field label="Metric">
          <Select value={shownMetric} onValueChange={(m) => setMetric(m as SplitTestMetric)} options={METRIC_OPTIONS} aria-label="Metric" className="w-48" />
        </Field>
        {test.isFetching && data ? <Spinner label="Updating..." className="self-end pb-2" /> : null}
      </div>
      {test.isPending ? (
        <div className="flex justify-center py-10">
          <Spinner label="Loading split test..." />
        </div>
      ) : test.isError && !data ? (
        <p className="text-sm text-danger-600">Could not load the split test. Try again in a moment.</p>
      ) : sections.length === 0 ? (
        <EmptyState title="Nothing to test">This path has no landers or offers.</EmptyState>
      ) : visits === 0 ? (
        <div className="grid gap-3">
          <EmptyState title="No visits yet">No visits on this path in the last {data?.days ?? shownDays} days.</EmptyState>
          {/* The verdicts still say where each kind stands (nothing decided), without empty tables. */}
          <ul className="grid gap-1 text-sm text-slate-700" aria-label="Verdicts">
            {sections.map(([title, t]) => (
              <li key={title}>
                <span className="font-medium">{title}:</span> {t.verdict}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <div className="grid gap-6">
          {sections.map(([title, t]) => (
            <SplitTestSection key={title} title={title} test={t} />
          ))}
        </div>
      )}
    </Dialog>
  );
}
