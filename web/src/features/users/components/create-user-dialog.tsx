import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toast, toastError } from "@/components/ui/toast";
import { createUserSchema } from "../../../../../worker/src/schemas/users";
import { useCreateUser } from "../api";

type Errors = Partial<Record<"username" | "password", string>>;

export function CreateUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const create = useCreateUser();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<"user" | "admin">("user");
  const [errors, setErrors] = useState<Errors>({});

  const reset = () => {
    setUsername("");
    setPassword("");
    setRole("user");
    setErrors({});
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      toast({ title: "Missing fields", description: "Username and password are required", variant: "destructive" });
      return;
    }
    const parsed = createUserSchema.safeParse({ username, password, role });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as keyof Errors] ??= issue.message;
      setErrors(next);
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (user) => {
        toast({ title: "User created", description: `${user.username} can now sign in.` });
        reset();
        onOpenChange(false);
      },
      onError: (err) => toastError("Failed to create user", err, "Could not create user"),
    });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (!o) reset();
        onOpenChange(o);
      }}
      title="Create New User"
      description="Members see only the features you grant them; admins see everything."
    >
      <form className="grid gap-4" onSubmit={onSubmit} noValidate>
        <Field label="Username" error={errors.username}>
          <Input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" maxLength={64} />
        </Field>
        <Field label="Password" error={errors.password} hint="8 to 256 characters">
          <Input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
        </Field>
        <Field label="Role">
          <Select
            value={role}
            onValueChange={(v) => setRole(v === "admin" ? "admin" : "user")}
            options={[
              { value: "user", label: "User" },
              { value: "admin", label: "Admin" },
            ]}
          />
        </Field>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating..." : "Create User"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
