import { useId, type ReactElement, type ReactNode } from "react";
import { cloneElement } from "react";
import { Label } from "./label";

interface FieldProps {
  label: ReactNode;
  /** The input; it receives id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
  error?: string;
  hint?: ReactNode;
}

/** A labelled form control with its hint or error wired up for screen readers. */
export function Field({ label, children, error, hint }: FieldProps) {
  const id = useId();
  const noteId = `${id}-note`;
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      {cloneElement(children, {
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": error || hint ? noteId : undefined,
      })}
      {error ? (
        <p id={noteId} role="alert" className="text-xs text-danger-600">
          {error}
        </p>
      ) : hint ? (
        <p id={noteId} className="text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
