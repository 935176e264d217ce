import { Trash2, X } from "lucide-react";
import { useId } from "react";
import { Button } from "@/components/ui/button";
import { Combobox } from "@/components/ui/combobox";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { cn } from "@/lib/cn";
import { CONDITION_FIELDS, type ConditionField } from "../../../../../worker/src/schemas/paths";
import { COUNTRIES, countryName } from "../countries";
import { FIELD_LABELS, PICKED_FIELDS, WEEKDAYS, type DraftCondition, type Op } from "../editor";

const FIELD_OPTIONS = CONDITION_FIELDS.map((f) => ({ value: f, label: FIELD_LABELS[f] }));
const OP_OPTIONS = [
  { value: "is", label: "is" },
  { value: "isNot", label: "is not" },
];
const COUNTRY_OPTIONS = COUNTRIES.map((c) => ({ value: c.code, label: c.label }));

/** What a typed field's values look like, said under the box. */
const HINTS: Partial<Record<ConditionField, string>> = {
  region: "Comma-separated, as Cloudflare names them: California, Bavaria",
  city: "Comma-separated: Manila, Cebu City",
  deviceType: "Comma-separated: mobile, tablet, desktop",
  os: "Comma-separated: iOS, Android, Windows",
  browser: "Comma-separated: Chrome, Safari, TikTok",
  language: "Comma-separated language codes: en, de, fil",
  asn: "Comma-separated AS numbers: 7922, 9299",
  param: "Comma-separated values of the parameter: tt, fb",
};

interface ConditionRowProps {
  condition: DraftCondition;
  index: number;
  pathName: string;
  onChange(condition: DraftCondition): void;
  onRemove(): void;
  /** By field inside the condition ("values", "param", "" for the condition itself). */
  problems: Record<string, string>;
}

function Toggles({
  options,
  values,
  onChange,
  label,
}: {
  options: { value: string; label: string; name: string }[];
  values: string[];
  onChange(v: string[]): void;
  label: string;
}) {
  return (
    <div role="group" aria-label={label} className="flex flex-wrap gap-1">
      {options.map((o) => {
        const on = values.includes(o.value);
        return (
          <button
            key={o.value}
            type="button"
            aria-pressed={on}
            aria-label={o.name}
            onClick={() => onChange(on ? values.filter((v) => v !== o.value) : [...values, o.value].sort((a, b) => Number(a) - Number(b)))}
            className={cn(
              "tabular h-8 min-w-9 rounded-md border px-2 text-xs font-medium focus-visible:outline-2 focus-visible:outline-brand-600",
              on ? "border-brand-700 bg-brand-700 text-white" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
            )}
          >
            {o.label}
          </button>
        );
      })}
    </div>
  );
}

const WEEKDAY_OPTIONS = WEEKDAYS.map((name, i) => ({ value: String(i), label: name.slice(0, 3), name }));
const HOUR_OPTIONS = Array.from({ length: 24 }, (_, h) => ({
  value: String(h),
  label: String(h).padStart(2, "0"),
  name: `${String(h).padStart(2, "0")}:00 to ${String(h).padStart(2, "0")}:59`,
}));

/** One condition of a rule path: field, is / is not, and its values (ORed). */
export function ConditionRow({ condition: c, index, pathName, onChange, onRemove, problems }: ConditionRowProps) {
  const id = useId();
  const set = (change: Partial<DraftCondition>) => onChange({ ...c, ...change });
  const name = `condition ${index + 1} of ${pathName}`;
  const messages = [...new Set(Object.values(problems))];
  return (
    <li className="grid gap-2 rounded-md border border-slate-200 p-2.5">
      <div className="flex flex-wrap items-center gap-2">
        <Select
          className="w-full sm:w-44"
          value={c.field}
          onValueChange={(field) => set({ field: field as ConditionField, values: [], text: "" })}
          options={FIELD_OPTIONS}
          aria-label={`Field of ${name}`}
        />
        {c.field === "param" ? (
          <Input
            className="w-full sm:w-40"
            value={c.param}
            onChange={(e) => set({ param: e.target.value })}
            placeholder="utm_source"
            aria-label={`Query parameter of ${name}`}
            aria-invalid={problems.param ? true : undefined}
          />
        ) : null}
        <Select className="w-28" value={c.op} onValueChange={(op) => set({ op: op as Op })} options={OP_OPTIONS} aria-label={`Operator of ${name}`} />
        <Button variant="ghost" size="icon" className="ml-auto" aria-label={`Remove ${name}`} onClick={onRemove}>
          <Trash2 className="text-danger-600" />
        </Button>
      </div>
      {c.field === "country" ? (
        <div className="grid gap-2">
          {c.values.length ? (
            <ul className="flex flex-wrap gap-1.5" aria-label={`Countries of ${name}`}>
              {c.values.map((code) => (
                <li key={code} className="inline-flex items-center gap-1 rounded-full bg-brand-50 py-0.5 pl-2.5 pr-1 text-xs font-medium text-brand-800">
                  {countryName(code)}
                  <button
                    type="button"
                    className="rounded-full p-0.5 hover:bg-brand-100"
                    aria-label={`Remove ${countryName(code)}`}
                    onClick={() => set({ values: c.values.filter((v) => v !== code) })}
                  >
                    <X className="size-3" aria-hidden="true" />
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          <Combobox
            className="sm:max-w-xs"
            value=""
            onValueChange={(code) => code && !c.values.includes(code) && set({ values: [...c.values, code] })}
            options={COUNTRY_OPTIONS.filter((o) => !c.values.includes(o.value))}
            placeholder="Add a country: type a name or code"
            empty="No country matches"
            aria-label={`Add a country to ${name}`}
            aria-invalid={problems.values ? true : undefined}
          />
        </div>
      ) : c.field === "weekday" ? (
        <Toggles label={`Days of ${name}`} options={WEEKDAY_OPTIONS} values={c.values} onChange={(values) => set({ values })} />
      ) : c.field === "hour" ? (
        <Toggles label={`Hours of ${name} (report time zone)`} options={HOUR_OPTIONS} values={c.values} onChange={(values) => set({ values })} />
      ) : (
        <div className="grid gap-1">
          <Input
            value={c.text}
            onChange={(e) => set({ text: e.target.value })}
            aria-label={`Values of ${name}`}
            aria-describedby={`${id}-hint`}
            aria-invalid={problems.values ? true : undefined}
          />
          <p id={`${id}-hint`} className="text-xs text-slate-500">
            {HINTS[c.field]}
          </p>
        </div>
      )}
      {messages.length ? (
        <p role="alert" className="text-xs text-danger-600">
          {messages.join(" · ")}
        </p>
      ) : null}
      {PICKED_FIELDS.includes(c.field) && c.field !== "country" ? (
        <p className="text-xs text-slate-500">{c.field === "hour" ? "Hours" : "Days"} are read in the report time zone.</p>
      ) : null}
    </li>
  );
}
