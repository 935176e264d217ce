import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toast, toastError } from "@/components/ui/toast";
import { Instant } from "@/components/instant";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { resetPasswordSchema, roleSchema } from "../../../../../worker/src/schemas/users";
import { useResetPassword, useResetTwoFactor, useSetRole, type UserRow } from "../api";

const Section = ({ title, children }: { title: string; children: React.ReactNode }) => (
  <section className="grid gap-3 border-t border-slate-200 pt-4 first:border-t-0 first:pt-0">
    <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
    {children}
  </section>
);

/** An admin's actions on someone else's account: role, a new password, the second factor. */
export function AccountDialog({ user, onOpenChange }: { user: UserRow; onOpenChange(open: boolean): void }) {
  const setRole = useSetRole();
  const resetPassword = useResetPassword();
  const resetTwoFactor = useResetTwoFactor();
  const roleForm = useSchemaForm(roleSchema, { role: user.role });
  const role = roleForm.watch("role");
  const passwordForm = useSchemaForm(resetPasswordSchema, { password: "" });
  const [confirmingReset, setConfirmingReset] = useState(false);

  const saveRole = (input: { role: "user" | "admin" }) =>
    setRole.mutate(
      { id: user.id, role: input.role },
      {
        onSuccess: () => toast({ title: "Role updated", description: `${user.username} is now ${input.role === "admin" ? "an admin" : "a user"}.` }),
        onError: (err) => {
          roleForm.reset({ role: user.role });
          toastError("Failed to change role", err, "Could not change the role");
        },
      },
    );

  const savePassword = ({ password }: { password: string }) =>
    resetPassword.mutate(
      { id: user.id, password },
      {
        onSuccess: () => {
          passwordForm.reset({ password: "" });
          toast({ title: "Password set", description: `${user.username} was signed out everywhere and signs in with the new password.` });
        },
        onError: (err) => {
          showRefusal(passwordForm, err, ["password"], "Failed to set password", "Could not set the password");
        },
      },
    );

  const onResetTwoFactor = () =>
    resetTwoFactor.mutate(user.id, {
      onSuccess: () => {
        setConfirmingReset(false);
        toast({ title: "Two-factor sign-in reset", description: `${user.username} signs in with the password alone until they set it up again.` });
      },
      onError: (err) => toastError("Failed to reset two-factor sign-in", err, "Could not reset it"),
    });

  return (
    <Dialog open onOpenChange={onOpenChange} title={`Account — ${user.username}`} description="Changes apply on this user's next request.">
      <div className="grid gap-4">
        <Section title="Role">
          <form className="flex flex-col gap-2 sm:flex-row" onSubmit={roleForm.handleSubmit(saveRole)} noValidate>
            <Select
              aria-label="Role"
              className="sm:w-40"
              value={role}
              onValueChange={(v) => roleForm.setValue("role", v === "admin" ? "admin" : "user")}
              options={[
                { value: "user", label: "User" },
                { value: "admin", label: "Admin" },
              ]}
            />
            <Button type="submit" variant="secondary" disabled={role === user.role || setRole.isPending}>
              {setRole.isPending ? "Saving..." : "Save Role"}
            </Button>
          </form>
        </Section>
        <Section title="Password">
          <form className="grid gap-2 sm:grid-cols-[1fr_auto] sm:items-start" onSubmit={passwordForm.handleSubmit(savePassword)} noValidate>
            <Field label="New password" error={passwordForm.formState.errors.password?.message} hint="8 to 256 characters. Signs the user out everywhere.">
              <Input type="password" {...passwordForm.register("password")} autoComplete="new-password" />
            </Field>
            <Button type="submit" variant="secondary" className="sm:mt-6" disabled={resetPassword.isPending}>
              {resetPassword.isPending ? "Saving..." : "Set Password"}
            </Button>
          </form>
        </Section>
        <Section title="Two-factor sign-in">
          <p className="text-sm text-slate-700">
            {user.twoFactorEnabled ? (
              <>
                <Badge variant="success" className="mr-1.5">
                  On
                </Badge>
                {user.twoFactorEnabledAt ? (
                  <>
                    since <Instant at={user.twoFactorEnabledAt} show="day" />;{" "}
                  </>
                ) : null}
                {user.recoveryCodesLeft === 1 ? "1 recovery code left." : `${user.recoveryCodesLeft} recovery codes left.`}
              </>
            ) : (
              <>
                <span className="font-medium">Off</span>: {user.username} signs in with the password alone. Only they can turn it on, on their Account page.
              </>
            )}
          </p>
          {user.twoFactorEnabled ? (
            confirmingReset ? (
              <div className="grid gap-2 rounded-md bg-danger-50 p-3 text-sm text-slate-700">
                <p>Turn off {user.username}&apos;s two-factor sign-in and delete their recovery codes? Do this only for a lost phone.</p>
                <div className="flex gap-2">
                  <Button variant="destructive" size="sm" onClick={onResetTwoFactor} disabled={resetTwoFactor.isPending}>
                    Reset Two-Factor
                  </Button>
                  <Button variant="secondary" size="sm" onClick={() => setConfirmingReset(false)}>
                    Cancel
                  </Button>
                </div>
              </div>
            ) : (
              <div>
                <Button variant="secondary" onClick={() => setConfirmingReset(true)}>
                  Reset Two-Factor…
                </Button>
              </div>
            )
          ) : null}
        </Section>
      </div>
    </Dialog>
  );
}
