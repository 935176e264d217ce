import { PanelsTopLeft, Plus } from "lucide-react";
import { useState } from "react";
import { DeletionImpactSummary, useDeletionImpact } from "@/components/deletion-impact";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DeleteDialog } from "@/components/ui/delete-dialog";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { ExternalUrl, RowActions } from "@/components/ui/row-actions";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { createLanderSchema, type CreateLanderInput } from "../../../../worker/src/schemas/landers";
import { useDeleteLander, useLanders, useSaveLander, type Lander } from "./api";

function LanderDialog({ lander, open, onOpenChange }: { lander: Lander | null; open: boolean; onOpenChange(o: boolean): void }) {
  const save = useSaveLander();
  const editing = lander !== null;
  // The server's own schema: the form and the API give the same message, under the field.
  const form = useSchemaForm(createLanderSchema, { name: lander?.name ?? "", url: lander?.url ?? "" });
  const { errors } = form.formState;

  const onValid = (values: CreateLanderInput) =>
    save.mutate(
      { id: lander?.id, ...values },
      {
        onSuccess: () => {
          toast({ title: editing ? "Lander updated" : "Lander created", description: values.name.trim() });
          onOpenChange(false);
        },
        onError: (err) => {
          showRefusal(form, err, ["name", "url"], "Error", editing ? "Failed to update lander" : "Failed to create lander");
        },
      },
    );
  const onInvalid = () => {
    const { name, url } = form.getValues();
    // docs/screens.md §8's toast for the blank form; each field also says what it needs.
    if (!name.trim() || !url.trim()) toast({ title: "Validation error", description: "Please provide both name and URL", variant: "destructive" });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={editing ? "Edit Lander" : "Add Lander"}
      description="The landing page visitors reach from a campaign's tracking link."
    >
      <form className="grid gap-4" onSubmit={form.handleSubmit(onValid, onInvalid)} noValidate>
        <Field label="Name" error={errors.name?.message}>
          <Input {...form.register("name")} placeholder="Spring quiz lander" maxLength={255} />
        </Field>
        <Field label="URL" error={errors.url?.message}>
          <Input type="url" {...form.register("url")} placeholder="https://lander.example.com/quiz" />
        </Field>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving..." : editing ? "Save Changes" : "Add Lander"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export default function LandersScreen() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const landers = useLanders();
  const remove = useDeleteLander();
  const [editing, setEditing] = useState<Lander | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Lander | null>(null);
  const impact = useDeletionImpact("landers", deleting);
  const columns = admin ? 3 : 2;
  const rows = landers.data ?? [];

  return (
    <>
      <PageHeader
        title="Landers"
        description="Landing pages your campaigns send visitors to."
        actions={
          admin ? (
            <Button onClick={() => setEditing(null)}>
              <Plus />
              Add Lander
            </Button>
          ) : null
        }
      />
      <Card>
        <Table aria-label="Landers" phone="cards">
          <TableHeader>
            <TableRow>
              <TableHead>Name</TableHead>
              <TableHead>URL</TableHead>
              {admin ? <TableHead className="text-right">Actions</TableHead> : null}
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows
              query={landers}
              rows={rows}
              colSpan={columns}
              loading="Loading landers..."
              emptyState={
                <EmptyState icon={<PanelsTopLeft />} title="No landers available">
                  {admin ? "Click Add Lander to add your first landing page." : null}
                </EmptyState>
              }
            >
              {(l) => (
                <TableRow key={l.id}>
                  <TableCell cardRole="title" className="font-medium text-slate-900">
                    {l.name}
                  </TableCell>
                  <TableCell label="URL" className="max-w-md">
                    <ExternalUrl url={l.url} />
                  </TableCell>
                  {admin ? (
                    <TableCell cardRole="actions">
                      <RowActions name={l.name} onEdit={() => setEditing(l)} onDelete={() => setDeleting(l)} />
                    </TableCell>
                  ) : null}
                </TableRow>
              )}
            </QueryRows>
          </TableBody>
        </Table>
      </Card>
      {editing !== undefined ? <LanderDialog key={editing?.id ?? "new"} lander={editing} open onOpenChange={(o) => !o && setEditing(undefined)} /> : null}
      <DeleteDialog
        item={deleting}
        onClose={() => setDeleting(null)}
        remove={remove}
        noun="lander"
        preparing={impact.isPending}
        description={(item) => (
          <DeletionImpactSummary
            name={item?.name ?? "this lander"}
            kind="lander"
            impact={impact}
            consequence="Revenue and spend already synced stay in the Stats totals. This cannot be undone."
          />
        )}
      />
    </>
  );
}
