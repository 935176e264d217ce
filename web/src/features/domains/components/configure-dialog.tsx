import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/toast";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { configureBodySchema, DEFAULT_SUBDOMAIN } from "../../../../../worker/src/schemas/domains";
import { useConfigureDomain, type Domain } from "../api";

/** Configure DNS / Retry Configuration: the tracking subdomain, previewed as sub.domain. */
export function ConfigureDialog({ domain, onClose }: { domain: Domain; onClose(): void }) {
  const retry = domain.status !== "purchased";
  const form = useSchemaForm(configureBodySchema, { subdomain: domain.subdomain ?? DEFAULT_SUBDOMAIN });
  const error = form.formState.errors.subdomain?.message;
  const configure = useConfigureDomain();
  const preview = `${(form.watch("subdomain") ?? "").trim().toLowerCase() || "…"}.${domain.domain}`;

  const submit = ({ subdomain }: { subdomain: string }) =>
    configure.mutate(
      { id: domain.id, subdomain },
      {
        onSuccess: (answer) => {
          // "Domain configured" only when it is live; a zone still pending is a start, which the list follows.
          if (answer.domain?.status === "active") toast({ title: "Domain configured", description: answer.message });
          else
            toast({
              title: "DNS configuration started",
              description: `Nameservers set at Namecheap; waiting for Cloudflare to activate the zone of ${domain.domain} (usually minutes, at most 48 hours). Trackyard then attaches ${answer.domain?.host ?? "the tracking host"} by itself: the list shows its progress.`,
            });
          onClose();
        },
        onError: (err) => {
          showRefusal(form, err, ["subdomain"], "Error configuring domain", "Failed to configure domain");
        },
      },
    );

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()} title={retry ? "Retry Configuration" : "Configure DNS"} description={domain.domain}>
      <form onSubmit={form.handleSubmit(submit)} noValidate className="grid gap-4">
        <Field label="Subdomain" error={error} hint="Lower-case letters, digits and hyphens, e.g. trk, go, click.">
          <Input {...form.register("subdomain")} autoComplete="off" autoCapitalize="none" spellCheck={false} autoFocus />
        </Field>
        <div className="rounded-md bg-slate-50 px-3 py-2 text-sm">
          <span className="text-slate-500">Tracking host: </span>
          <span className="break-all font-mono font-medium text-slate-900">{preview}</span>
        </div>
        <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-600">
          <li>Creates the Cloudflare zone for {domain.domain} (or reuses it).</li>
          <li>Points the domain's nameservers at Cloudflare, at Namecheap.</li>
          <li>
            Once Cloudflare activates the zone, attaches the tracking host to this Worker. That can take minutes or, rarely, up to 48 hours; Trackyard finishes
            it by itself.
          </li>
        </ol>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={configure.isPending}>
            {configure.isPending ? "Configuring..." : retry ? "Retry Configuration" : "Configure DNS"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
