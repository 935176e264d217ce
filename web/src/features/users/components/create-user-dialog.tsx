import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toast } from "@/components/ui/toast";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { createUserSchema, type CreateUserInput } from "../../../../../worker/src/schemas/users";
import { useCreateUser } from "../api";

const BLANK = { username: "", password: "", role: "user" as const };

export function CreateUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const create = useCreateUser();
  // The API's own schema: the username and password rules are said under their fields.
  const form = useSchemaForm(createUserSchema, BLANK);
  const { errors } = form.formState;
  const reset = () => form.reset(BLANK);

  const onValid = (values: CreateUserInput) =>
    create.mutate(values, {
      onSuccess: (user) => {
        toast({ title: "User created", description: `${user.username} can now sign in.` });
        reset();
        onOpenChange(false);
      },
      onError: (err) => {
        showRefusal(form, err, ["username", "password"], "Failed to create user", "Could not create user");
      },
    });
  const onInvalid = () => {
    const { username, password } = form.getValues();
    if (!username.trim() || !password) toast({ title: "Missing fields", description: "Username and password are required", variant: "destructive" });
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
      <form className="grid gap-4" onSubmit={form.handleSubmit(onValid, onInvalid)} noValidate>
        <Field label="Username" error={errors.username?.message}>
          <Input {...form.register("username")} autoComplete="off" maxLength={64} />
        </Field>
        <Field label="Password" error={errors.password?.message} hint="8 to 256 characters">
          <Input type="password" {...form.register("password")} autoComplete="new-password" />
        </Field>
        <Field label="Role">
          <Select
            value={form.watch("role") ?? "user"}
            onValueChange={(v) => form.setValue("role", v === "admin" ? "admin" : "user")}
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
