import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { toast, toastError } from "@/components/ui/toast";
import { landerChoicesQuery, offerChoicesQuery, trackingDomainsQuery, useCreateCampaign, useUpdateCampaign, type Campaign } from "../api";

// Radix Select values must be non-empty: these stand for "nothing chosen".
const NO_OFFER = "none";
const DEFAULT_DOMAIN = "default";

export function CampaignDialog({ campaign, onClose }: { campaign: Campaign | null; onClose(): void }) {
  const editing = campaign !== null;
  const landers = useQuery(landerChoicesQuery);
  const offers = useQuery(offerChoicesQuery);
  const domains = useQuery(trackingDomainsQuery);
  const create = useCreateCampaign();
  const update = useUpdateCampaign();
  const [name, setName] = useState(campaign?.name ?? "");
  const [landerId, setLanderId] = useState(campaign ? String(campaign.landerId) : "");
  const [offerId, setOfferId] = useState(campaign?.offerId ? String(campaign.offerId) : NO_OFFER);
  const [domainId, setDomainId] = useState(campaign?.domainId ? String(campaign.domainId) : DEFAULT_DOMAIN);
  const [bhToggle, setBhToggle] = useState(campaign?.bhToggle ?? false);
  const busy = create.isPending || update.isPending;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || !landerId) {
      toast({ title: "Validation error", description: "Please provide campaign name and select a lander", variant: "destructive" });
      return;
    }
    const offer = offerId === NO_OFFER ? null : Number(offerId);
    const domain = domainId === DEFAULT_DOMAIN ? null : Number(domainId);
    const done = {
      onSuccess: () => {
        toast({ title: editing ? "Campaign updated" : "Campaign created", description: name.trim() });
        onClose();
      },
      onError: (err: unknown) => toastError("Error", err, editing ? "Failed to update campaign" : "Failed to create campaign"),
    };
    if (editing) {
      update.mutate({ id: campaign.id, name, landerId: Number(landerId), offerId: offer, domainId: domain, bhToggle }, done);
    } else {
      // docs/screens.md §7: offerId and domainId are omitted when none / default.
      create.mutate(
        { name, landerId: Number(landerId), bhToggle, ...(offer !== null && { offerId: offer }), ...(domain !== null && { domainId: domain }) },
        done,
      );
    }
  };

  const defaultLabel = domains.data?.defaultRedirectBase ? `Default (Settings) — ${new URL(domains.data.defaultRedirectBase).host}` : "Default (Settings)";

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={editing ? "Edit Campaign" : "Create Campaign"}
      description="Each campaign gets its own tracking link for your ads."
    >
      <form className="grid gap-4" onSubmit={onSubmit} noValidate>
        <Field label="Campaign Name">
          <Input value={name} onChange={(e) => setName(e.target.value)} placeholder="TikTok — Spring sweeps" maxLength={255} />
        </Field>
        <Field label="Lander" hint={landers.data?.length === 0 ? "Add a lander first on the Landers screen." : undefined}>
          <Select
            value={landerId}
            onValueChange={setLanderId}
            placeholder={landers.isPending ? "Loading landers..." : "Select a lander"}
            options={(landers.data ?? []).map((l) => ({ value: String(l.id), label: l.name }))}
          />
        </Field>
        <Field label="Offer (optional)" hint="Where the lander's exit link sends visitors.">
          <Select
            value={offerId}
            onValueChange={setOfferId}
            options={[{ value: NO_OFFER, label: "No Offer" }, ...(offers.data ?? []).map((o) => ({ value: String(o.id), label: o.name }))]}
          />
        </Field>
        <Field label="Tracking Domain (optional)">
          <Select
            value={domainId}
            onValueChange={setDomainId}
            options={[
              { value: DEFAULT_DOMAIN, label: defaultLabel },
              ...(domains.data?.domains ?? []).map((d) => ({ value: String(d.id), label: d.host ?? d.domain })),
            ]}
          />
        </Field>
        <label className="flex items-center justify-between gap-4 rounded-md border border-slate-200 p-3">
          <span className="grid gap-0.5">
            <span className="text-sm font-medium text-slate-800">BH Toggle</span>
            <span className="text-xs text-slate-500">Enable redirect to lander</span>
          </span>
          <Switch checked={bhToggle} onCheckedChange={setBhToggle} aria-label="Enable redirect to lander" />
        </label>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy ? "Saving..." : editing ? "Save Changes" : "Create Campaign"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
