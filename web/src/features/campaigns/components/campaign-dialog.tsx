import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toast";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { createCampaignSchema } from "../../../../../worker/src/schemas/campaigns";
import {
  landerChoicesQuery,
  mediaBuyerChoicesQuery,
  offerChoicesQuery,
  sparkChoicesQuery,
  trackingDomainsQuery,
  useCreateCampaign,
  useUpdateCampaign,
  type Campaign,
} from "../api";

// Radix Select values must be non-empty: these stand for "nothing chosen".
const NO_OFFER = "none";
const NO_SPARK = "none";
const DEFAULT_DOMAIN = "default";
/** A Select's value for an id field: the id as text, or `none` when there is none. */
const fromId = (id: number | null | undefined, none: string) => (id == null ? none : String(id));

export function CampaignDialog({ campaign, onClose }: { campaign: Campaign | null; onClose(): void }) {
  const editing = campaign !== null;
  const landers = useQuery(landerChoicesQuery);
  const offers = useQuery(offerChoicesQuery);
  const domains = useQuery(trackingDomainsQuery);
  const sparks = useQuery(sparkChoicesQuery);
  const buyers = useQuery(mediaBuyerChoicesQuery);
  const buyerListId = useId();
  const create = useCreateCampaign();
  const update = useUpdateCampaign();
  // The API's own schema for a new campaign: the values are what the call sends (ids as numbers,
  // null for no offer and the default domain), so the form checks exactly what the server will.
  const form = useSchemaForm(createCampaignSchema, {
    name: campaign?.name ?? "",
    landerId: campaign?.landerId,
    offerId: campaign?.offerId ?? null,
    domainId: campaign?.domainId ?? null,
    bhToggle: campaign?.bhToggle ?? false,
    mediaBuyer: campaign?.mediaBuyer ?? "",
    sparkId: campaign?.sparkId ?? null,
  });
  const { errors } = form.formState;
  const busy = create.isPending || update.isPending;

  const onValid = (values: z.output<typeof createCampaignSchema>) => {
    const done = {
      onSuccess: () => {
        toast({ title: editing ? "Campaign updated" : "Campaign created", description: values.name });
        onClose();
      },
      onError: (err: unknown) => {
        showRefusal(
          form,
          err,
          ["name", "landerId", "offerId", "domainId", "mediaBuyer", "sparkId"],
          "Error",
          editing ? "Failed to update campaign" : "Failed to create campaign",
        );
      },
    };
    if (editing) {
      update.mutate(
        {
          id: campaign.id,
          ...values,
          offerId: values.offerId ?? null,
          domainId: values.domainId ?? null,
          mediaBuyer: values.mediaBuyer ?? null,
          sparkId: values.sparkId ?? null,
        },
        done,
      );
    } else {
      // docs/screens.md §7: offerId and domainId are omitted when none / default; so are a media buyer and a spark.
      const { offerId, domainId, mediaBuyer, sparkId, ...rest } = values;
      create.mutate(
        {
          ...rest,
          ...(offerId != null && { offerId }),
          ...(domainId != null && { domainId }),
          ...(mediaBuyer != null && { mediaBuyer }),
          ...(sparkId != null && { sparkId }),
        },
        done,
      );
    }
  };
  // docs/screens.md §8's toast when the name or the lander is missing; each field says so too.
  const onInvalid = () => toast({ title: "Validation error", description: "Please provide campaign name and select a lander", variant: "destructive" });

  const defaultLabel = domains.data?.defaultRedirectBase ? `Default (Settings) — ${new URL(domains.data.defaultRedirectBase).host}` : "Default (Settings)";

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={editing ? "Edit Campaign" : "Create Campaign"}
      description="Each campaign gets its own tracking link for your ads."
    >
      <form className="grid gap-4" onSubmit={form.handleSubmit(onValid, onInvalid)} noValidate>
        <Field label="Campaign Name" error={errors.name?.message}>
          <Input {...form.register("name")} placeholder="TikTok — Spring sweeps" maxLength={255} />
        </Field>
        <Field label="Lander" error={errors.landerId?.message} hint={landers.data?.length === 0 ? "Add a lander first on the Landers screen." : undefined}>
          <Select
            value={fromId(form.watch("landerId"), "")}
            onValueChange={(v) => form.setValue("landerId", Number(v), { shouldValidate: form.formState.isSubmitted })}
            placeholder={landers.isPending ? "Loading landers..." : "Select a lander"}
            options={(landers.data ?? []).map((l) => ({ value: String(l.id), label: l.name }))}
          />
        </Field>
        <Field label="Offer (optional)" hint="Where the lander's exit link sends visitors.">
          <Select
            value={fromId(form.watch("offerId"), NO_OFFER)}
            onValueChange={(v) => form.setValue("offerId", v === NO_OFFER ? null : Number(v))}
            options={[{ value: NO_OFFER, label: "No Offer" }, ...(offers.data ?? []).map((o) => ({ value: String(o.id), label: o.name }))]}
          />
        </Field>
        <Field
          label="Media Buyer (optional)"
          error={errors.mediaBuyer?.message}
          hint="Sent to the network as sub1 ({mediaBuyer}): the Stats' Media Buyer for this campaign's conversions."
        >
          <Input {...form.register("mediaBuyer")} list={buyerListId} maxLength={50} placeholder="Pick a known one or type a new one" autoComplete="off" />
        </Field>
        <datalist id={buyerListId}>
          {(buyers.data?.mediaBuyers ?? []).map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <Field
          label="Spark (optional)"
          error={errors.sparkId?.message}
          hint={sparks.data?.length === 0 ? "No sparks yet: add one on the Sparks screen." : "Its Spark ID is sent as sub3 ({spark}): the Stats' Spark."}
        >
          <Select
            value={fromId(form.watch("sparkId"), NO_SPARK)}
            onValueChange={(v) => form.setValue("sparkId", v === NO_SPARK ? null : Number(v))}
            options={[
              { value: NO_SPARK, label: "No Spark" },
              ...(sparks.data ?? []).map((sp) => ({ value: String(sp.id), label: `${sp.name} (${sp.sparkId})` })),
            ]}
          />
        </Field>
        <Field label="Tracking Domain (optional)">
          <Select
            value={fromId(form.watch("domainId"), DEFAULT_DOMAIN)}
            onValueChange={(v) => form.setValue("domainId", v === DEFAULT_DOMAIN ? null : Number(v))}
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
          <Switch checked={form.watch("bhToggle") ?? false} onCheckedChange={(on) => form.setValue("bhToggle", on)} aria-label="Enable redirect to lander" />
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
