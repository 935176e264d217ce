import type { ComponentProps, ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { ownFactorsSchema, type OwnFactorsInput } from "../../../worker/src/schemas/auth";

const BLANK = { password: "", code: "" };

/** The code field's place, shared with the password card: only asked where two-factor sign-in is on. */
export function CurrentCodeField({ error, ...input }: { error?: string | undefined } & ComponentProps<typeof Input>) {
  return (
    <Field label="Code from your authenticator app" error={error} hint="Or one of your recovery codes">
      <Input inputMode="numeric" autoComplete="one-time-code" placeholder="123456" maxLength={32} className="tabular tracking-widest" {...input} />
    </Field>
  );
}

interface OwnFactorsDialogProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description: ReactNode;
  submitLabel: string;
  busyLabel: string;
  destructive?: boolean;
  busy: boolean;
  /** Sends the password (and code); rejects with the server's refusal, shown under its field. */
  onSubmit(input: OwnFactorsInput): Promise<unknown>;
  /** The failure toast's title. */
  refusedTitle: string;
}

/**
 * Asks for the signed-in user's password, and the current code where two-factor sign-in is on
 * (docs/accounts-security.md "Accounts, roles and permissions"): before a change of their own factors, and as the
 * re-authentication an admin gives before changing another user.
 */
export function OwnFactorsDialog({
  open,
  onOpenChange,
  title,
  description,
  submitLabel,
  busyLabel,
  destructive,
  busy,
  onSubmit,
  refusedTitle,
}: OwnFactorsDialogProps) {
  const { data: user } = useUser();
  const withCode = user?.twoFactorEnabled === true;
  const form = useSchemaForm(ownFactorsSchema, BLANK);
  const { errors } = form.formState;
  const close = (next: boolean) => {
    if (!next) form.reset(BLANK);
    onOpenChange(next);
  };
  const onValid = async (input: OwnFactorsInput) => {
    try {
      await onSubmit({ password: input.password, ...(withCode ? { code: input.code } : {}) });
      form.reset(BLANK);
    } catch (err) {
      showRefusal(form, err, ["password", "code"], refusedTitle, "Could not check your password");
    }
  };
  return (
    <Dialog open={open} onOpenChange={close} title={title} description={description}>
      <form className="grid gap-4" onSubmit={form.handleSubmit(onValid)} noValidate>
        <Field label="Your password" error={errors.password?.message}>
          <Input type="password" {...form.register("password")} autoComplete="current-password" autoFocus />
        </Field>
        {withCode ? <CurrentCodeField {...form.register("code")} error={errors.code?.message} /> : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" variant={destructive ? "destructive" : "primary"} disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
