import { ArrowDown, ArrowUp, FlaskConical, History, Plus, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { MAX_CONDITIONS } from "../../../../../worker/src/schemas/paths";
import { hasOwnPlace, newCondition, type DraftPath, type OptimiseMode } from "../editor";
import { ConditionRow } from "./condition-row";
import { VariantsEditor } from "./variants-editor";

const MODE_OPTIONS: { value: OptimiseMode; label: string }[] = [
  { value: "off", label: "Off: weights stay as set" },
  { value: "cr", label: "Conversion rate" },
  { value: "epv", label: "Revenue per visit" },
];

const OPTIMISATION_FIELDS = [
  { field: "windowDays", label: "Days", inputMode: "numeric" },
  { field: "floorPercent", label: "Floor %", inputMode: "decimal" },
  { field: "minVisits", label: "Min. visits", inputMode: "numeric" },
] as const;

interface PathCardProps {
  path: DraftPath;
  index: number;
  count: number;
  /** By field inside the path. */
  problems: Record<string, string>;
  landers: { id: number; name: string }[];
  offers: { id: number; name: string }[];
  readOnly: boolean;
  onChange(path: DraftPath): void;
  onMove(direction: -1 | 1): void;
  onRemove(): void;
  onHistory(): void;
  onSplitTest?: () => void;
}

const Section = ({ title, children, note }: { title: string; children: ReactNode; note?: ReactNode }) => (
  <section className="grid gap-2 border-t border-slate-100 px-4 py-4 sm:px-5">
    <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</h3>
    {note ? <p className="-mt-1 text-xs text-slate-500">{note}</p> : null}
    {children}
  </section>
);

/** One path of the Traffic distribution screen: who it takes, where it sends them, how weights move. */
export function PathCard({ path: p, index, count, problems, landers, offers, readOnly, onChange, onMove, onRemove, onHistory, onSplitTest }: PathCardProps) {
  const set = (change: Partial<DraftPath>) => onChange({ ...p, ...change });
  const setOpt = (change: Partial<DraftPath["optimisation"]>) => set({ optimisation: { ...p.optimisation, ...change } });
  const name = p.name.trim() || `Path ${index + 1}`;
  const elsewhere = Object.entries(problems).filter(([field]) => !hasOwnPlace(field, p));
  const conditionProblems = (i: number) =>
    Object.fromEntries(
      Object.entries(problems)
        .filter(([k]) => k === `conditions.${i}` || k.startsWith(`conditions.${i}.`))
        .map(([k, v]) => [k.slice(`conditions.${i}.`.length), v]),
    );
  const lastRule = index === count - 2;
  return (
    <Card className="overflow-hidden" aria-label={`Path ${index + 1}: ${name}`} role="group" data-path-key={p.key}>
      <div className="flex flex-wrap items-start gap-3 px-4 py-4 sm:px-5">
        <span
          className="tabular mt-1.5 flex size-7 shrink-0 items-center justify-center rounded-full bg-slate-100 text-xs font-semibold text-slate-700"
          aria-hidden="true"
        >
          {index + 1}
        </span>
        <div className="min-w-0 flex-1 basis-48">
          <Field label={<span className="sr-only">Path name</span>} error={problems.name}>
            <Input
              value={p.name}
              disabled={readOnly}
              onChange={(e) => set({ name: e.target.value })}
              maxLength={255}
              aria-label={`Name of path ${index + 1}`}
              className="font-medium"
            />
          </Field>
          <p className="mt-1 text-xs text-slate-500">
            {p.isDefault ? (
              <>
                <Badge variant="secondary" className="mr-1.5">
                  Default
                </Badge>
                Every visitor no rule above takes. Always evaluated last.
              </>
            ) : (
              "Takes a visitor who meets every condition (first match wins, top to bottom)."
            )}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-1">
          <Button size="sm" variant="ghost" onClick={onHistory} disabled={p.id === undefined} title={p.id === undefined ? "Save the path first" : undefined}>
            <History />
            Weight history
          </Button>
          {onSplitTest ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={onSplitTest}
              disabled={p.id === undefined}
              title={p.id === undefined ? "Save the path first" : undefined}
            >
              <FlaskConical />
              Split test
            </Button>
          ) : null}
          {!p.isDefault && !readOnly ? (
            <>
              <Button variant="ghost" size="icon" id={`move-up-${p.key}`} aria-label={`Move ${name} up`} disabled={index === 0} onClick={() => onMove(-1)}>
                <ArrowUp />
              </Button>
              <Button variant="ghost" size="icon" id={`move-down-${p.key}`} aria-label={`Move ${name} down`} disabled={lastRule} onClick={() => onMove(1)}>
                <ArrowDown />
              </Button>
              <Button variant="ghost" size="icon" aria-label={`Delete ${name}`} onClick={onRemove}>
                <Trash2 className="text-danger-600" />
              </Button>
            </>
          ) : null}
        </div>
      </div>
      {elsewhere.length ? (
        <div role="alert" className="mx-4 mb-3 rounded-md border border-danger-200 bg-danger-50 px-3 py-2 text-sm text-danger-700 sm:mx-5">
          {elsewhere.map(([, message]) => message).join(" · ")}
        </div>
      ) : null}
      {/* Fields of a member who may only look are disabled all at once. */}
      <fieldset disabled={readOnly} className="contents">
        {p.isDefault ? null : (
          <Section title="Conditions" note="All must match; a visitor matching any one value of a condition matches it.">
            <ul className="grid gap-2">
              {p.conditions.map((c, i) => (
                <ConditionRow
                  key={c.key}
                  condition={c}
                  index={i}
                  pathName={name}
                  problems={conditionProblems(i)}
                  onChange={(next) => set({ conditions: p.conditions.map((x, j) => (j === i ? next : x)) })}
                  onRemove={() => set({ conditions: p.conditions.filter((_, j) => j !== i) })}
                />
              ))}
            </ul>
            {problems.conditions ? (
              <p role="alert" className="text-xs text-danger-600">
                {problems.conditions}
              </p>
            ) : null}
            <div>
              <Button
                size="sm"
                variant="secondary"
                disabled={p.conditions.length >= MAX_CONDITIONS}
                onClick={() => set({ conditions: [...p.conditions, newCondition()] })}
              >
                <Plus />
                Add condition
              </Button>
            </div>
          </Section>
        )}
        <Section title="Destinations">
          <label className="flex items-center justify-between gap-4 rounded-md border border-slate-200 p-3">
            <span className="grid gap-0.5">
              <span className="text-sm font-medium text-slate-800">Straight to offer</span>
              <span className="text-xs text-slate-500">No lander: visitors go straight to one of the offers.</span>
            </span>
            <Switch
              checked={p.directToOffer}
              onCheckedChange={(directToOffer) => set({ directToOffer })}
              aria-label={`Send visitors of ${name} straight to an offer`}
            />
          </label>
          {p.directToOffer ? null : (
            <VariantsEditor
              kind="landers"
              noun="Lander"
              variants={p.landers}
              onChange={(v) => set({ landers: v })}
              choices={landers}
              problems={problems}
              pathName={name}
            />
          )}
          <VariantsEditor
            kind="offers"
            noun="Offer"
            variants={p.offers}
            onChange={(v) => set({ offers: v })}
            choices={offers}
            problems={problems}
            pathName={name}
          />
        </Section>
        <Section title="Returning visitors and auto-optimisation">
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="grid content-start gap-2">
              <label className="flex items-center gap-2 text-sm text-slate-800">
                <Switch checked={p.sticky} onCheckedChange={(sticky) => set({ sticky })} aria-label={`Sticky visitors on ${name}`} />
                Sticky visitors
              </label>
              {p.sticky ? (
                <Field label="Same lander for (days)" error={problems.stickyDays} hint="Recognised by a keyed hash of IP and browser, no cookie.">
                  <Input inputMode="numeric" className="tabular w-24 text-right" value={p.stickyDays} onChange={(e) => set({ stickyDays: e.target.value })} />
                </Field>
              ) : (
                <p className="text-xs text-slate-500">Off: each visit is rotated afresh.</p>
              )}
            </div>
            <div className="grid content-start gap-3">
              <Field label="Auto-optimisation">
                <Select value={p.optimisation.mode} onValueChange={(mode) => setOpt({ mode: mode as OptimiseMode })} options={MODE_OPTIONS} />
              </Field>
              {p.optimisation.mode === "off" ? null : (
                <div className="grid grid-cols-3 gap-2">
                  {OPTIMISATION_FIELDS.map(({ field, label, inputMode }) => (
                    <Field key={field} label={label} error={problems[`optimisation.${field}`]}>
                      <Input
                        inputMode={inputMode}
                        className="tabular text-right"
                        value={p.optimisation[field]}
                        onChange={(e) => setOpt({ [field]: e.target.value })}
                      />
                    </Field>
                  ))}
                </div>
              )}
              {p.optimisation.mode === "off" ? null : (
                <p className="text-xs text-slate-500">
                  Thompson sampling over the last {p.optimisation.windowDays || "N"} days moves the weights of variants not pinned or paused, once each has{" "}
                  {p.optimisation.minVisits || "enough"} visits; none drops below the floor.
                </p>
              )}
            </div>
          </div>
        </Section>
      </fieldset>
    </Card>
  );
}
