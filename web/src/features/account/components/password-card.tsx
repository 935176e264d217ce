import { KeyRound } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast, toastError } from "@/components/ui/toast";
import { ApiError } from "@/lib/api";
import { changePasswordSchema } from "../../../../../worker/src/schemas/auth";
import { useChangePassword } from "../api";

type Errors = Partial<Record<"currentPassword" | "newPassword" | "confirm", string>>;

/** Changing your own password: the current one first; your other sessions are signed out. */
export function PasswordCard() {
  const change = useChangePassword();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Errors>({});

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = changePasswordSchema.safeParse({ currentPassword: current, newPassword: next });
    const found: Errors = {};
    if (!parsed.success) for (const issue of parsed.error.issues) found[issue.path[0] as keyof Errors] ??= issue.message;
    if (next !== confirm) found.confirm = "The two new passwords differ";
    setErrors(found);
    if (!parsed.success || found.confirm) return;
    change.mutate(parsed.data, {
      onSuccess: () => {
        toast({ title: "Password changed", description: "Your other sessions were signed out." });
        setCurrent("");
        setNext("");
        setConfirm("");
      },
      onError: (err) => {
        // The server names the field it refused (a wrong current password).
        if (err instanceof ApiError) {
          const byField: Errors = {};
          for (const d of err.details) {
            const [field, message] = d.split(": ");
            if (field === "currentPassword" || field === "newPassword") byField[field] = message;
          }
          setErrors(byField);
        }
        toastError("Failed to change password", err, "Could not change your password");
      },
    });
  };

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
        <form className="grid gap-4" onSubmit={onSubmit} noValidate>
          <Field label="Current password" error={errors.currentPassword}>
            <Input type="password" value={current} onChange={(e) => setCurrent(e.target.value)} autoComplete="current-password" />
          </Field>
          <Field label="New password" error={errors.newPassword} hint="8 to 256 characters">
            <Input type="password" value={next} onChange={(e) => setNext(e.target.value)} autoComplete="new-password" />
          </Field>
          <Field label="Repeat the new password" error={errors.confirm}>
            <Input type="password" value={confirm} onChange={(e) => setConfirm(e.target.value)} autoComplete="new-password" />
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
