import { Plus, Tag } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DeleteDialog } from "@/components/ui/delete-dialog";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input, Textarea } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { ExternalUrl, RowActions } from "@/components/ui/row-actions";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { createOfferSchema, DEFAULT_UTM_TEMPLATE, TEMPLATE_TOKENS, type CreateOfferInput } from "../../../../worker/src/schemas/offers";
import { useDeleteOffer, useOffers, useSaveOffer, type Offer } from "./api";

/** docs/screens.md §2: the template preview is cut at 50 characters plus an ellipsis. */
export const previewTemplate = (t: string) => (t.length > 50 ? `${t.slice(0, 50)}...` : t);

function OfferDialog({ offer, onClose }: { offer: Offer | null; onClose(): void }) {
  const save = useSaveOffer();
  const editing = offer !== null;
  // The API's own schema: each field says what is wrong with it, as the server would.
  const form = useSchemaForm(createOfferSchema, { name: offer?.name ?? "", url: offer?.url ?? "", utmTemplate: offer?.utmTemplate ?? DEFAULT_UTM_TEMPLATE });
  const { errors } = form.formState;

  const insertToken = (token: string) =>
    form.setValue("utmTemplate", `${form.getValues("utmTemplate")}{${token}}`, { shouldValidate: form.formState.isSubmitted });

  const onValid = (values: CreateOfferInput) =>
    save.mutate(
      { id: offer?.id, ...values },
      {
        onSuccess: () => {
          toast(
            editing
              ? { title: "Offer updated", description: "The offer has been updated successfully." }
              : { title: "Offer created", description: "The offer has been created successfully." },
          );
          onClose();
        },
        onError: (err) => {
          showRefusal(form, err, ["name", "url", "utmTemplate"], "Error", editing ? "Failed to update offer" : "Failed to create offer");
        },
      },
    );
  const onInvalid = () => {
    const { name, url, utmTemplate } = form.getValues();
    if (!name.trim() || !url.trim() || !utmTemplate.trim())
      toast({ title: "Validation error", description: "Please provide name, URL, and UTM template", variant: "destructive" });
  };

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={editing ? "Edit Offer" : "Create New Offer"}
      description="Exit clicks go to the offer URL with the template's parameters filled in per click."
      className="max-w-xl"
    >
      <form className="grid gap-4" onSubmit={form.handleSubmit(onValid, onInvalid)} noValidate>
        <Field label="Name" error={errors.name?.message}>
          <Input {...form.register("name")} placeholder="Sweepstakes US" maxLength={255} />
        </Field>
        <Field label="URL" error={errors.url?.message}>
          <Input type="url" {...form.register("url")} placeholder="https://network.example.com/?a=123&c=456" />
        </Field>
        <Field label="UTM Template" error={errors.utmTemplate?.message} hint="Appended to the offer URL; tokens are replaced per click and URL-encoded.">
          <Textarea rows={3} {...form.register("utmTemplate")} className="font-mono text-xs" spellCheck={false} />
        </Field>
        <div>
          <p className="mb-1.5 text-xs font-medium text-slate-600">Available tokens (click to add)</p>
          <div className="flex flex-wrap gap-1.5">
            {TEMPLATE_TOKENS.map((t) => (
              <button
                key={t}
                type="button"
                onClick={() => insertToken(t)}
                className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs text-slate-700 hover:bg-brand-50 hover:text-brand-800"
              >
                {`{${t}}`}
              </button>
            ))}
          </div>
        </div>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving..." : editing ? "Save Changes" : "Create Offer"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export default function OfferConfigScreen() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const offers = useOffers();
  const remove = useDeleteOffer();
  const [editing, setEditing] = useState<Offer | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Offer | null>(null);
  const rows = offers.data ?? [];
  const columns = admin ? 4 : 3;

  return (
    <>
      <PageHeader
        title="Offer Configuration"
        description="Manage affiliate offers with configurable UTM tracking parameters"
        actions={
          admin ? (
            <Button onClick={() => setEditing(null)}>
              <Plus />
              Add Offer
            </Button>
          ) : null
        }
      />
      <Card>
        <Table aria-label="Offers" phone="cards">
          <TableHeader>
            <TableRow>
              <TableHead>Name</TableHead>
              <TableHead>URL</TableHead>
              <TableHead>UTM Template</TableHead>
              {admin ? <TableHead className="text-right">Actions</TableHead> : null}
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows
              query={offers}
              rows={rows}
              colSpan={columns}
              loading="Loading offers..."
              emptyState={
                <EmptyState icon={<Tag />} title="No offers configured">
                  {admin ? "Click Add Offer to create your first offer." : null}
                </EmptyState>
              }
            >
              {(o) => (
                <TableRow key={o.id}>
                  <TableCell cardRole="title" className="font-medium text-slate-900">
                    {o.name}
                  </TableCell>
                  <TableCell label="URL" className="max-w-xs">
                    <ExternalUrl url={o.url} />
                  </TableCell>
                  <TableCell label="UTM Template" className="font-mono text-xs text-slate-600" title={o.utmTemplate}>
                    {previewTemplate(o.utmTemplate)}
                  </TableCell>
                  {admin ? (
                    <TableCell cardRole="actions">
                      <RowActions name={o.name} onEdit={() => setEditing(o)} onDelete={() => setDeleting(o)} />
                    </TableCell>
                  ) : null}
                </TableRow>
              )}
            </QueryRows>
          </TableBody>
        </Table>
      </Card>
      {editing !== undefined ? <OfferDialog key={editing?.id ?? "new"} offer={editing} onClose={() => setEditing(undefined)} /> : null}
      <DeleteDialog
        item={deleting}
        onClose={() => setDeleting(null)}
        remove={remove}
        noun="offer"
        description={(item) => `Campaigns using ${item?.name ?? "this offer"} keep running but lose their exit destination until you pick another offer.`}
      />
    </>
  );
}
