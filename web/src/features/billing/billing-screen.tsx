import { useQuery } from "@tanstack/react-query";
import { CheckCircle2, Clock, CreditCard, XCircle } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { ScopeNote } from "@/components/scope-note";
import { Badge, type BadgeProps } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle, StatCard } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page";
import { Pagination } from "@/components/ui/pagination";
import { Select } from "@/components/ui/select";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { isAdmin, useUser } from "@/lib/auth";
import { formatDate, formatMoney } from "@/lib/format";
import { useDebounced } from "@/lib/use-debounced";
import { useSearchState } from "@/lib/url-state";
import { transactionListQuerySchema } from "../../../../worker/src/schemas/transactions";
import { useTransactions, vcnLast4Query, type TransactionFilters } from "./api";
import { UploadCard } from "./components/upload-card";
import { VcnSummaryCard } from "./components/vcn-summary-card";
import { BILLING_DEFAULTS, billingStateOf } from "./url-state";

const NO_FILTERS: TransactionFilters = { status: "all", vcnLast4: "all", minAmount: "", maxAmount: "" };
const AMOUNT = /^-?\d{1,8}(\.\d{1,2})?$/;

/** docs/screens.md §4: CLEARED default, PENDING secondary, DECLINED destructive. */
const STATUS_BADGE: Record<string, BadgeProps["variant"]> = { CLEARED: "default", PENDING: "secondary", DECLINED: "destructive" };

const dash = (v: string | null | undefined) => (v === null || v === undefined || v === "" ? "—" : v);

export default function BillingScreen() {
  const { data: user } = useUser();
  const { value: search, update } = useSearchState(transactionListQuerySchema, BILLING_DEFAULTS);
  const { filters: applied, page } = billingStateOf(search);
  const setPage = (p: number) => update({ page: p });
  // The amounts as typed: the URL takes them once they settle into amounts ("1." is not one yet).
  const [amounts, setAmounts] = useState({ minAmount: applied.minAmount, maxAmount: applied.maxAmount });
  const settledAmounts = useDebounced(amounts);
  // The amounts this screen last put in the URL. The URL coming back with them is no reason to touch
  // the inputs: the other one may have been typed in meanwhile, and would be wiped.
  const written = useRef({ minAmount: applied.minAmount, maxAmount: applied.maxAmount });
  useEffect(() => {
    if (applied.minAmount === written.current.minAmount && applied.maxAmount === written.current.maxAmount) return;
    // Back, Forward or Clear moved the URL: the inputs follow it.
    written.current = { minAmount: applied.minAmount, maxAmount: applied.maxAmount };
    setAmounts({ minAmount: applied.minAmount, maxAmount: applied.maxAmount });
  }, [applied.minAmount, applied.maxAmount]);
  useEffect(() => {
    const valid = (v: string) => v.trim() === "" || AMOUNT.test(v.trim());
    if (settledAmounts.minAmount === applied.minAmount && settledAmounts.maxAmount === applied.maxAmount) return;
    if (!valid(settledAmounts.minAmount) || !valid(settledAmounts.maxAmount)) return;
    written.current = { minAmount: settledAmounts.minAmount.trim(), maxAmount: settledAmounts.maxAmount.trim() };
    update({ ...written.current, page: null }, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a settled change of the typed amounts writes the URL
  }, [settledAmounts]);
  const filters: TransactionFilters = { ...applied, ...amounts };
  const list = useTransactions(applied, page);
  const last4 = useQuery(vcnLast4Query);
  const active = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);

  // docs/screens.md §4: the page resets to 1 whenever a filter changes or is cleared.
  const setFilter = (patch: Partial<TransactionFilters>) => {
    const { minAmount, maxAmount, ...selects } = patch;
    if (minAmount !== undefined || maxAmount !== undefined) setAmounts((a) => ({ minAmount: minAmount ?? a.minAmount, maxAmount: maxAmount ?? a.maxAmount }));
    // Selects and Clear apply at once; typed amounts once they settle (above).
    const urlPatch: Record<string, string | null> = Object.fromEntries(Object.entries(selects).map(([k, v]) => [k, v === "all" ? null : v]));
    if (patch === NO_FILTERS) Object.assign(urlPatch, { minAmount: null, maxAmount: null });
    if (Object.keys(urlPatch).length) update({ ...urlPatch, page: null });
  };

  // Said under Max, where the mistake usually is; the call still goes out and matches nothing.
  const min = Number(filters.minAmount);
  const max = Number(filters.maxAmount);
  const rangeError =
    filters.minAmount.trim() && filters.maxAmount.trim() && Number.isFinite(min) && Number.isFinite(max) && min > max ? "Max must be at least Min" : undefined;

  const summary = list.data?.summary;
  const rows = list.data?.transactions ?? [];

  return (
    <>
      {/* Named as in the sidebar; the statements themselves keep their name on the upload card. */}
      <PageHeader title="Transactions" description="Virtual-card transactions from your card provider's billing statements." />
      <div className="grid grid-cols-1 gap-6">
        <ScopeNote kind="cards" />
        {/* Four in a row only where each card keeps its figure and note on one line (the content
            width, not the window's: the sidebar may be open or not); two a row on a phone, so the
            counts take half a screen, not all of it. */}
        <div className="@container">
          <div className="grid grid-cols-2 gap-4 @5xl:grid-cols-4">
            <StatCard
              label="Total Transactions"
              icon={<CreditCard />}
              value={summary ? summary.total.count.toLocaleString("en-US") : "—"}
              note={summary ? `${formatMoney(summary.total.amount)} pending and cleared` : "\u00a0"}
            />
            <StatCard label="Pending" icon={<Clock />} value={summary ? summary.pending.count.toLocaleString("en-US") : "—"} note="Awaiting clearance" />
            <StatCard label="Cleared" icon={<CheckCircle2 />} value={summary ? summary.cleared.count.toLocaleString("en-US") : "—"} note="Completed" />
            <StatCard label="Declined" icon={<XCircle />} value={summary ? summary.declined.count.toLocaleString("en-US") : "—"} note="Failed transactions" />
          </div>
        </div>

        {/* Side by side, the upload card is as tall as the summary: their bottoms line up. */}
        <div className={isAdmin(user) ? "grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]" : "grid grid-cols-1 gap-6"}>
          <VcnSummaryCard />
          {isAdmin(user) ? <UploadCard /> : null}
        </div>

        <Card>
          <CardHeader className="flex-row items-center justify-between">
            <CardTitle>Filters</CardTitle>
            {active ? (
              <Button variant="ghost" size="sm" onClick={() => setFilter(NO_FILTERS)}>
                Clear
              </Button>
            ) : null}
          </CardHeader>
          {/* items-start: an error under one field does not move its neighbours. */}
          <CardContent className="grid grid-cols-1 items-start gap-4 sm:grid-cols-2 lg:grid-cols-4">
            <Field label="Status">
              <Select
                value={filters.status}
                onValueChange={(status) => setFilter({ status })}
                options={[
                  { value: "all", label: "All statuses" },
                  { value: "PENDING", label: "Pending" },
                  { value: "CLEARED", label: "Cleared" },
                  { value: "DECLINED", label: "Declined" },
                ]}
              />
            </Field>
            <Field label="VCN Last 4">
              <Select
                value={filters.vcnLast4}
                onValueChange={(vcnLast4) => setFilter({ vcnLast4 })}
                options={[{ value: "all", label: "All cards" }, ...(last4.data?.values ?? []).map((v) => ({ value: v, label: v }))]}
              />
            </Field>
            <Field label="Min Amount ($)">
              <Input
                type="number"
                step={0.01}
                inputMode="decimal"
                className="tabular"
                value={filters.minAmount}
                onChange={(e) => setFilter({ minAmount: e.target.value })}
              />
            </Field>
            <Field label="Max Amount ($)" error={rangeError}>
              <Input
                type="number"
                step={0.01}
                inputMode="decimal"
                className="tabular"
                value={filters.maxAmount}
                onChange={(e) => setFilter({ maxAmount: e.target.value })}
              />
            </Field>
          </CardContent>
        </Card>

        <Card>
          <Table aria-label="Transactions" phone="cards">
            <TableHeader>
              <TableRow>
                <TableHead>Date</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Merchant</TableHead>
                <TableHead>VCN</TableHead>
                <TableHead>VCN Last 4</TableHead>
                <TableHead numeric>Amount</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              <QueryRows
                query={list}
                rows={rows}
                colSpan={6}
                loading="Loading transactions..."
                failed="Failed to fetch transactions"
                empty={
                  // Filtered to nothing is not the same as nothing uploaded yet.
                  active ? (
                    <span className="inline-flex flex-wrap items-center justify-center gap-x-2 gap-y-1">
                      No transaction matches these filters.
                      <Button variant="link" size="sm" onClick={() => setFilter(NO_FILTERS)}>
                        Clear filters
                      </Button>
                    </span>
                  ) : isAdmin(user) ? (
                    "No transactions found. Upload a CSV file to get started."
                  ) : (
                    // Uploading is for admins: a member is told whose cards these are instead (the note above).
                    "No transactions found for the cards assigned to you."
                  )
                }
              >
                {(t) => (
                  <TableRow key={t.id}>
                    <TableCell cardRole="hidden" className="tabular whitespace-nowrap">
                      {t.transactionDate ? formatDate(t.transactionDate) : "—"}
                    </TableCell>
                    <TableCell cardRole="hidden">
                      <Badge variant={STATUS_BADGE[t.status] ?? "outline"}>{t.status}</Badge>
                    </TableCell>
                    <TableCell cardRole="title" className="max-w-56 truncate max-sm:max-w-none max-sm:font-medium" title={t.merchantName ?? undefined}>
                      {dash(t.merchantName)}
                    </TableCell>
                    <TableCell cardRole="hidden" className="whitespace-nowrap">
                      {dash(t.vcnNickname)}
                    </TableCell>
                    <TableCell cardRole="hidden" className="tabular">
                      {dash(t.vcnLast4)}
                    </TableCell>
                    <TableCell cardRole="actions" numeric className="whitespace-nowrap max-sm:text-base max-sm:font-semibold">
                      {formatMoney(t.authBillingAmount)}
                    </TableCell>
                    {/* A phone's card: the amount and merchant lead (above), then date, status and card on one line. */}
                    <TableCell className="text-xs text-slate-600 sm:hidden">
                      <span className="tabular">{t.transactionDate ? formatDate(t.transactionDate) : "—"}</span>
                      <Badge variant={STATUS_BADGE[t.status] ?? "outline"}>{t.status}</Badge>
                      <span className="truncate">
                        {dash(t.vcnNickname)}
                        {t.vcnLast4 ? <span className="tabular"> ··{t.vcnLast4}</span> : null}
                      </span>
                    </TableCell>
                  </TableRow>
                )}
              </QueryRows>
            </TableBody>
          </Table>
          {list.data ? <Pagination page={page} pageSize={list.data.pageSize} total={list.data.totalRows} onPageChange={setPage} noun="transactions" /> : null}
        </Card>
      </div>
    </>
  );
}
