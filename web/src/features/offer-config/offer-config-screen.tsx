import { Plus, Tag, TriangleAlert, Wrench } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DeletionImpactSummary, useDeletionImpact } from "@/components/deletion-impact";
import { DeleteDialog } from "@/components/ui/delete-dialog";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input, Textarea } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { ExternalUrl, RowActions } from "@/components/ui/row-actions";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import {
  attributableTemplate,
  attributionProblem,
  createOfferSchema,
  DEFAULT_UTM_TEMPLATE,
  TEMPLATE_TOKENS,
  type CreateOfferInput,
} from "../../../../worker/src/schemas/offers";
import { useDeleteOffer, useOffers, useSaveOffer, type Offer } from "./api";

/** docs/screens.md §2: the template preview is cut at 50 characters plus an ellipsis. */
export const previewTemplate = (t: string) => (t.length > 50 ? `${t.slice(0, 50)}...` : t);

/**
 * Why a template's conversions cannot reach their campaign, and the fix: the same rule the server
 * answers with, from the shared schema (docs/product-rules.md "Offer templates and attribution").
 */
function AttributionWarning({ problem, fix, children }: { problem: string; fix: string; children?: ReactNode }) {
  return (
    <div
      className="mt-2 grid gap-1.5 rounded-md border border-amber-200 bg-amber-50 p-2.5 font-sans text-xs text-amber-900"
      role="note"
      aria-label="Cannot be attributed"
    >
      <p className="flex items-start gap-1.5 font-medium">
        <TriangleAlert className="mt-px size-3.5 shrink-0" aria-hidden="true" />
        <span>Cannot be attributed. {problem}</span>
      </p>
      <p className="break-all">
        The fix sets it to <code className="font-mono">{fix}</code>
      </p>
      {children}
    </div>
  );
}

/** One click: the template rewritten so sub2 is {clickId}, saved through the normal edit (audited like any). */
function FixTemplateButton({ offer }: { offer: Offer }) {
  const save = useSaveOffer();
  const fixed = attributableTemplate(offer.utmTemplate);
  return (
    <Button
      size="sm"
      variant="secondary"
      className="justify-self-start"
      disabled={save.isPending}
      aria-label={`Fix the template of ${offer.name}`}
      onClick={() =>
        save.mutate(
          // Name and URL as they are: the audit entry names only the template's change.
          { id: offer.id, name: offer.name, url: offer.url, utmTemplate: fixed },
          {
            onSuccess: () => toast({ title: "Template fixed", description: `${offer.name} now sends the click id in sub2.` }),
            onError: (err) => toastError("Error", err, "Failed to fix the template"),
          },
        )
      }
    >
      <Wrench />
      {save.isPending ? "Fixing..." : "Fix template"}
    </Button>
  );
}

function OfferDialog({ offer, onClose }: { offer: Offer | null; onClose(): void }) {
  const save = useSaveOffer();
  const editing = offer !== null;
  // The API's own schema: each field says what is wrong with it, as the server would.
  const form = useSchemaForm(createOfferSchema, { name: offer?.name ?? "", url: offer?.url ?? "", utmTemplate: offer?.utmTemplate ?? DEFAULT_UTM_TEMPLATE });
  const { errors } = form.formState;
  // A valid template that cannot be attributed is saved only once the admin confirms it.
  const [unattributable, setUnattributable] = useState<CreateOfferInput | null>(null);
  // As it will be stored (utmTemplateSchema: trimmed, without a leading ? or &).
  const template = (form.watch("utmTemplate") ?? "").trim().replace(/^[?&]+/, "");
  const problem = template ? attributionProblem(template) : null;

  const insertToken = (token: string) =>
    form.setValue("utmTemplate", `${form.getValues("utmTemplate") ?? ""}{${token}}`, { shouldValidate: form.formState.isSubmitted });
  const fixTemplate = () => form.setValue("utmTemplate", attributableTemplate(template), { shouldValidate: form.formState.isSubmitted });

  const onValid = (values: CreateOfferInput) => (values.utmTemplate && attributionProblem(values.utmTemplate) ? setUnattributable(values) : saveOffer(values));
  const saveOffer = (values: CreateOfferInput) =>
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
    const { name, url, utmTemplate = "" } = form.getValues();
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
        <Field
          label="UTM Template"
          error={errors.utmTemplate?.message}
          hint="Appended to the offer URL; tokens are replaced per click and URL-encoded. The Stats read sub1 as the media buyer, sub2 as the click id and sub3 as the spark."
        >
          <Textarea rows={3} {...form.register("utmTemplate")} className="font-mono text-xs" spellCheck={false} />
        </Field>
        {problem && !errors.utmTemplate ? (
          <AttributionWarning problem={problem} fix={attributableTemplate(template)}>
            <Button size="sm" variant="secondary" className="justify-self-start" onClick={fixTemplate}>
              <Wrench />
              Use the fixed template
            </Button>
          </AttributionWarning>
        ) : null}
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
      <ConfirmDialog
        open={unattributable !== null}
        onOpenChange={(o) => !o && setUnattributable(null)}
        title="Save a template that cannot be attributed?"
        description={
          <>
            <p>{unattributable?.utmTemplate ? attributionProblem(unattributable.utmTemplate) : null}</p>
            <p>Conversions through this offer will not count for any campaign, media buyer or spark until the template sends the click id as sub2.</p>
          </>
        }
        confirmLabel="Save anyway"
        busy={save.isPending}
        onConfirm={() => {
          if (unattributable) saveOffer(unattributable);
          setUnattributable(null);
        }}
      />
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
  const impact = useDeletionImpact("offers", deleting);
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
                  <TableCell label="UTM Template" className="max-w-md text-xs text-slate-600">
                    <span className="font-mono" title={o.utmTemplate}>
                      {previewTemplate(o.utmTemplate)}
                    </span>
                    {o.attributionProblem ? (
                      <AttributionWarning problem={o.attributionProblem} fix={attributableTemplate(o.utmTemplate)}>
                        <FixTemplateButton offer={o} />
                      </AttributionWarning>
                    ) : null}
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
        preparing={impact.isPending}
        description={(item) => (
          <DeletionImpactSummary
            name={item?.name ?? "this offer"}
            kind="offer"
            impact={impact}
            consequence="Those campaigns keep running, but their exit links show a not-found page until you pick another offer. Revenue already synced stays in the Stats. This cannot be undone."
          />
        )}
      />
    </>
  );
}
