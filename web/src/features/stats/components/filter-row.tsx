import { useQuery } from "@tanstack/react-query";
import { Field } from "@/components/ui/field";
import { Select, type SelectOption } from "@/components/ui/select";
import type { DayRange } from "@/lib/date-ranges";
import { NO_SPARK } from "../../../../../worker/src/schemas/stats";
import { filtersQuery, offerChoicesQuery, sparkChoicesQuery } from "../api";
import { VARIABLES, type Variable } from "../groupings";

export interface Filters {
  variable: Variable;
  offerId: number | null;
  sparkId: string | null;
  mediaBuyer: string | null;
}

export const NO_FILTERS: Filters = { variable: "none", offerId: null, sparkId: null, mediaBuyer: null };

// Select values are prefixed, so no media buyer or spark id can collide with "all" or "none".
const ALL = "all";
const offerValue = (id: number) => `offer:${id}`;
const sparkValue = (id: string) => `spark:${id}`;
const buyerValue = (sub1: string) => `buyer:${sub1}`;
const unprefix = (value: string) => value.slice(value.indexOf(":") + 1);

/** A choice the list no longer holds (a buyer without rows in the new range) stays selectable. */
const keepSelected = (options: SelectOption[], value: string, label: string) =>
  value === ALL || options.some((o) => o.value === value) ? options : [...options, { value, label }];

/** The product's filter row: tracking-field variable, offer, spark (with No Spark), media buyer. */
export function FilterRow({ filters, onChange, range }: { filters: Filters; onChange(patch: Partial<Filters>): void; range: DayRange }) {
  const offers = useQuery(offerChoicesQuery);
  const sparks = useQuery(sparkChoicesQuery);
  const buyers = useQuery(filtersQuery(range));

  const offerSelected = filters.offerId === null ? ALL : offerValue(filters.offerId);
  const sparkSelected = filters.sparkId === null ? ALL : filters.sparkId === NO_SPARK ? NO_SPARK : sparkValue(filters.sparkId);
  const buyerSelected = filters.mediaBuyer === null ? ALL : buyerValue(filters.mediaBuyer);

  const offerOptions = keepSelected(
    [{ value: ALL, label: "All Offers" }, ...(offers.data ?? []).map((o) => ({ value: offerValue(o.id), label: o.name }))],
    offerSelected,
    `Offer ${filters.offerId}`,
  );
  const sparkOptions = keepSelected(
    [
      { value: ALL, label: "All Sparks" },
      { value: NO_SPARK, label: "No Spark" },
      // docs/screens.md §2: each spark as its name plus its spark id.
      ...(sparks.data ?? []).map((s) => ({ value: sparkValue(s.sparkId), label: `${s.name} (${s.sparkId})` })),
    ],
    sparkSelected,
    filters.sparkId ?? "",
  );
  const buyerOptions = keepSelected(
    [{ value: ALL, label: "All Media Buyers" }, ...(buyers.data?.mediaBuyers ?? []).filter(Boolean).map((b) => ({ value: buyerValue(b), label: b }))],
    buyerSelected,
    filters.mediaBuyer ?? "",
  );

  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
      <Field label="Variables (Tracking Fields)">
        <Select
          value={filters.variable}
          onValueChange={(v) => onChange({ variable: v as Variable })}
          options={VARIABLES.map((v) => ({ value: v.value, label: v.label }))}
        />
      </Field>
      <Field label="Offer">
        <Select value={offerSelected} onValueChange={(v) => onChange({ offerId: v === ALL ? null : Number(unprefix(v)) })} options={offerOptions} />
      </Field>
      <Field label="Spark">
        <Select
          value={sparkSelected}
          onValueChange={(v) => onChange({ sparkId: v === ALL ? null : v === NO_SPARK ? NO_SPARK : unprefix(v) })}
          options={sparkOptions}
        />
      </Field>
      <Field label="Media Buyer">
        <Select value={buyerSelected} onValueChange={(v) => onChange({ mediaBuyer: v === ALL ? null : unprefix(v) })} options={buyerOptions} />
      </Field>
    </div>
  );
}
