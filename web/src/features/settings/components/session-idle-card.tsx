import { Timer } from "lucide-react";
import { useEffect } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast, toastError } from "@/components/ui/toast";
import { useSchemaForm } from "@/lib/schema-form";
import { DEFAULT_SESSION_IDLE_HOURS, MAX_SESSION_IDLE_HOURS, settingValueSchemas } from "../../../../../worker/src/schemas/settings";
import { useSaveSettings, useSettings } from "../api";

const idleFormSchema = z.object({ session_idle_hours: settingValueSchemas.session_idle_hours });

/**
 * The idle time (setting session_idle_hours): a session with no request for this long is signed
 * out, as well as after its fixed 7 days (docs/accounts-security.md "Accounts, roles and permissions").
 */
export function SessionIdleCard() {
  const settings = useSettings();
  const save = useSaveSettings();
  const stored = settings.data?.session_idle_hours ?? String(DEFAULT_SESSION_IDLE_HOURS);
  const form = useSchemaForm(idleFormSchema, { session_idle_hours: stored });

  useEffect(() => form.reset({ session_idle_hours: stored }, { keepDirtyValues: true }), [stored, form]);

  const onValid = (values: z.output<typeof idleFormSchema>) =>
    save.mutate([{ key: "session_idle_hours", value: values.session_idle_hours }], {
      onSuccess: () => {
        form.reset(values);
        toast({ title: "Settings updated", description: `Sessions now end after ${values.session_idle_hours} idle hours.` });
      },
      onError: (err) => toastError("Error", err, "Failed to update settings"),
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Timer className="size-4 text-brand-700" aria-hidden="true" />
          Idle Sign-Out
        </CardTitle>
        <CardDescription>A session not used for this long is signed out. Every session also ends 7 days after its sign-in.</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" noValidate onSubmit={form.handleSubmit(onValid)}>
          <Field
            label="Idle time (hours)"
            error={form.formState.errors.session_idle_hours?.message}
            hint={`1 to ${MAX_SESSION_IDLE_HOURS}; default ${DEFAULT_SESSION_IDLE_HOURS}`}
          >
            <Input
              type="number"
              min={1}
              max={MAX_SESSION_IDLE_HOURS}
              step={1}
              inputMode="numeric"
              {...form.register("session_idle_hours")}
              className="tabular"
            />
          </Field>
          <div>
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? "Saving..." : "Save Idle Time"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
