import { useQuery } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useId } from "react";
import { Card } from "@/components/ui/card";
import { Switch } from "@/components/ui/switch";
import { toast, toastError } from "@/components/ui/toast";
import { twoFactorRequirementQuery, useSetTwoFactorRequirement } from "../api";

/** The admin's switch: everyone must use two-factor sign-in (those without it set it up at their next sign-in). */
export function TwoFactorRequirementCard() {
  const id = useId();
  const requirement = useQuery(twoFactorRequirementQuery);
  const save = useSetTwoFactorRequirement();
  const data = requirement.data;
  return (
    <Card className="mb-6 flex flex-col gap-3 p-5 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex items-start gap-3">
        <ShieldCheck className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
        <div>
          <label htmlFor={id} className="text-sm font-semibold text-slate-900">
            Require two-factor sign-in for everyone
          </label>
          <p id={`${id}-note`} className="text-sm text-slate-500">
            {data && !data.configured
              ? "Not available: the server has no TWO_FACTOR_KEY secret."
              : "Users without it are sent to set it up at their next sign-in, and cannot turn it off."}
          </p>
        </div>
      </div>
      <Switch
        id={id}
        aria-describedby={`${id}-note`}
        checked={data?.required ?? false}
        disabled={!data || (!data.configured && !data.required) || save.isPending}
        onCheckedChange={(required) =>
          save.mutate(required, {
            onSuccess: () => toast({ title: required ? "Two-factor sign-in required" : "Two-factor sign-in optional" }),
            onError: (err) => toastError("Failed to update the requirement", err, "Could not save"),
          })
        }
      />
    </Card>
  );
}
