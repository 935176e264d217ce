import { KeyRound } from "lucide-react";
import { z } from "zod";
import { CurrentCodeField } from "@/components/own-factors-dialog";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/toast";
import { useUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { changePasswordSchema } from "../../../../../worker/src/schemas/auth";
import { useChangePassword } from "../api";

/**
 * The API's own schema, plus the one rule only the form knows: the new password typed twice the
 * same. The repeat is not sent.
 */
const passwordFormSchema = changePasswordSchema
  .extend({ confirm: z.string() })
  .refine((v) => v.newPassword === v.confirm, { message: "The two new passwords differ", path: ["confirm"] });
const BLANK = { currentPassword: "", code: "", newPassword: "", confirm: "" };

/** Changing your own password: the current one first; your other sessions are signed out. */
export function PasswordCard() {
  const change = useChangePassword();
  const withCode = useUser().data?.twoFactorEnabled === true;
  const form = useSchemaForm(passwordFormSchema, BLANK);
  const { errors } = form.formState;

  const onValid = ({ currentPassword, code, newPassword }: z.output<typeof passwordFormSchema>) =>
    change.mutate(
      { currentPassword, newPassword, ...(withCode ? { code } : {}) },
      {
        onSuccess: () => {
          toast({ title: "Password changed", description: "Your other sessions were signed out." });
          form.reset(BLANK);
        },
        onError: (err) => {
          // The server names the field it refused (a wrong current password).
          showRefusal(form, err, ["currentPassword", "code", "newPassword"], "Failed to change password", "Could not change your password");
        },
      },
    );

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-4 text-brand-700" aria-hidden="true" />
          Password
        </CardTitle>
        <CardDescription>Changing it signs you out everywhere else.</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" onSubmit={form.handleSubmit(onValid)} noValidate>
          <Field label="Current password" error={errors.currentPassword?.message}>
            <Input type="password" {...form.register("currentPassword")} autoComplete="current-password" />
          </Field>
          {withCode ? <CurrentCodeField {...form.register("code")} error={errors.code?.message} /> : null}
          <Field label="New password" error={errors.newPassword?.message} hint="8 to 256 characters">
            <Input type="password" {...form.register("newPassword")} autoComplete="new-password" />
          </Field>
          <Field label="Repeat the new password" error={errors.confirm?.message}>
            <Input type="password" {...form.register("confirm")} autoComplete="new-password" />
          </Field>
          <div>
            <Button type="submit" disabled={change.isPending}>
              {change.isPending ? "Saving..." : "Change Password"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
