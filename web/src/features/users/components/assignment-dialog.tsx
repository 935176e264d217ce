import { useEffect, useId, useMemo, useState } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { useSchemaForm } from "@/lib/schema-form";
import { assignments, useAssignment, useSaveAssignment, type AssignmentKind } from "../api";

/** The checked values, refused with the API's own message where its schema refuses the call's body. */
function checkedListSchema(kind: AssignmentKind) {
  const { body, schema } = assignments[kind];
  return z.object({ values: z.array(z.string()) }).superRefine(({ values }, ctx) => {
    const parsed = schema.safeParse(body(values));
    if (!parsed.success) ctx.addIssue({ code: "custom", path: ["values"], message: parsed.error.issues[0]?.message ?? "This list cannot be saved" });
  });
}

/** Lists without a typed-in value (no item schema) show no add box; the add form still needs a schema. */
const NO_ITEM = z.string();

export interface AssignmentCopy {
  title: string;
  description: string;
  empty: string;
  success: string;
  failure: string;
  /** Lets the admin add a value that is not in the list yet (media buyers before the first sync). */
  addLabel?: string;
}

interface Props {
  kind: AssignmentKind;
  userId: string;
  username: string;
  options: { value: string; label: string; description?: string }[];
  optionsLoading: boolean;
  copy: AssignmentCopy;
  note?: string;
  open: boolean;
  onOpenChange(open: boolean): void;
}

/** A checkbox list saved as a whole: permissions, card nicknames, media buyers, sparks. */
export function AssignmentDialog({ kind, userId, username, options, optionsLoading, copy, note, open, onOpenChange }: Props) {
  const current = useAssignment(kind, userId, open);
  const save = useSaveAssignment(kind, userId);
  const formId = useId();
  const listSchema = useMemo(() => checkedListSchema(kind), [kind]);
  const form = useSchemaForm(listSchema, { values: [] });
  const selected = new Set(form.watch("values"));
  const [extra, setExtra] = useState<string[]>([]);
  const itemSchema = assignments[kind].item;
  const addSchema = useMemo(() => z.object({ value: itemSchema ?? NO_ITEM }), [itemSchema]);
  const addForm = useSchemaForm(addSchema, { value: "" });

  useEffect(() => {
    if (open && current.data) {
      form.reset({ values: current.data });
      setExtra([]);
    }
  }, [open, current.data, form]);

  const known = new Set(options.map((o) => o.value));
  const all = [
    ...options,
    ...[...(current.data ?? []), ...extra]
      .filter((v) => !known.has(v))
      .filter((v, i, a) => a.indexOf(v) === i)
      .map((v) => ({ value: v, label: v, description: undefined })),
  ];

  const toggle = (value: string, on: boolean) => {
    const next = new Set(form.getValues("values"));
    if (on) next.add(value);
    else next.delete(value);
    form.setValue("values", [...next], { shouldValidate: form.formState.isSubmitted });
  };

  const addValue = ({ value }: { value: string }) => {
    setExtra((x) => [...x, value]);
    toggle(value, true);
    addForm.reset({ value: "" });
  };

  const onSave = ({ values }: { values: string[] }) =>
    save.mutate(values, {
      onSuccess: () => {
        toast({ title: copy.success, description: `Saved for ${username}.` });
        onOpenChange(false);
      },
      onError: (err) => toastError(copy.failure, err, copy.failure),
    });

  const loading = optionsLoading || current.isPending;
  const listError = form.formState.errors.values?.message;
  const addError = addForm.formState.errors.value?.message;

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={`${copy.title} — ${username}`}
      description={copy.description}
      footer={
        <>
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button onClick={form.handleSubmit(onSave)} disabled={loading || save.isPending}>
            {save.isPending ? "Saving..." : "Save"}
          </Button>
        </>
      }
    >
      {note ? <p className="rounded-md bg-slate-50 p-3 text-xs text-slate-600">{note}</p> : null}
      {loading ? (
        <div className="flex justify-center py-6">
          <Spinner />
        </div>
      ) : current.isError ? (
        <p className="text-sm text-danger-600">{current.error.message}</p>
      ) : all.length === 0 ? (
        <p className="py-4 text-center text-sm text-slate-500">{copy.empty}</p>
      ) : (
        <fieldset className="grid max-h-72 gap-3 overflow-y-auto pr-1" aria-describedby={listError ? `${formId}-error` : undefined}>
          <legend className="sr-only">{copy.title}</legend>
          {all.map((o) => (
            <Checkbox key={o.value} checked={selected.has(o.value)} onCheckedChange={(on) => toggle(o.value, on)} label={o.label} description={o.description} />
          ))}
        </fieldset>
      )}
      {listError ? (
        <p id={`${formId}-error`} role="alert" className="text-xs text-danger-600">
          {listError}
        </p>
      ) : null}
      {copy.addLabel && itemSchema ? (
        <form onSubmit={addForm.handleSubmit(addValue)} className="grid gap-1.5" noValidate>
          <div className="flex gap-2">
            <Input
              {...addForm.register("value")}
              placeholder={copy.addLabel}
              aria-label={copy.addLabel}
              aria-invalid={addError ? true : undefined}
              aria-describedby={addError ? `${formId}-add-error` : undefined}
            />
            <Button type="submit" variant="secondary">
              Add
            </Button>
          </div>
          {addError ? (
            <p id={`${formId}-add-error`} role="alert" className="text-xs text-danger-600">
              {addError}
            </p>
          ) : null}
        </form>
      ) : null}
    </Dialog>
  );
}
