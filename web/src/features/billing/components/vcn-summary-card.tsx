import { useQuery } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { QueryRows, Table, TableBody, TableCell, TableFooter, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMoney } from "@/lib/format";
import { useState } from "react";
import { vcnSummaryQuery } from "../api";

/**
 * On a phone the three columns fit the card, so no total is cut off at its edge: a long nickname
 * wraps between words, the figures never do, and the cells are narrower.
 */
const NICKNAME = "whitespace-normal break-words max-sm:px-2";
const FIGURE = "whitespace-nowrap max-sm:px-2";

/** Spend per card nickname (PENDING + CLEARED), optionally for an inclusive date range. */
export function VcnSummaryCard() {
  const [startDate, setStartDate] = useState("");
  const [endDate, setEndDate] = useState("");
  const invalid = startDate && endDate && startDate > endDate;
  const summary = useQuery({ ...vcnSummaryQuery(startDate, endDate), enabled: !invalid });
  const datesSet = Boolean(startDate || endDate);
  const rows = summary.data?.rows ?? [];

  return (
    <Card>
      <CardHeader>
        <CardTitle>VCN Spend Summary</CardTitle>
        <CardDescription>Pending and cleared spend by virtual-card nickname.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {/* Top-aligned, so the end date's error below its input does not push the start date
            down; the button sits level with the inputs (label line + gap above it). */}
        <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,11rem)_minmax(0,11rem)_auto]">
          <Field label="Start Date">
            <Input type="date" className="w-full" value={startDate} max={endDate || undefined} onChange={(e) => setStartDate(e.target.value)} />
          </Field>
          <Field label="End Date" error={invalid ? "End date must be on or after the start date" : undefined}>
            <Input type="date" className="w-full" value={endDate} min={startDate || undefined} onChange={(e) => setEndDate(e.target.value)} />
          </Field>
          {datesSet ? (
            <Button
              variant="secondary"
              className="justify-self-start sm:mt-6.5"
              onClick={() => {
                setStartDate("");
                setEndDate("");
              }}
            >
              Clear Dates
            </Button>
          ) : null}
        </div>
        <Table aria-label="VCN spend summary" stickyFirstColumn={false}>
          <TableHeader>
            <TableRow>
              <TableHead className={NICKNAME}>VCN Nickname</TableHead>
              {/* "Transactions" is the widest word in the table: a phone reads "Count" (same name to a screen reader). */}
              <TableHead numeric className={FIGURE} aria-label="Transactions">
                <span className="sm:hidden">Count</span>
                <span className="max-sm:hidden">Transactions</span>
              </TableHead>
              <TableHead numeric className={FIGURE}>
                Total Spend
              </TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows
              // A reversed range disables the query: it says "no data" rather than loading forever.
              query={{ isPending: summary.isPending && !invalid, isError: summary.isError, error: summary.error }}
              rows={rows}
              colSpan={3}
              loading="Loading summary..."
              empty={
                <>
                  No transaction data available
                  {datesSet ? <span className="mt-1 block text-xs">Try adjusting the date range</span> : null}
                </>
              }
            >
              {(r) => (
                <TableRow key={r.vcnNickname}>
                  <TableCell className={`font-medium text-slate-900 ${NICKNAME}`}>{r.vcnNickname}</TableCell>
                  <TableCell numeric className={FIGURE}>
                    {r.transactions.toLocaleString("en-US")}
                  </TableCell>
                  <TableCell numeric className={FIGURE}>
                    {formatMoney(r.totalSpend)}
                  </TableCell>
                </TableRow>
              )}
            </QueryRows>
          </TableBody>
          {rows.length > 0 && summary.data ? (
            <TableFooter>
              <TableRow>
                <TableCell className={NICKNAME}>Total</TableCell>
                <TableCell numeric className={FIGURE}>
                  {summary.data.total.transactions.toLocaleString("en-US")}
                </TableCell>
                <TableCell numeric className={FIGURE}>
                  {formatMoney(summary.data.total.totalSpend)}
                </TableCell>
              </TableRow>
            </TableFooter>
          ) : null}
        </Table>
      </CardContent>
    </Card>
  );
}
