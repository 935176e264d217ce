import { Globe, Tag } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { settingSchema, type SettingInput } from "../../../../worker/src/schemas/settings";
import { useSaveSettings, useSettings } from "./api";
import { DnsInstructionsCard } from "./components/dns-instructions-card";
import { RedeployWorkerCard } from "./components/redeploy-worker-card";
import { ReportTimeZoneCard } from "./components/report-time-zone-card";

type Errors = Partial<Record<SettingInput["key"], string>>;

/** Validates with the server's own schema so the form and the API give the same messages. */
function check(inputs: SettingInput[]): Errors {
  const errors: Errors = {};
  for (const input of inputs) {
    const result = settingSchema.safeParse(input);
    if (!result.success) errors[input.key] = result.error.issues[0]?.message ?? "Invalid value";
  }
  return errors;
}

export default function SettingsScreen() {
  const { data: user } = useUser();
  if (!isAdmin(user)) {
    return <p className="py-12 text-center text-sm text-slate-600">Only admins can access settings.</p>;
  }
  return <SettingsForms />;
}

function SettingsForms() {
  const settings = useSettings();
  const save = useSaveSettings();
  const [price, setPrice] = useState("");
  const [redirect, setRedirect] = useState("");
  const [exit, setExit] = useState("");
  const [errors, setErrors] = useState<Errors>({});

  useEffect(() => {
    if (!settings.data) return;
    setPrice(settings.data.max_domain_price ?? "5.00");
    setRedirect(settings.data.redirect_domain ?? "");
    setExit(settings.data.global_exit_domain ?? "");
  }, [settings.data]);

  const submit = (inputs: SettingInput[]) => (e: FormEvent) => {
    e.preventDefault();
    const found = check(inputs);
    setErrors(found);
    if (Object.keys(found).length) return;
    save.mutate(inputs, {
      onSuccess: () => toast({ title: "Settings updated", description: "Your changes are saved." }),
      onError: (err) => toastError("Error", err, "Failed to update settings"),
    });
  };

  if (settings.isPending) {
    return (
      <div className="flex justify-center py-24">
        <Spinner />
      </div>
    );
  }
  if (settings.isError) return <p className="py-12 text-center text-sm text-danger-600">{settings.error.message}</p>;

  return (
    <>
      <PageHeader title="Settings" description="Global settings for tracking links and domain purchases." />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <Globe className="size-4 text-brand-700" aria-hidden="true" />
              Redirect Domain
            </CardTitle>
            <CardDescription>
              The host your tracking links use, unless a campaign has its own tracking domain. A value without http(s):// is treated as https.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <form
              className="grid gap-4"
              noValidate
              onSubmit={submit([
                { key: "redirect_domain", value: redirect },
                { key: "global_exit_domain", value: exit },
              ])}
            >
              <Field label="Redirect Domain" error={errors.redirect_domain} hint="For example trk.example.com">
                <Input value={redirect} onChange={(e) => setRedirect(e.target.value)} placeholder="trk.example.com" required />
              </Field>
              <Field
                label="Global Exit Domain (optional)"
                error={errors.global_exit_domain}
                hint="Where lander exit clicks go; a trailing /click is removed. Empty uses the redirect domain."
              >
                <Input value={exit} onChange={(e) => setExit(e.target.value)} placeholder="exit.example.com" />
              </Field>
              <div>
                <Button type="submit" disabled={save.isPending}>
                  {save.isPending ? "Saving..." : "Save Domains"}
                </Button>
              </div>
            </form>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <Tag className="size-4 text-brand-700" aria-hidden="true" />
              Maximum Domain Price
            </CardTitle>
            <CardDescription>Domains priced above this are refused at the availability check.</CardDescription>
          </CardHeader>
          <CardContent>
            <form className="grid gap-4" noValidate onSubmit={submit([{ key: "max_domain_price", value: price }])}>
              <Field label="Maximum Domain Price ($)" error={errors.max_domain_price}>
                <Input type="number" min={0} step={0.01} inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} className="tabular" />
              </Field>
              <div>
                <Button type="submit" disabled={save.isPending}>
                  {save.isPending ? "Saving..." : "Save Price"}
                </Button>
              </div>
            </form>
          </CardContent>
        </Card>
        <ReportTimeZoneCard />
      </div>
      <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-2">
        <RedeployWorkerCard />
        <DnsInstructionsCard redirectDomain={settings.data?.redirect_domain ?? ""} />
      </div>
    </>
  );
}
