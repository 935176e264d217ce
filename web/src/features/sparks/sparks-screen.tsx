import { Sparkles, Trash2 } from "lucide-react";
import { useState } from "react";
import { ScopeNote } from "@/components/scope-note";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input, Textarea } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/toast";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { createSparkSchema, type CreateSparkInput } from "../../../../worker/src/schemas/sparks";
import { useCreateSpark, useDeleteSpark, useSparks, type Spark } from "./api";

function CreateSparkCard() {
  const create = useCreateSpark();
  const form = useSchemaForm(createSparkSchema, { name: "", code: "" });
  const { errors } = form.formState;

  const onValid = (values: CreateSparkInput) =>
    create.mutate(values, {
      onSuccess: () => {
        toast({ title: "Spark created", description: "Your spark has been created successfully." });
        form.reset();
      },
      onError: (err) => {
        showRefusal(form, err, ["name", "code"], "Error", "Failed to create spark");
      },
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Create New Spark</CardTitle>
        <CardDescription>Each spark gets a unique Spark ID to pass as sub3 to the network.</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" onSubmit={form.handleSubmit(onValid)} noValidate>
          <Field label="Spark Name" error={errors.name?.message}>
            <Input {...form.register("name")} placeholder="Creator collab — March" maxLength={255} />
          </Field>
          <Field label="Spark Code" error={errors.code?.message}>
            <Textarea rows={4} {...form.register("code")} className="font-mono text-xs" spellCheck={false} />
          </Field>
          <div>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating..." : "Create Spark"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

export default function SparksScreen() {
  const sparks = useSparks();
  const remove = useDeleteSpark();
  const [deleting, setDeleting] = useState<Spark | null>(null);
  const rows = sparks.data ?? [];

  return (
    <>
      <PageHeader title="Spark Setup" description="Create and manage sparks for tracking campaigns" />
      <div className="grid grid-cols-1 gap-6">
        <ScopeNote kind="sparks" />
        <CreateSparkCard />
        <Card>
          <CardHeader>
            <CardTitle>Existing Sparks</CardTitle>
          </CardHeader>
          <CardContent>
            {sparks.isPending ? (
              <div className="flex justify-center py-8">
                <Spinner />
              </div>
            ) : sparks.isError ? (
              <p className="py-6 text-center text-sm text-danger-600">{sparks.error.message}</p>
            ) : rows.length === 0 ? (
              <EmptyState icon={<Sparkles />} title="No sparks created yet. Create your first spark above." />
            ) : (
              <ul className="grid gap-4">
                {rows.map((s) => (
                  <li key={s.id} className="rounded-lg border border-slate-200 p-4">
                    <div className="flex flex-wrap items-start justify-between gap-3">
                      <div className="min-w-0">
                        <h3 className="font-semibold text-slate-900">{s.name}</h3>
                        <div className="mt-1 flex items-center gap-2 text-sm text-slate-600">
                          <span>Spark ID:</span>
                          <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800">{s.sparkId}</code>
                          <CopyButton text={s.sparkId} label={`Copy Spark ID of ${s.name}`} />
                        </div>
                      </div>
                      <Button variant="ghost" size="icon" aria-label={`Delete ${s.name}`} onClick={() => setDeleting(s)}>
                        <Trash2 className="text-danger-600" />
                      </Button>
                    </div>
                    <pre className="mt-3 max-h-48 overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-50 p-3 font-mono text-xs text-slate-800">
                      {s.code}
                    </pre>
                  </li>
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </div>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete spark?"
        description={`${deleting?.name ?? "This spark"} will be removed. Stats already recorded under its Spark ID stay.`}
        confirmLabel="Delete spark"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast({ title: "Spark deleted", description: "The spark has been deleted successfully." });
              setDeleting(null);
            },
            onError: (err) =>
              toast({ title: "Error", description: err instanceof Error && err.message ? err.message : "Failed to delete spark", variant: "destructive" }),
          })
        }
      />
    </>
  );
}
