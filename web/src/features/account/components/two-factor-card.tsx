import { Download, ShieldCheck, ShieldOff } from "lucide-react";
import { useState } from "react";
import { Instant } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { OwnFactorsDialog } from "@/components/own-factors-dialog";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { useSchemaForm } from "@/lib/schema-form";
import { totpCodeSchema, type OwnFactorsInput } from "../../../../../worker/src/schemas/auth";
import { useConfirmSetup, useDisableTwoFactor, useStartSetup, useTwoFactor } from "../api";
import { QrCode } from "./qr-code";

/** The secret in groups of four, easier to type into an app by hand. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

function SetupSteps({ secret, uri, onDone }: { secret: string; uri: string; onDone(codes: string[]): void }) {
  const confirm = useConfirmSetup();
  const form = useSchemaForm(totpCodeSchema, { code: "" });
  const error = form.formState.errors.code?.message;

  const onValid = ({ code }: { code: string }) =>
    confirm.mutate(code, {
      onSuccess: (res) => onDone(res.recoveryCodes),
      onError: (err) => {
        // A wrong or expired code: said under the field it is about.
        form.setError("code", { type: "server", message: err.message });
        toastError("Two-factor sign-in was not turned on", err, "Could not confirm the code");
      },
    });

  return (
    <div className="grid gap-5 md:grid-cols-[auto_1fr] md:items-start">
      <div className="flex justify-center">
        <QrCode value={uri} label="QR code to scan with your authenticator app" />
      </div>
      <div className="grid gap-4">
        <ol className="grid list-decimal gap-1.5 pl-5 text-sm text-slate-600">
          <li>Scan the QR code with an authenticator app (Google Authenticator, 1Password, Authy, ...).</li>
          <li>Or type this key into the app by hand:</li>
        </ol>
        <div className="flex items-center gap-2">
          <code
            data-testid="totp-secret"
            className="tabular min-w-0 flex-1 break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm text-slate-800 ring-1 ring-inset ring-slate-200"
          >
            {grouped(secret)}
          </code>
          <CopyButton text={secret} label="Copy the key" description="Paste it into your authenticator app." />
        </div>
        <form className="grid gap-3 sm:max-w-xs" onSubmit={form.handleSubmit(onValid)} noValidate>
          <Field label="Code from the app" error={error} hint="Proves the app is set up; then it asks for a code at every sign-in.">
            <Input
              {...form.register("code")}
              inputMode="numeric"
              autoComplete="one-time-code"
              placeholder="123456"
              maxLength={7}
              className="tabular tracking-widest"
            />
          </Field>
          <div>
            <Button type="submit" disabled={confirm.isPending}>
              {confirm.isPending ? "Checking..." : "Turn On"}
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}

/**
 * The ten recovery codes, shown once right after setup. "I saved them" closes it; Escape, the X or
 * a click outside ask first, since the codes cannot be shown again.
 */
function RecoveryCodes({ codes, onClose }: { codes: string[]; onClose(): void }) {
  const [confirmingClose, setConfirmingClose] = useState(false);
  const text = `Trackyard recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "trackyard-recovery-codes.txt" });
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <>
      <Dialog
        open
        onOpenChange={(o) => !o && setConfirmingClose(true)}
        title="Save your recovery codes"
        description="If you lose your phone, each of these signs you in once instead of a code. They are shown only now."
        footer={
          <>
            <Button variant="secondary" onClick={download}>
              <Download />
              Download
            </Button>
            <CopyButton text={codes.join("\n")} label="Copy recovery codes" description="Keep them somewhere safe.">
              Copy
            </CopyButton>
            <Button onClick={onClose}>I saved them</Button>
          </>
        }
      >
        <ul
          aria-label="Recovery codes"
          className="grid grid-cols-2 gap-2 rounded-md bg-slate-50 p-4 font-mono text-sm text-slate-800 ring-1 ring-inset ring-slate-200"
        >
          {codes.map((c) => (
            <li key={c} className="tabular">
              {c}
            </li>
          ))}
        </ul>
      </Dialog>
      <ConfirmDialog
        open={confirmingClose}
        onOpenChange={setConfirmingClose}
        title="Close without saving the codes?"
        description="These recovery codes will not be shown again. Without them, losing your phone means asking an admin to reset your two-factor sign-in."
        confirmLabel="Close anyway"
        onConfirm={onClose}
      />
    </>
  );
}

/** Two-factor sign-in: status, setup (QR, key, first code), recovery codes, turning it off. */
export function TwoFactorCard({ required }: { required: boolean }) {
  const status = useTwoFactor();
  const start = useStartSetup();
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const disable = useDisableTwoFactor();
  const [disabling, setDisabling] = useState(false);
  const [starting, setStarting] = useState(false);
  const s = status.data;

  // The password (and current code) first: a borrowed session cannot put its own phone on the account.
  const begin = async (input: OwnFactorsInput) => {
    setSetup(await start.mutateAsync(input));
    setStarting(false);
  };
  const turnOff = async (input: OwnFactorsInput) => {
    await disable.mutateAsync(input);
    toast({ title: "Two-factor sign-in turned off", description: "Your other sessions were signed out." });
    setDisabling(false);
  };

  return (
    <Card className={required ? "ring-2 ring-amber-300" : undefined}>
      <CardHeader>
        <CardTitle className="flex flex-wrap items-center gap-2">
          <ShieldCheck className="size-4 text-brand-700" aria-hidden="true" />
          Two-factor sign-in
          {s ? s.enabled ? <Badge variant="success">On</Badge> : <Badge variant="secondary">Off</Badge> : null}
        </CardTitle>
        <CardDescription>
          Trackyard holds the codes of your ad, card and registrar accounts. With two-factor sign-in, a stolen password alone is not enough: signing in also
          takes a 6-digit code from an app on your phone.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {required ? (
          <p role="alert" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-inset ring-amber-200">
            An admin requires two-factor sign-in for everyone. Set it up to continue using Trackyard.
          </p>
        ) : null}
        {status.isPending ? (
          <Spinner />
        ) : status.isError ? (
          <p className="text-sm text-danger-600">{status.error.message}</p>
        ) : setup ? (
          <SetupSteps
            secret={setup.secret}
            uri={setup.uri}
            onDone={(c) => {
              setSetup(null);
              setCodes(c);
              toast({ title: "Two-factor sign-in is on", description: "Your other sessions were signed out." });
            }}
          />
        ) : s?.enabled ? (
          <div className="grid gap-3">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-slate-500">On since</dt>
              <dd className="tabular text-slate-800">{s.enabledAt ? <Instant at={s.enabledAt} show="day" /> : "—"}</dd>
              <dt className="text-slate-500">Recovery codes left</dt>
              <dd className="tabular text-slate-800">{s.recoveryCodesLeft} of 10</dd>
            </dl>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" onClick={() => setStarting(true)}>
                Set Up a New Phone
              </Button>
              {s.requiredByAdmin ? null : (
                <Button variant="ghost" onClick={() => setDisabling(true)}>
                  <ShieldOff />
                  Turn Off
                </Button>
              )}
            </div>
            <p className="text-xs text-slate-500">Setting up a new phone also replaces your recovery codes.</p>
          </div>
        ) : !s?.configured ? (
          <p className="text-sm text-slate-600">Two-factor sign-in is not available: the server has no TWO_FACTOR_KEY secret. Ask your admin.</p>
        ) : (
          <div>
            <Button onClick={() => setStarting(true)}>
              <ShieldCheck />
              Set Up Two-Factor Sign-In
            </Button>
          </div>
        )}
      </CardContent>
      {codes ? <RecoveryCodes codes={codes} onClose={() => setCodes(null)} /> : null}
      <OwnFactorsDialog
        open={starting}
        onOpenChange={setStarting}
        title={s?.enabled ? "Set up a new phone" : "Set up two-factor sign-in"}
        description={
          s?.enabled
            ? "Confirm it is you. The new phone replaces the old one and your recovery codes once it is confirmed."
            : "Confirm it is you before adding a phone to your account."
        }
        submitLabel="Continue"
        busyLabel="Checking..."
        busy={start.isPending}
        refusedTitle="Could not start the setup"
        onSubmit={begin}
      />
      <OwnFactorsDialog
        open={disabling}
        onOpenChange={setDisabling}
        title="Turn off two-factor sign-in?"
        description="Signing in will take only your password again. Your other sessions are signed out."
        submitLabel="Turn Off"
        busyLabel="Turning off..."
        destructive
        busy={disable.isPending}
        refusedTitle="Two-factor sign-in stays on"
        onSubmit={turnOff}
      />
    </Card>
  );
}
