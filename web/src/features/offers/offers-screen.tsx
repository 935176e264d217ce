import { useQuery } from "@tanstack/react-query";
import { DollarSign, MousePointerClick, Target } from "lucide-react";
import { z } from "zod";
import { ScopeNote } from "@/components/scope-note";
import { Button } from "@/components/ui/button";
import { Card, StatCard } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableMessage, TableRow } from "@/components/ui/table";
import { QUICK_RANGES, rangeLabel } from "@/lib/date-ranges";
import { formatMoney, formatNumber } from "@/lib/format";
import { useReportDays } from "@/lib/report-days";
import { useSearchState } from "@/lib/url-state";
import { offerPerformanceQuery, offerTotals } from "./api";

/** docs/screens.md §2: quick ranges of 7, 30 and 90 days ending today; 30 by default. */
const PERIODS = [
  { days: 7, label: "Last 7 Days", range: QUICK_RANGES.find((q) => q.label === "Last 7 days")!.range },
  { days: 30, label: "Last 30 Days", range: QUICK_RANGES.find((q) => q.label === "Last 30 days")!.range },
  { days: 90, label: "Last 90 Days", range: QUICK_RANGES.find((q) => q.label === "Last 90 days")!.range },
] as const;

const COLUMNS = 6;

/** The period in the URL (`?days=7`), so refresh and Back keep it; anything else means 30. */
const offersSearchSchema = z.object({ days: z.enum(["7", "30", "90"]) });
const OFFERS_DEFAULTS = { days: "30" };

export default function OffersScreen() {
  const { value: search, update } = useSearchState(offersSearchSchema, OFFERS_DEFAULTS);
  const days = Number(search.days);
  const setDays = (d: number) => update({ days: d });
  const period = PERIODS.find((p) => p.days === days) ?? PERIODS[1];
  // Days of the report time zone, as the server counts them.
  const range = period.range(useReportDays().today);
  const offers = useQuery(offerPerformanceQuery(range));
  const rows = offers.data ?? [];
  const totals = offers.data ? offerTotals(offers.data) : null;

  return (
    <>
      <PageHeader
        title="Offers"
        description="View performance metrics by offer"
        actions={
          <div role="group" aria-label="Date range" className="inline-flex rounded-md shadow-sm">
            {PERIODS.map((p, i) => (
              <Button
                key={p.days}
                variant={p.days === days ? "primary" : "secondary"}
                size="sm"
                aria-pressed={p.days === days}
                onClick={() => setDays(p.days)}
                className={i === 0 ? "rounded-r-none" : i === PERIODS.length - 1 ? "-ml-px rounded-l-none" : "-ml-px rounded-none"}
              >
                {p.label}
              </Button>
            ))}
          </div>
        }
      />
      <div className="grid grid-cols-1 gap-6">
        <div className="-mt-3 grid gap-1">
          <p className="tabular text-sm text-slate-500" aria-live="polite">
            {rangeLabel(range)}
            {offers.isFetching && offers.data ? <Spinner className="ml-2 align-middle [&>span:first-child]:size-3.5" label="Updating" /> : null}
          </p>
          {/* Said on the page, not in a hover tooltip: a phone has no hover. */}
          <p className="text-xs text-slate-500">
            Clicks, conversions and revenue here are CAKE&apos;s: a CAKE click is a visit that reached the offer, and EPC is revenue per CAKE click (the
            Dashboard&apos;s EPV). Clicks on our tracking links are the Dashboard&apos;s Link Clicks.
          </p>
          <ScopeNote kind="mediaBuyers" />
        </div>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <StatCard label="Total Revenue" icon={<DollarSign />} value={totals ? formatMoney(totals.revenueCents / 100) : "—"} />
          <StatCard
            label="CAKE Clicks"
            icon={<MousePointerClick />}
            value={totals ? formatNumber(totals.clicks) : "—"}
            note="Visits to your offers, as CAKE counts them"
          />
          <StatCard label="Total Conversions" icon={<Target />} value={totals ? formatNumber(totals.conversions) : "—"} />
        </div>

        <Card>
          <Table aria-label="Offer performance">
            <TableHeader>
              <TableRow>
                <TableHead numeric>Offer ID</TableHead>
                <TableHead>Offer Name</TableHead>
                <TableHead numeric>CAKE Clicks</TableHead>
                <TableHead numeric>Conversions</TableHead>
                <TableHead numeric>Revenue</TableHead>
                <TableHead numeric title="Earnings per CAKE click">
                  EPC
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {offers.isPending ? (
                <TableMessage colSpan={COLUMNS}>
                  <Spinner label="Loading offers" />
                </TableMessage>
              ) : offers.isError ? (
                <TableMessage colSpan={COLUMNS}>
                  <span role="alert" className="text-danger-700">
                    Failed to fetch offers
                    {offers.error.message ? <span className="mt-1 block text-xs text-slate-500">{offers.error.message}</span> : null}
                  </span>
                </TableMessage>
              ) : rows.length === 0 ? (
                <TableMessage colSpan={COLUMNS}>No offer data available for the selected date range</TableMessage>
              ) : (
                rows.map((r) => (
                  <TableRow key={r.offerId}>
                    <TableCell numeric>{r.offerId}</TableCell>
                    <TableCell className="max-w-80 truncate font-medium text-slate-900" title={r.offerName}>
                      {r.offerName || "—"}
                    </TableCell>
                    <TableCell numeric>{formatNumber(r.clicks)}</TableCell>
                    <TableCell numeric>{formatNumber(r.conversions)}</TableCell>
                    <TableCell numeric>{formatMoney(r.revenue)}</TableCell>
                    {/* Three decimals, as EPV and CPV on the Dashboard (docs/screens.md §9). */}
                    <TableCell numeric>{formatMoney(r.epc, 3)}</TableCell>
                  </TableRow>
                ))
              )}
            </TableBody>
          </Table>
        </Card>
      </div>
    </>
  );
}
