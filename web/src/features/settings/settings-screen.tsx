import { Globe, Tag } from "lucide-react";
import { useEffect } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { useSchemaForm } from "@/lib/schema-form";
import { DEFAULT_MAX_DOMAIN_PRICE, settingValueSchemas } from "../../../../worker/src/schemas/settings";
import { useSaveSettings, useSettings } from "./api";
import { DnsInstructionsCard } from "./components/dns-instructions-card";
import { RedeployWorkerCard } from "./components/redeploy-worker-card";
import { ReportTimeZoneCard } from "./components/report-time-zone-card";
import { SessionIdleCard } from "./components/session-idle-card";

/** Each card's form: its settings' values, checked by the schemas POST /api/settings uses. */
const domainsFormSchema = z.object({ redirect_domain: settingValueSchemas.redirect_domain, global_exit_domain: settingValueSchemas.global_exit_domain });
const priceFormSchema = z.object({ max_domain_price: settingValueSchemas.max_domain_price });

export default function SettingsScreen() {
  const { data: user } = useUser();
  if (!isAdmin(user)) {
    return <p className="py-12 text-center text-sm text-slate-600">Only admins can access settings.</p>;
  }
  return <SettingsForms />;
}

function SettingsForms() {
  const settings = useSettings();
  const saveSettings = useSaveSettings();
  const domains = useSchemaForm(domainsFormSchema, { redirect_domain: "", global_exit_domain: "" });
  const price = useSchemaForm(priceFormSchema, { max_domain_price: DEFAULT_MAX_DOMAIN_PRICE });

  // The stored values, whenever they load or change; a field being edited keeps what was typed.
  useEffect(() => {
    if (!settings.data) return;
    const stored = settings.data;
    domains.reset({ redirect_domain: stored.redirect_domain ?? "", global_exit_domain: stored.global_exit_domain ?? "" }, { keepDirtyValues: true });
    price.reset({ max_domain_price: stored.max_domain_price ?? DEFAULT_MAX_DOMAIN_PRICE }, { keepDirtyValues: true });
  }, [settings.data, domains, price]);

  // Each setting is its own call; on success the card shows what was stored (https://host, 5.00).
  const saved = { title: "Settings updated", description: "Your changes are saved." };
  const failed = (err: Error) => toastError("Error", err, "Failed to update settings");
  const saveDomains = (values: z.output<typeof domainsFormSchema>) =>
    saveSettings.mutate(
      [
        { key: "redirect_domain", value: values.redirect_domain },
        { key: "global_exit_domain", value: values.global_exit_domain },
      ],
      {
        onSuccess: () => {
          domains.reset(values);
          toast(saved);
        },
        onError: failed,
      },
    );
  const savePrice = (values: z.output<typeof priceFormSchema>) =>
    saveSettings.mutate([{ key: "max_domain_price", value: values.max_domain_price }], {
      onSuccess: () => {
        price.reset(values);
        toast(saved);
      },
      onError: failed,
    });

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
            <form className="grid gap-4" noValidate onSubmit={domains.handleSubmit(saveDomains)}>
              <Field label="Redirect Domain" error={domains.formState.errors.redirect_domain?.message} hint="For example trk.example.com">
                <Input {...domains.register("redirect_domain")} placeholder="trk.example.com" required />
              </Field>
              <Field
                label="Global Exit Domain (optional)"
                error={domains.formState.errors.global_exit_domain?.message}
                hint="Where lander exit clicks go; a trailing /click is removed. Empty uses the redirect domain."
              >
                <Input {...domains.register("global_exit_domain")} placeholder="exit.example.com" />
              </Field>
              <div>
                <Button type="submit" disabled={saveSettings.isPending}>
                  {saveSettings.isPending ? "Saving..." : "Save Domains"}
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
            <form className="grid gap-4" noValidate onSubmit={price.handleSubmit(savePrice)}>
              <Field label="Maximum Domain Price ($)" error={price.formState.errors.max_domain_price?.message}>
                <Input type="number" min={0} step={0.01} inputMode="decimal" {...price.register("max_domain_price")} className="tabular" />
              </Field>
              <div>
                <Button type="submit" disabled={saveSettings.isPending}>
                  {saveSettings.isPending ? "Saving..." : "Save Price"}
                </Button>
              </div>
            </form>
          </CardContent>
        </Card>
        <ReportTimeZoneCard />
        <SessionIdleCard />
      </div>
      <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-2">
        <RedeployWorkerCard />
        <DnsInstructionsCard redirectDomain={settings.data?.redirect_domain ?? ""} />
      </div>
    </>
  );
}
