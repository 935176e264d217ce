import { Pin, Plus, Trash2 } from "lucide-react";
import { useId } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { cn } from "@/lib/cn";
import { MAX_VARIANTS } from "../../../../../worker/src/schemas/paths";
import { formatShare, newVariant, percentages, type DraftVariant } from "../editor";

/** One line per variant: a grid of columns from sm up, wrapping lines on a phone. */
const ROW = "flex flex-wrap items-center gap-x-3 gap-y-2 px-3 sm:grid sm:grid-cols-[minmax(0,1fr)_4.5rem_3.5rem_3.5rem_3.5rem_2rem]";

interface VariantsEditorProps {
  kind: "landers" | "offers";
  /** "Lander" / "Offer". */
  noun: string;
  variants: DraftVariant[];
  onChange(variants: DraftVariant[]): void;
  choices: { id: number; name: string }[];
  /** By field inside the path ("landers", "landers.0.weight"). */
  problems: Record<string, string>;
  pathName: string;
}

/**
 * A path's landers or offers: each with its weight and, live as it is typed, its share in percent
 * (the shares of those not paused sum to 100), and its pause and pin switches.
 */
export function VariantsEditor({ kind, noun, variants, onChange, choices, problems, pathName }: VariantsEditorProps) {
  const id = useId();
  const shares = percentages(variants);
  const set = (i: number, change: Partial<DraftVariant>) => onChange(variants.map((v, j) => (j === i ? { ...v, ...change } : v)));
  const used = new Set(variants.map((v) => v.ref));
  const firstFree = choices.find((c) => !used.has(c.id));
  const total = shares.every((s) => s === null) ? null : 100;
  const listProblem = problems[kind];
  return (
    <fieldset className="grid gap-2" aria-describedby={listProblem ? `${id}-problem` : undefined}>
      <legend className="mb-1 flex w-full items-baseline justify-between gap-3 text-sm font-medium text-slate-700">
        <span>{noun}s</span>
        <span className="tabular text-xs font-normal text-slate-500" aria-live="polite">
          {variants.length ? `Total ${formatShare(total)}` : null}
        </span>
      </legend>
      {variants.length === 0 ? <p className="text-sm text-slate-500">No {noun.toLowerCase()}s in this path.</p> : null}
      {variants.length ? (
        <div className="overflow-hidden rounded-md border border-slate-200">
          {/* Column names from sm up; on a phone each control carries its own. */}
          <div aria-hidden="true" className={cn(ROW, "bg-slate-50 py-1.5 text-[11px] font-semibold uppercase tracking-wide text-slate-500 max-sm:hidden")}>
            <span>{noun}</span>
            <span className="text-right">Weight</span>
            <span className="text-right">Share</span>
            <span className="text-center">Paused</span>
            <span className="text-center">Pinned</span>
            <span />
          </div>
          <ul className="divide-y divide-slate-100">
            {variants.map((v, i) => {
              const label = choices.find((c) => c.id === v.ref)?.name ?? (v.ref === null ? `${noun} ${i + 1}` : `${noun} #${v.ref}`);
              const refProblem = problems[`${kind}.${i}.${kind === "landers" ? "landerId" : "offerId"}`];
              const weightProblem = problems[`${kind}.${i}.weight`];
              const rowProblems = Object.entries(problems)
                .filter(([k]) => k.startsWith(`${kind}.${i}.`))
                .map(([, m]) => m);
              const options = choices.filter((c) => c.id === v.ref || !used.has(c.id)).map((c) => ({ value: String(c.id), label: c.name }));
              if (v.ref !== null && !choices.some((c) => c.id === v.ref)) options.unshift({ value: String(v.ref), label: `${noun} #${v.ref} (deleted)` });
              const idle = v.paused || shares[i] === 0;
              return (
                <li key={v.key} className={cn("py-2", idle && "bg-slate-50")}>
                  <div className={ROW}>
                    <div className="min-w-0 max-sm:basis-full">
                      <Select
                        value={v.ref === null ? "" : String(v.ref)}
                        onValueChange={(value) => set(i, { ref: Number(value) })}
                        options={options}
                        placeholder={`Select a ${noun.toLowerCase()}`}
                        aria-label={`${noun} ${i + 1} of ${pathName}`}
                        className={refProblem ? "border-danger-600" : undefined}
                      />
                    </div>
                    <label className="flex items-center gap-1.5 text-xs text-slate-500">
                      <span className="sm:sr-only">Weight</span>
                      <Input
                        inputMode="numeric"
                        className="tabular h-9 w-20 text-right sm:w-full"
                        value={v.weight}
                        onChange={(e) => set(i, { weight: e.target.value })}
                        aria-label={`Weight of ${label}`}
                        aria-invalid={weightProblem ? true : undefined}
                      />
                    </label>
                    <output
                      className={cn("tabular w-14 text-right text-sm font-semibold sm:w-auto", idle ? "text-slate-400" : "text-slate-900")}
                      aria-label={`Share of ${label}`}
                    >
                      {formatShare(shares[i] ?? null)}
                    </output>
                    <label className="flex items-center gap-1.5 text-xs text-slate-600 sm:justify-center">
                      <Switch checked={v.paused} onCheckedChange={(paused) => set(i, { paused })} aria-label={`Pause ${label}`} />
                      <span className="sm:sr-only">Paused</span>
                    </label>
                    <label
                      className="flex items-center gap-1.5 text-xs text-slate-600 sm:justify-center"
                      title="Auto-optimisation leaves a pinned weight as set"
                    >
                      <Switch checked={v.pinned} onCheckedChange={(pinned) => set(i, { pinned })} aria-label={`Pin the weight of ${label}`} />
                      <span className="inline-flex items-center gap-1 sm:sr-only">
                        <Pin className="size-3.5" aria-hidden="true" />
                        Pinned
                      </span>
                    </label>
                    <Button
                      variant="ghost"
                      size="icon"
                      className="max-sm:ml-auto"
                      aria-label={`Remove ${label} from ${pathName}`}
                      onClick={() => onChange(variants.filter((_, j) => j !== i))}
                    >
                      <Trash2 className="text-danger-600" />
                    </Button>
                  </div>
                  {rowProblems.length ? (
                    <p role="alert" className="mt-1.5 px-3 text-xs text-danger-600">
                      {[...new Set(rowProblems)].join(" · ")}
                    </p>
                  ) : idle ? (
                    <p className="mt-1 px-3 text-xs text-slate-500">Receives nobody, returning visitors included.</p>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </div>
      ) : null}
      {listProblem ? (
        <p id={`${id}-problem`} role="alert" className="text-xs text-danger-600">
          {listProblem}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          variant="secondary"
          disabled={!firstFree || variants.length >= MAX_VARIANTS}
          onClick={() => firstFree && onChange([...variants, newVariant(firstFree.id)])}
        >
          <Plus />
          Add {noun.toLowerCase()}
        </Button>
        {variants.length > 1 ? (
          <Button size="sm" variant="ghost" onClick={() => onChange(variants.map((v) => ({ ...v, weight: "100" })))}>
            Split evenly
          </Button>
        ) : null}
      </div>
    </fieldset>
  );
}
