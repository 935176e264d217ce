import { useEffect, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { useAssignment, useSaveAssignment, type AssignmentKind } from "../api";

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
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [extra, setExtra] = useState<string[]>([]);
  const [draft, setDraft] = useState("");

  useEffect(() => {
    if (open && current.data) {
      setSelected(new Set(current.data));
      setExtra([]);
    }
  }, [open, current.data]);

  const known = new Set(options.map((o) => o.value));
  const all = [
    ...options,
    ...[...(current.data ?? []), ...extra]
      .filter((v) => !known.has(v))
      .filter((v, i, a) => a.indexOf(v) === i)
      .map((v) => ({ value: v, label: v, description: undefined })),
  ];

  const toggle = (value: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(value);
      else next.delete(value);
      return next;
    });

  const addValue = (e: FormEvent) => {
    e.preventDefault();
    const value = draft.trim();
    if (!value) return;
    setExtra((x) => [...x, value]);
    toggle(value, true);
    setDraft("");
  };

  const onSave = () =>
    save.mutate([...selected], {
      onSuccess: () => {
        toast({ title: copy.success, description: `Saved for ${username}.` });
        onOpenChange(false);
      },
      onError: (err) => toastError(copy.failure, err, copy.failure),
    });

  const loading = optionsLoading || current.isPending;

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
          <Button onClick={onSave} disabled={loading || save.isPending}>
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
        <fieldset className="grid max-h-72 gap-3 overflow-y-auto pr-1">
          <legend className="sr-only">{copy.title}</legend>
          {all.map((o) => (
            <Checkbox key={o.value} checked={selected.has(o.value)} onCheckedChange={(on) => toggle(o.value, on)} label={o.label} description={o.description} />
          ))}
        </fieldset>
      )}
      {copy.addLabel ? (
        <form onSubmit={addValue} className="flex gap-2">
          <Input value={draft} onChange={(e) => setDraft(e.target.value)} placeholder={copy.addLabel} aria-label={copy.addLabel} maxLength={50} />
          <Button type="submit" variant="secondary" disabled={!draft.trim()}>
            Add
          </Button>
        </form>
      ) : null}
    </Dialog>
  );
}
