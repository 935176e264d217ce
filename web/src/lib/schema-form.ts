import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, type DefaultValues, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { toastError } from "@/components/ui/toast";
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
 * A refused save, said the one way (docs/screens.md §5 and §8): the failure toast with the screen's
 * title and the server's sentence (or the screen's fallback), and a 400's `field: message` details
 * (a rule only the server can apply, such as a lander deleted meanwhile) under their fields too.
 */
export function showRefusal<V extends FieldValues>(
  form: UseFormReturn<V, unknown, unknown>,
  err: unknown,
  fields: readonly Path<V>[],
  title: string,
  fallback: string,
): void {
  if (err instanceof ApiError && err.status === 400) {
    for (const line of err.details) {
      const [field, ...rest] = line.split(": ");
      const name = fields.find((f) => f === field);
      if (name && rest.length) form.setError(name, { type: "server", message: rest.join(": ") });
    }
  }
  toastError(title, err, fallback);
}
