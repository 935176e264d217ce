import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { toast } from "@/components/ui/toast";
import { showRefusal, useSchemaForm } from "@/lib/schema-form";
import { PENDING_EVENT_CHOICES, tiktokEventSettingsSchema, type TikTokEventSettings } from "../../../../../worker/src/schemas/tiktok-events";
import { useSaveEventSettings } from "../api";

/**
 * The Events API's settings form, its own chunk (loaded by tiktok-events.tsx when an admin opens
 * it), so the form library stays out of the Stats screen's first load.
 */
export default function SettingsDialog({ open, onOpenChange, current }: { open: boolean; onOpenChange(open: boolean): void; current: TikTokEventSettings }) {
  // The four fields only: the schema is strict, as the API is.
  const { pixelCode, testEventCode, pendingEvent, currency } = current;
  const form = useSchemaForm(tiktokEventSettingsSchema, { pixelCode, testEventCode, pendingEvent, currency });
  const { errors } = form.formState;
  const save = useSaveEventSettings();
  const testing = Boolean(form.watch("testEventCode")?.trim());
  const submit = (settings: TikTokEventSettings) =>
    save.mutate(settings, {
      onSuccess: () => {
        const description = !settings.pixelCode
          ? "Sending to TikTok is off."
          : settings.testEventCode
            ? "Conversions go to Test Events only until the test event code is cleared."
            : "Conversions go to TikTok from now on.";
        toast({ title: "Settings updated", description });
        onOpenChange(false);
      },
      onError: (err) => {
        showRefusal(form, err, ["pixelCode", "testEventCode", "pendingEvent", "currency"], "Error", "Failed to update settings");
      },
    });
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="TikTok Events API"
      description="Approved CAKE conversions whose click came from TikTok are sent to this pixel. The access token is the TIKTOK_EVENTS_ACCESS_TOKEN secret."
    >
      <form className="grid gap-4" onSubmit={form.handleSubmit(submit)} noValidate>
        <Field label="Pixel code" error={errors.pixelCode?.message} hint="Events Manager → your pixel's ID (event_source_id). Empty turns sending off.">
          <Input {...form.register("pixelCode")} placeholder="C4A1B2C3D4E5F6G7H8I9" autoComplete="off" />
        </Field>
        <Field
          label="Test event code"
          error={errors.testEventCode?.message}
          hint={
            testing ? (
              <span className="text-amber-800">While set, every conversion goes to Test Events and counts for nothing: clear it once testing is done.</span>
            ) : (
              "Optional, for testing: events then show under Test Events instead of counting."
            )
          }
        >
          <Input {...form.register("testEventCode")} placeholder="TEST12345" autoComplete="off" />
        </Field>
        <Field label="Pending conversions" error={errors.pendingEvent?.message}>
          <Select
            value={form.watch("pendingEvent") || "none"}
            onValueChange={(v) => form.setValue("pendingEvent", PENDING_EVENT_CHOICES.find((e) => e === v) ?? "")}
            options={PENDING_EVENT_CHOICES.map((e) => (e ? { value: e, label: `Send as ${e}` } : { value: "none", label: "Not sent (wait until approved)" }))}
          />
        </Field>
        <Field label="Currency" error={errors.currency?.message} hint="Of the payout sent as the purchase's value.">
          <Input {...form.register("currency")} maxLength={3} className="w-24 uppercase" />
        </Field>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving..." : "Save"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
