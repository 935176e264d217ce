import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, type DefaultValues, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { ApiError } from "./api";

/**
 * The one form pattern: react-hook-form validating with the same zod schema the API checks the
 * call with (worker/src/schemas/), so a form and the server say the same sentence, under the field
 * it is about. Fields are checked on submit, then again as they change.
 */
export function useSchemaForm<S extends z.ZodType<FieldValues, FieldValues>>(schema: S, defaultValues: DefaultValues<z.input<S>>) {
  return useForm<z.input<S>, unknown, z.output<S>>({ resolver: zodResolver(schema), defaultValues, mode: "onSubmit", reValidateMode: "onChange" });
}

/**
 * A 400's `field: message` details (the server's own check, e.g. a rule only it can apply) shown
 * under their fields. Returns whether any applied: when none did, the caller toasts the error.
 */
export function showServerErrors<V extends FieldValues>(form: UseFormReturn<V, unknown, unknown>, err: unknown, fields: readonly Path<V>[]): boolean {
  if (!(err instanceof ApiError) || err.status !== 400) return false;
  let applied = false;
  for (const line of err.details) {
    const [field, ...rest] = line.split(": ");
    const name = fields.find((f) => f === field);
    if (name && rest.length) {
      form.setError(name, { type: "server", message: rest.join(": ") });
      applied = true;
    }
  }
  return applied;
}
