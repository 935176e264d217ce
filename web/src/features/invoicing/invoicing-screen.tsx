import { useQuery } from "@tanstack/react-query";
import { format } from "date-fns";
import { FileText, Pencil, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input, Textarea } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { formatDate, formatMoney } from "@/lib/format";
import { invoiceSchema } from "../../../../worker/src/schemas/invoices";
import { mediaBuyerSuggestionsQuery, useDeleteInvoice, useInvoices, useSaveInvoice, type Invoice } from "./api";

interface FormState {
  mediaBuyer: string;
  invoiceDate: string;
  amountPaid: string;
  revenueSharePercent: string;
  profit: string;
  notes: string;
}
type Errors = Partial<Record<keyof FormState, string>>;

const blank = (): FormState => ({
  mediaBuyer: "",
  invoiceDate: format(new Date(), "yyyy-MM-dd"),
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

export default function InvoicingScreen() {
  const invoices = useInvoices();
  const suggestions = useQuery(mediaBuyerSuggestionsQuery);
  const save = useSaveInvoice();
  const remove = useDeleteInvoice();
  const [form, setForm] = useState<FormState>(blank);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [deleting, setDeleting] = useState<Invoice | null>(null);
  const listId = useId();

  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const reset = () => {
    setForm(blank());
    setEditingId(null);
    setErrors({});
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = invoiceSchema.safeParse({ ...form, notes: form.notes });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as keyof FormState] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    const editing = editingId !== null;
    save.mutate(
      { ...parsed.data, id: editingId ?? undefined },
      {
        onSuccess: () => {
          toast({
            title: editing ? "Invoice updated successfully" : "Invoice created successfully",
            description: `${parsed.data.mediaBuyer}, ${formatDate(parsed.data.invoiceDate)}`,
          });
          reset();
        },
        onError: (err) =>
          toastError(editing ? "Error updating invoice" : "Error creating invoice", err, editing ? "Failed to update invoice" : "Failed to create invoice"),
      },
    );
  };

  const rows = invoices.data ?? [];

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
            <form className="grid gap-4" onSubmit={onSubmit} noValidate>
              {/* items-start: a field without an error keeps its input level with its neighbours'. */}
              <div className="grid grid-cols-1 items-start gap-4 sm:grid-cols-2 lg:grid-cols-3">
                <Field label="Media Buyer" error={errors.mediaBuyer}>
                  <Input value={form.mediaBuyer} onChange={(e) => set({ mediaBuyer: e.target.value })} list={listId} maxLength={255} />
                </Field>
                <datalist id={listId}>
                  {(suggestions.data?.mediaBuyers ?? []).map((m) => (
                    <option key={m} value={m} />
                  ))}
                </datalist>
                <Field label="Invoice Date" error={errors.invoiceDate}>
                  <Input type="date" value={form.invoiceDate} onChange={(e) => set({ invoiceDate: e.target.value })} />
                </Field>
                <Field label="Amount Paid ($)" error={errors.amountPaid}>
                  <Input
                    type="number"
                    step={0.01}
                    min={0}
                    inputMode="decimal"
                    className="tabular"
                    value={form.amountPaid}
                    onChange={(e) => set({ amountPaid: e.target.value })}
                  />
                </Field>
                <Field label="Revenue Share (%)" error={errors.revenueSharePercent}>
                  <Input
                    type="number"
                    step={0.01}
                    min={0}
                    max={100}
                    inputMode="decimal"
                    className="tabular"
                    value={form.revenueSharePercent}
                    onChange={(e) => set({ revenueSharePercent: e.target.value })}
                  />
                </Field>
                <Field label="Profit ($)" error={errors.profit}>
                  <Input
                    type="number"
                    step={0.01}
                    inputMode="decimal"
                    className="tabular"
                    value={form.profit}
                    onChange={(e) => set({ profit: e.target.value })}
                  />
                </Field>
              </div>
              <Field label="Notes (optional)" error={errors.notes}>
                <Textarea rows={2} value={form.notes} onChange={(e) => set({ notes: e.target.value })} maxLength={2000} />
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
          <CardHeader>
            <CardTitle>Invoice History</CardTitle>
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
                emptyState={<EmptyState icon={<FileText />} title="No invoices yet. Create your first invoice above." />}
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
                            setForm(fromInvoice(i));
                            setEditingId(i.id);
                            setErrors({});
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
