import { useQuery } from "@tanstack/react-query";
import { FileText, Pencil, Trash2 } from "lucide-react";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input, Textarea } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Select } from "@/components/ui/select";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { formatDate, formatMoney } from "@/lib/format";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { useReportDays } from "@/lib/report-days";
import { useSearchState } from "@/lib/url-state";
import { formatCents, parseCents } from "../../../../worker/src/lib/money";
import { idParam } from "../../../../worker/src/schemas/common";
import { invoiceSchema, type InvoiceInput } from "../../../../worker/src/schemas/invoices";
import { mediaBuyerSuggestionsQuery, useDeleteInvoice, useInvoices, useSaveInvoice, type Invoice } from "./api";

interface FormState {
  mediaBuyer: string;
  invoiceDate: string;
  amountPaid: string;
  revenueSharePercent: string;
  profit: string;
  notes: string;
}

/** A new invoice, dated today in the report time zone (the day every screen calls today). */
const blank = (today: string): FormState => ({
  mediaBuyer: "",
  invoiceDate: today,
  amountPaid: "",
  revenueSharePercent: "",
  profit: "",
  notes: "",
});

const fromInvoice = (i: Invoice): FormState => ({
  mediaBuyer: i.mediaBuyer,
  invoiceDate: i.invoiceDate,
  amountPaid: i.amountPaid,
  revenueSharePercent: i.revenueSharePercent,
  profit: i.profit,
  notes: i.notes ?? "",
});

/**
 * The screen's state in the URL: the media buyer the history shows (`buyer`, the invoice's own
 * field schema) and the invoice being edited (`edit`, the id the API's PATCH takes), so a refresh
 * or a pasted link reopens the same history and the same invoice in the form.
 */
const searchSchema = z.object({ buyer: invoiceSchema.shape.mediaBuyer.optional(), edit: idParam.shape.id.optional() });
const SEARCH_DEFAULTS = {};
const ALL_BUYERS = "__all__";

/** Cents added up through the one money parser: no floating-point sums of dollars. */
const sumOf = (rows: Invoice[], pick: (i: Invoice) => string) => formatMoney(formatCents(rows.reduce((sum, i) => sum + (parseCents(pick(i)) ?? 0), 0)));

export default function InvoicingScreen() {
  const invoices = useInvoices();
  const suggestions = useQuery(mediaBuyerSuggestionsQuery);
  const save = useSaveInvoice();
  const remove = useDeleteInvoice();
  // The API's own schema: every field's problem is said under it, as the server would say it.
  const { todayDay } = useReportDays();
  const form = useSchemaForm(invoiceSchema, blank(todayDay));
  const { errors } = form.formState;
  const { value: search, update: updateSearch } = useSearchState(searchSchema, SEARCH_DEFAULTS);
  const [deleting, setDeleting] = useState<Invoice | null>(null);
  const listId = useId();
  const all = useMemo(() => invoices.data ?? [], [invoices.data]);
  const editingInvoice = search.edit === undefined ? undefined : all.find((i) => i.id === search.edit);
  const editingId = editingInvoice?.id ?? null;

  // The form follows the invoice the URL names (Edit, Back, Forward, a refresh); an id no longer in
  // the list (deleted, or a stale link) drops out of the URL and the form is a new invoice again.
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (editingId === shown.current) return;
    form.reset(editingInvoice ? fromInvoice(editingInvoice) : blank(todayDay));
    shown.current = editingId;
  }, [editingId, editingInvoice, form, todayDay]);
  useEffect(() => {
    if (search.edit !== undefined && invoices.isSuccess && editingId === null) updateSearch({ edit: null }, { replace: true });
  }, [search.edit, invoices.isSuccess, editingId, updateSearch]);

  const reset = () => {
    form.reset(blank(todayDay));
    if (search.edit !== undefined) updateSearch({ edit: null });
  };

  const buyers = useMemo(() => [...new Set(all.map((i) => i.mediaBuyer))].sort((a, b) => a.localeCompare(b)), [all]);
  const rows = search.buyer === undefined ? all : all.filter((i) => i.mediaBuyer === search.buyer);

  const onValid = (values: InvoiceInput) => {
    const editing = editingId !== null;
    save.mutate(
      { ...values, id: editingId ?? undefined },
      {
        onSuccess: () => {
          toast({
            title: editing ? "Invoice updated successfully" : "Invoice created successfully",
            description: `${values.mediaBuyer}, ${formatDate(values.invoiceDate)}`,
          });
          reset();
        },
        onError: (err) => {
          showRefusal(
            form,
            err,
            ["mediaBuyer", "invoiceDate", "amountPaid", "revenueSharePercent", "profit", "notes"],
            editing ? "Error updating invoice" : "Error creating invoice",
            editing ? "Failed to update invoice" : "Failed to create invoice",
          );
        },
      },
    );
  };

  return (
    <>
      <PageHeader title="Invoicing" description="Record what each media buyer was paid and keep the history." />
      <div className="grid grid-cols-1 gap-6">
        <Card>
          <CardHeader>
            <CardTitle>{editingId !== null ? "Edit Invoice" : "Create Invoice"}</CardTitle>
            <CardDescription>Amounts in dollars with up to two decimals.</CardDescription>
          </CardHeader>
          <CardContent>
            <form className="grid gap-4" onSubmit={form.handleSubmit(onValid)} noValidate>
              {/* items-start: a field without an error keeps its input level with its neighbours'. */}
              <div className="grid grid-cols-1 items-start gap-4 sm:grid-cols-2 lg:grid-cols-3">
                <Field label="Media Buyer" error={errors.mediaBuyer?.message}>
                  <Input {...form.register("mediaBuyer")} list={listId} maxLength={255} />
                </Field>
                <datalist id={listId}>
                  {(suggestions.data?.mediaBuyers ?? []).map((m) => (
                    <option key={m} value={m} />
                  ))}
                </datalist>
                <Field label="Invoice Date" error={errors.invoiceDate?.message}>
                  <Input type="date" {...form.register("invoiceDate")} />
                </Field>
                <Field label="Amount Paid ($)" error={errors.amountPaid?.message}>
                  <Input type="number" step={0.01} min={0} inputMode="decimal" className="tabular" {...form.register("amountPaid")} />
                </Field>
                <Field label="Revenue Share (%)" error={errors.revenueSharePercent?.message}>
                  <Input type="number" step={0.01} min={0} max={100} inputMode="decimal" className="tabular" {...form.register("revenueSharePercent")} />
                </Field>
                <Field label="Profit ($)" error={errors.profit?.message}>
                  <Input type="number" step={0.01} inputMode="decimal" className="tabular" {...form.register("profit")} />
                </Field>
              </div>
              <Field label="Notes (optional)" error={errors.notes?.message}>
                <Textarea rows={2} {...form.register("notes")} maxLength={2000} />
              </Field>
              <div className="flex gap-2">
                <Button type="submit" disabled={save.isPending}>
                  {save.isPending ? "Saving..." : editingId !== null ? "Update Invoice" : "Create Invoice"}
                </Button>
                {editingId !== null ? (
                  <Button variant="secondary" onClick={reset}>
                    Cancel
                  </Button>
                ) : null}
              </div>
            </form>
          </CardContent>
        </Card>

        <Card>
          <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div className="grid gap-1">
              <CardTitle>Invoice History</CardTitle>
              {rows.length ? (
                <CardDescription className="tabular" aria-live="polite">
                  {rows.length} {rows.length === 1 ? "invoice" : "invoices"} · paid {sumOf(rows, (i) => i.amountPaid)} · profit {sumOf(rows, (i) => i.profit)}
                </CardDescription>
              ) : null}
            </div>
            {buyers.length > 1 || search.buyer !== undefined ? (
              <Select
                aria-label="Media buyer"
                className="sm:w-56"
                value={search.buyer ?? ALL_BUYERS}
                onValueChange={(v) => updateSearch({ buyer: v === ALL_BUYERS ? null : v })}
                options={[
                  { value: ALL_BUYERS, label: "All Media Buyers" },
                  ...[...new Set([...buyers, ...(search.buyer === undefined ? [] : [search.buyer])])].map((b) => ({ value: b, label: b })),
                ]}
              />
            ) : null}
          </CardHeader>
          <Table aria-label="Invoice history" phone="cards">
            <TableHeader>
              <TableRow>
                <TableHead>Date</TableHead>
                <TableHead>Media Buyer</TableHead>
                <TableHead numeric>Amount Paid</TableHead>
                <TableHead numeric>Rev Share %</TableHead>
                <TableHead numeric>Profit</TableHead>
                <TableHead>Notes</TableHead>
                <TableHead className="text-right">Actions</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              <QueryRows
                query={invoices}
                rows={rows}
                colSpan={7}
                loading="Loading invoices..."
                emptyState={
                  search.buyer === undefined ? (
                    <EmptyState icon={<FileText />} title="No invoices yet. Create your first invoice above." />
                  ) : (
                    <EmptyState icon={<FileText />} title={`No invoices for ${search.buyer}.`} />
                  )
                }
              >
                {(i) => (
                  <TableRow key={i.id} className={i.id === editingId ? "bg-brand-50" : undefined}>
                    {/* The pinned first cell has its own background: it takes the row's highlight too. */}
                    <TableCell label="Date" className={cn("tabular whitespace-nowrap", i.id === editingId && "first:bg-brand-50")}>
                      {formatDate(i.invoiceDate)}
                    </TableCell>
                    <TableCell cardRole="title" className="font-medium text-slate-900">
                      {i.mediaBuyer}
                    </TableCell>
                    <TableCell label="Amount Paid" numeric>
                      {formatMoney(i.amountPaid)}
                    </TableCell>
                    <TableCell label="Rev Share" numeric>
                      {Number(i.revenueSharePercent).toFixed(2)}%
                    </TableCell>
                    <TableCell label="Profit" numeric className={Number(i.profit) < 0 ? "text-danger-600" : undefined}>
                      {formatMoney(i.profit)}
                    </TableCell>
                    <TableCell label="Notes" className="max-w-64 truncate text-slate-600" title={i.notes ?? undefined}>
                      {i.notes || "—"}
                    </TableCell>
                    <TableCell cardRole="actions">
                      <div className="flex justify-end gap-1">
                        <Button
                          variant="ghost"
                          size="icon"
                          aria-label={`Edit invoice of ${i.mediaBuyer}, ${formatDate(i.invoiceDate)}`}
                          onClick={() => {
                            // The form follows the URL (the effect above fills it with this invoice).
                            updateSearch({ edit: i.id });
                            window.scrollTo({ top: 0, behavior: "smooth" });
                          }}
                        >
                          <Pencil />
                        </Button>
                        <Button
                          variant="ghost"
                          size="icon"
                          aria-label={`Delete invoice of ${i.mediaBuyer}, ${formatDate(i.invoiceDate)}`}
                          onClick={() => setDeleting(i)}
                        >
                          <Trash2 className="text-danger-600" />
                        </Button>
                      </div>
                    </TableCell>
                  </TableRow>
                )}
              </QueryRows>
            </TableBody>
          </Table>
        </Card>
      </div>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete invoice?"
        description="Are you sure you want to delete this invoice?"
        confirmLabel="Delete invoice"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast({ title: "Invoice deleted successfully", description: `${deleting.mediaBuyer}, ${formatDate(deleting.invoiceDate)}` });
              if (deleting.id === editingId) reset();
              setDeleting(null);
            },
            onError: (err) => toastError("Error deleting invoice", err, "Failed to delete invoice"),
          })
        }
      />
    </>
  );
}
