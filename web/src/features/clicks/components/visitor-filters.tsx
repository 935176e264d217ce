import { ChevronDown, SlidersHorizontal } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { cn } from "@/lib/cn";
import { Select, type SelectOption } from "@/components/ui/select";
import { UNKNOWN_VALUE } from "../../../../../worker/src/schemas/clicks";
import { ALL, type ClickFacets, type VisitorFilters } from "../api";
import { countryLabel } from "../../../../../worker/src/lib/country";

type Facet = ClickFacets["countries"][number];

/** A facet's choices: "All …", then each value with its clicks ("Unknown" for clicks where it is not known). */
function choices(all: string, facets: Facet[] | undefined, selected: string, label: (value: string) => string = (v) => v): SelectOption[] {
  const options: SelectOption[] = [{ value: ALL, label: all }];
  for (const f of facets ?? []) {
    options.push({ value: f.value || UNKNOWN_VALUE, label: `${f.value ? label(f.value) : "Unknown"} (${f.clicks.toLocaleString("en-US")})` });
  }
  // A choice the new range no longer holds stays selectable, so the filter never silently changes.
  if (!options.some((o) => o.value === selected)) options.push({ value: selected, label: selected === UNKNOWN_VALUE ? "Unknown" : label(selected) });
  return options;
}

const BOT_CHOICES: SelectOption[] = [
  { value: "all", label: "All visitors" },
  { value: "human", label: "People only" },
  { value: "bot", label: "Bots only" },
];

/** How many of the visitor filters narrow the list. */
export const activeVisitorFilters = (v: VisitorFilters) => (v.bot !== "all" ? 1 : 0) + [v.country, v.device, v.os, v.browser].filter((x) => x !== ALL).length;

/**
 * The Click Log's second filter row: people or bots, country, device, OS, browser. On a phone it
 * folds behind a "Filters (N active)" button, so the first click is on the first screen; from
 * `sm` up it is always open (the button is not shown).
 */
export function VisitorFiltersRow({
  value,
  onChange,
  facets,
}: {
  value: VisitorFilters;
  onChange(patch: Partial<VisitorFilters>): void;
  facets: ClickFacets | undefined;
}) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  const active = activeVisitorFilters(value);
  return (
    <div className="grid gap-3">
      <Button variant="secondary" className="justify-self-start sm:hidden" aria-expanded={open} aria-controls={panel} onClick={() => setOpen((o) => !o)}>
        <SlidersHorizontal />
        {active ? `Filters (${active} active)` : "Filters"}
        <ChevronDown className={cn("transition-transform", open && "rotate-180")} />
      </Button>
      <div id={panel} role="group" aria-label="Visitor filters" className={cn("grid grid-cols-2 gap-3 lg:grid-cols-5", !open && "max-sm:hidden")}>
        <Field label="Visitors">
          <Select value={value.bot} onValueChange={(v) => onChange({ bot: v as VisitorFilters["bot"] })} options={BOT_CHOICES} />
        </Field>
        <Field label="Country">
          <Select
            value={value.country}
            onValueChange={(v) => onChange({ country: v })}
            options={choices("All countries", facets?.countries, value.country, countryLabel)}
          />
        </Field>
        <Field label="Device">
          <Select value={value.device} onValueChange={(v) => onChange({ device: v })} options={choices("All devices", facets?.devices, value.device)} />
        </Field>
        <Field label="OS">
          <Select value={value.os} onValueChange={(v) => onChange({ os: v })} options={choices("All systems", facets?.oses, value.os)} />
        </Field>
        <Field label="Browser">
          <Select value={value.browser} onValueChange={(v) => onChange({ browser: v })} options={choices("All browsers", facets?.browsers, value.browser)} />
        </Field>
      </div>
    </div>
  );
}
