import { KeyRound, Plus } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { Instant } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { can, isAdmin, useUser, type CurrentUser } from "@/lib/auth";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import {
  API_KEY_LIMIT_PER_MINUTE,
  API_KEY_RESOURCE_NAMES,
  API_KEY_RESOURCES,
  createApiKeySchema,
  type ApiKeyResource,
  type CreateApiKeyInput,
  type ApiKeyScope,
} from "../../../../../worker/src/schemas/api-keys";
import { useAllApiKeys, useApiKeys, useCreateApiKey, useRevokeApiKey } from "../api";
import { ShownOnceDialog } from "./shown-once-dialog";

type ApiKey = NonNullable<ReturnType<typeof useApiKeys>["data"]>[number];

/** The resources this user may put on a key: the same rule the server checks (routes/api-keys.ts). */
const grantable = (user: CurrentUser | null | undefined): ApiKeyResource[] =>
  API_KEY_RESOURCE_NAMES.filter((r) => {
    const grant = API_KEY_RESOURCES[r].grant;
    if (grant === "signed-in") return !!user;
    if (grant === "admin") return isAdmin(user);
    return grant.feature.some((f) => can(user, f));
  });

const LEVEL_OPTIONS = [
  { value: "none", label: "No access" },
  { value: "read", label: "Read" },
  { value: "write", label: "Read and write" },
];
const EXPIRY_OPTIONS = [
  { value: "never", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
];

function CreateKeyDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange(open: boolean): void; onCreated(key: string): void }) {
  const { data: user } = useUser();
  const create = useCreateApiKey();
  const form = useSchemaForm(createApiKeySchema, BLANK);
  const { errors } = form.formState;
  const scopes = form.watch("scopes");
  const expiresInDays = form.watch("expiresInDays");

  /** The level a resource's select shows: read off the key's scopes. */
  const levelOf = (r: ApiKeyResource) => scopes.find((s) => s.startsWith(`${r}:`))?.slice(r.length + 1) ?? "none";
  const setLevel = (r: ApiKeyResource, level: string) => {
    const others = scopes.filter((s) => !s.startsWith(`${r}:`));
    const next = level === "read" || level === "write" ? [...others, `${r}:${level}` as ApiKeyScope] : others;
    form.setValue("scopes", next, { shouldValidate: form.formState.isSubmitted });
  };

  const onValid = (input: CreateApiKeyInput) =>
    create.mutate(input, {
      onSuccess: ({ key }) => {
        form.reset(BLANK);
        onCreated(key);
      },
      onError: (err) => showRefusal(form, err, ["name", "scopes"], "The API key was not created", "Could not create the API key"),
    });
  const submit = form.handleSubmit(onValid);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Create an API key"
      description="The key can do what its scopes allow, and never more than you can yourself."
      footer={
        <>
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={create.isPending}>
            {create.isPending ? "Creating..." : "Create Key"}
          </Button>
        </>
      }
    >
      <form className="grid gap-4" noValidate onSubmit={submit}>
        <Field label="Name" error={errors.name?.message} hint="What the key is for, e.g. the spreadsheet or script that uses it.">
          <Input {...form.register("name")} maxLength={80} placeholder="Weekly report sheet" />
        </Field>
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium text-slate-800">Scopes</legend>
          <ul className="grid gap-2">
            {grantable(user).map((r) => (
              <li key={r} className="grid grid-cols-[1fr_11rem] items-center gap-3 text-sm text-slate-700">
                <span>{API_KEY_RESOURCES[r].label}</span>
                <Select aria-label={`${API_KEY_RESOURCES[r].label} access`} value={levelOf(r)} options={LEVEL_OPTIONS} onValueChange={(v) => setLevel(r, v)} />
              </li>
            ))}
          </ul>
          {errors.scopes?.message ? (
            <p role="alert" className="text-xs text-danger-600">
              {errors.scopes.message}
            </p>
          ) : null}
        </fieldset>
        <Field label="Expires">
          <Select
            value={expiresInDays == null ? "never" : String(expiresInDays)}
            options={EXPIRY_OPTIONS}
            onValueChange={(v) => form.setValue("expiresInDays", v === "never" ? null : Number(v))}
          />
        </Field>
      </form>
    </Dialog>
  );
}

const BLANK: CreateApiKeyInput = { name: "", scopes: [], expiresInDays: null };

/** A new key, shown this once with a copy button. */
const NewKeyDialog = ({ apiKey, onClose }: { apiKey: string | null; onClose(): void }) => (
  <ShownOnceDialog
    value={apiKey}
    onClose={onClose}
    title="Copy your new API key"
    description="It is shown only this once: Trackyard keeps only a fingerprint of it. Send it as Authorization: Bearer <key>."
    testId="new-api-key"
    copyLabel="Copy the key"
    copiedTitle="API key copied"
  />
);

function KeyList({ keys, label, showOwner, onRevoke }: { keys: ApiKey[]; label: string; showOwner: boolean; onRevoke(key: ApiKey): void }) {
  if (keys.length === 0) return <p className="text-sm text-slate-500">No API keys yet.</p>;
  const now = Date.now();
  return (
    <ul aria-label={label} className="divide-y divide-slate-100 rounded-md ring-1 ring-inset ring-slate-200">
      {keys.map((k) => {
        const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
        return (
          <li key={k.id} className="grid gap-1.5 px-3 py-2.5 text-sm sm:grid-cols-[1fr_auto] sm:items-center">
            <div className="grid min-w-0 gap-1">
              <span className="flex flex-wrap items-center gap-2 font-medium text-slate-800">
                {k.name}
                <code className="font-mono text-xs font-normal text-slate-500">{k.prefix}…</code>
                {showOwner ? <Badge variant="outline">{k.owner.username}</Badge> : null}
                {expired ? <Badge variant="warning">Expired</Badge> : null}
              </span>
              <span className="flex flex-wrap gap-1">
                {k.scopes.map((s) => (
                  <Badge key={s} variant="secondary" className="font-mono">
                    {s}
                  </Badge>
                ))}
              </span>
              <span className="tabular text-xs text-slate-500">
                {k.lastUsedAt ? (
                  <>
                    Last used <Instant at={k.lastUsedAt} show="relative" /> from {k.lastUsedIp ?? "an unknown address"}
                  </>
                ) : (
                  "Never used"
                )}{" "}
                ·{" "}
                {k.expiresAt ? (
                  <>
                    {expired ? "Expired" : "Expires"} <Instant at={k.expiresAt} show="day" />
                  </>
                ) : (
                  "No expiry"
                )}
              </span>
            </div>
            <div>
              <Button variant="secondary" size="sm" onClick={() => onRevoke(k)} aria-label={`Revoke ${k.name}${showOwner ? ` of ${k.owner.username}` : ""}`}>
                Revoke
              </Button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The user's API keys (docs/accounts-security.md "API keys"): creating one (shown once), what each
 * may do, when and where it was last used, and revoking it. Admins also see and revoke everyone's.
 */
export function ApiKeysCard() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const own = useApiKeys();
  const all = useAllApiKeys(admin);
  const revoke = useRevokeApiKey();
  const [creating, setCreating] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast({ title: `API key ${revoking.name} revoked` });
        setRevoking(null);
      },
      onError: (err) => toastError("The API key was not revoked", err, "Could not revoke the API key"),
    });
  };
  const others = all.data?.filter((k) => k.owner.id !== user?.id) ?? [];

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-4 text-brand-700" aria-hidden="true" />
          API keys
        </CardTitle>
        <CardDescription>
          For scripts and tools calling the API as you, with <code className="font-mono text-xs">Authorization: Bearer</code>: up to {API_KEY_LIMIT_PER_MINUTE}{" "}
          requests a minute per key. Every route, its scope and examples are in the{" "}
          <Link to="/account/api" className="font-medium text-brand-700 underline-offset-4 hover:underline">
            API reference
          </Link>
          .
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {own.isPending ? (
          <Spinner />
        ) : own.isError ? (
          <p className="text-sm text-danger-600">{own.error.message}</p>
        ) : (
          <KeyList keys={own.data} label="Your API keys" showOwner={false} onRevoke={setRevoking} />
        )}
        <div>
          <Button variant="secondary" onClick={() => setCreating(true)}>
            <Plus />
            Create API Key
          </Button>
        </div>
        {admin ? (
          <div className="grid gap-2 border-t border-slate-100 pt-4">
            <h3 className="text-sm font-semibold text-slate-800">Other users&apos; keys</h3>
            {all.isPending ? (
              <Spinner />
            ) : all.isError ? (
              <p className="text-sm text-danger-600">{all.error.message}</p>
            ) : (
              <KeyList keys={others} label="Other users' API keys" showOwner onRevoke={setRevoking} />
            )}
          </div>
        ) : null}
      </CardContent>
      <CreateKeyDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(key) => {
          setCreating(false);
          setNewKey(key);
        }}
      />
      <NewKeyDialog apiKey={newKey} onClose={() => setNewKey(null)} />
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => (open ? undefined : setRevoking(null))}
        title="Revoke this API key?"
        description={`${revoking?.name ?? ""} (${revoking?.prefix ?? ""}…) stops working within a few seconds, for good.`}
        confirmLabel="Revoke"
        onConfirm={confirmRevoke}
        busy={revoke.isPending}
      />
    </Card>
  );
}
