import { ArrowLeft, FlaskConical, Plus, Trash2, X } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { RulesTabs } from "@/components/rules-tabs";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { PageHeader } from "@/components/ui/page";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { Switch } from "@/components/ui/switch";
import { toast, toastError } from "@/components/ui/toast";
import { useReportTime } from "@/lib/report-time";
import { CHANNEL_KIND_LABELS } from "../../../../worker/src/schemas/alert-channels";
import {
  describeCondition,
  describeWindow,
  RULE_METRIC_INFO,
  RULE_METRICS,
  RULE_OPERATORS,
  RULE_SCOPE_KINDS,
  RULE_SCOPE_LABELS,
  ruleInputSchema,
  type RuleInput,
  type RuleMetric,
  type RuleScopeKind,
} from "../../../../worker/src/schemas/rules";
import { useAlertChannels, useDeleteRule, useDryRun, useRule, useRuleOptions, useSaveRule, type RuleDetail } from "./api";
import { DryRunResult } from "./dry-run-result";
import { FiringHistory } from "./firing-history";

/** A condition as typed: the threshold stays text until checked, so "abc" gets the API's own message. */
interface ConditionDraft {
  metric: RuleMetric;
  op: (typeof RULE_OPERATORS)[number];
  value: string;
}

interface Draft {
  name: string;
  enabled: boolean;
  scopeKind: RuleScopeKind;
  values: string[];
  typedAdGroups: string;
  windowAmount: string;
  windowUnit: "hours" | "days";
  conditions: ConditionDraft[];
  guardOn: boolean;
  guard: ConditionDraft;
  cooldownMinutes: string;
  action: "alert" | "actAndAlert";
  act: "pause" | "resume";
  admins: boolean;
  channelIds: number[];
}

const NEW_DRAFT: Draft = {
  name: "",
  enabled: true,
  scopeKind: "all",
  values: [],
  typedAdGroups: "",
  windowAmount: "1",
  windowUnit: "days",
  conditions: [{ metric: "conversions", op: "<", value: "1" }],
  guardOn: true,
  guard: { metric: "spend", op: ">=", value: "20" },
  cooldownMinutes: "240",
  action: "alert",
  act: "pause",
  admins: true,
  channelIds: [],
};

const asNumber = (text: string): number | string => (text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text);
const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function draftOf({ rule }: RuleDetail): Draft {
  const condition = (c: { metric: RuleMetric; op: ConditionDraft["op"]; value: number }) => ({ ...c, value: String(c.value) });
  return {
    name: rule.name,
    enabled: rule.enabled,
    scopeKind: rule.scope.kind,
    values: rule.scope.values,
    typedAdGroups: "",
    windowAmount: String(rule.window.amount),
    windowUnit: rule.window.unit,
    conditions: rule.conditions.map(condition),
    guardOn: rule.guard !== null,
    guard: rule.guard ? condition(rule.guard) : NEW_DRAFT.guard,
    cooldownMinutes: String(rule.cooldownMinutes),
    action: rule.action,
    act: rule.act ?? "pause",
    admins: rule.target.admins,
    channelIds: rule.target.channelIds,
  };
}

/** The draft as the API takes it, checked by the same schema; the problems as "field: message". */
function toInput(d: Draft): { input: RuleInput | null; problems: string[] } {
  const values = d.scopeKind === "adGroups" ? [...new Set([...d.values, ...list(d.typedAdGroups)])] : d.scopeKind === "all" ? [] : d.values;
  const condition = (c: ConditionDraft) => ({ metric: c.metric, op: c.op, value: asNumber(c.value) });
  const parsed = ruleInputSchema.safeParse({
    name: d.name,
    enabled: d.enabled,
    scope: { kind: d.scopeKind, values },
    window: { amount: asNumber(d.windowAmount), unit: d.windowUnit },
    conditions: d.conditions.map(condition),
    guard: d.guardOn ? condition(d.guard) : null,
    cooldownMinutes: asNumber(d.cooldownMinutes),
    action: d.action,
    act: d.action === "actAndAlert" ? d.act : null,
    target: { admins: d.admins, channelIds: d.channelIds },
  });
  if (parsed.success) return { input: parsed.data, problems: [] };
  return { input: null, problems: parsed.error.issues.map((i) => i.message) };
}

const metricOptions = RULE_METRICS.map((m) => ({
  value: m,
  label: `${RULE_METRIC_INFO[m].label}${RULE_METRIC_INFO[m].unit ? ` (${RULE_METRIC_INFO[m].unit})` : ""}`,
}));
const opOptions = RULE_OPERATORS.map((o) => ({ value: o, label: o }));

function ConditionRow({
  value,
  onChange,
  onRemove,
  name,
}: {
  value: ConditionDraft;
  onChange: (c: ConditionDraft) => void;
  onRemove?: () => void;
  name: string;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Select
        aria-label={`${name}: metric`}
        className="w-40"
        value={value.metric}
        onValueChange={(m) => onChange({ ...value, metric: m as RuleMetric })}
        options={metricOptions}
      />
      <Select
        aria-label={`${name}: comparison`}
        className="w-20"
        value={value.op}
        onValueChange={(op) => onChange({ ...value, op: op as ConditionDraft["op"] })}
        options={opOptions}
      />
      <Input
        aria-label={`${name}: threshold`}
        className="w-28"
        inputMode="decimal"
        value={value.value}
        onChange={(e) => onChange({ ...value, value: e.target.value })}
      />
      {onRemove ? (
        <Button variant="ghost" size="icon" aria-label={`Remove ${name.toLowerCase()}`} onClick={onRemove}>
          <X />
        </Button>
      ) : null}
    </div>
  );
}

function ScopeChoices({ draft, set }: { draft: Draft; set: (d: Partial<Draft>) => void }) {
  const options = useRuleOptions();
  if (draft.scopeKind === "all") return <p className="text-sm text-slate-500">Every campaign, each checked on its own.</p>;
  if (options.isPending) return <Spinner />;
  const choices =
    draft.scopeKind === "adGroups"
      ? (options.data?.adGroups ?? []).map((g) => ({ value: g.id, label: g.name ? `${g.name} (${g.id})` : g.id }))
      : (options.data?.[draft.scopeKind] ?? []).map((o) => ({ value: String(o.id), label: o.name }));
  const toggle = (v: string, on: boolean) => set({ values: on ? [...draft.values, v] : draft.values.filter((x) => x !== v) });
  return (
    <div className="grid gap-2">
      <fieldset className="max-h-52 overflow-y-auto rounded-md border border-slate-200 p-2">
        <legend className="sr-only">{RULE_SCOPE_LABELS[draft.scopeKind]} to watch</legend>
        {choices.length === 0 ? <p className="p-1 text-sm text-slate-500">Nothing to choose yet.</p> : null}
        {choices.map((c) => (
          <div key={c.value} className="rounded px-1 py-1 hover:bg-slate-50">
            <Checkbox checked={draft.values.includes(c.value)} onCheckedChange={(on) => toggle(c.value, on)} label={c.label} />
          </div>
        ))}
      </fieldset>
      {draft.scopeKind === "adGroups" ? (
        <Field label="Other ad group ids" hint="The ad group tracking values (the AID macro), separated by commas.">
          <Input value={draft.typedAdGroups} onChange={(e) => set({ typedAdGroups: e.target.value })} />
        </Field>
      ) : null}
    </div>
  );
}

function Editor({ id, initial }: { id: number | null; initial: Draft }) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [problems, setProblems] = useState<string[]>([]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useSaveRule(id);
  const remove = useDeleteRule();
  const dryRun = useDryRun();
  const navigate = useNavigate();
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  const checked = () => {
    const { input, problems: found } = toInput(draft);
    setProblems(found);
    return input;
  };
  const onSave = () => {
    const input = checked();
    if (!input) return;
    save.mutate(input, {
      onSuccess: (rule) => {
        toast({ title: id === null ? "Rule created" : "Rule saved", description: `${rule.name} is ${rule.enabled ? "on" : "off"}.` });
        if (id === null) void navigate(`/rules/${rule.id}`);
      },
      onError: (err) => toastError("Error", err, "Failed to save the rule"),
    });
  };
  const onDryRun = () => {
    const input = checked();
    if (input) dryRun.mutate(input);
  };

  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Rule</CardTitle>
          <CardDescription>
            Figures come from the stats' daily rollups (CAKE's and TikTok's days are whole days): a window in hours covers every report day those hours touch,
            so &quot;last 6 hours&quot; at 10:00 reads today, and at 03:00 yesterday and today.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form
            className="grid gap-5"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              onSave();
            }}
          >
            <div className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end">
              <Field label="Name">
                <Input value={draft.name} maxLength={100} onChange={(e) => set({ name: e.target.value })} placeholder="Spend without conversions" />
              </Field>
              <div className="flex items-center gap-2 pb-2">
                <Switch id="rule-enabled" checked={draft.enabled} onCheckedChange={(enabled) => set({ enabled })} />
                <Label htmlFor="rule-enabled">Enabled</Label>
              </div>
            </div>

            <div className="grid gap-2">
              <Field label="Scope">
                <Select
                  value={draft.scopeKind}
                  onValueChange={(k) => set({ scopeKind: k as RuleScopeKind, values: [] })}
                  options={RULE_SCOPE_KINDS.map((k) => ({ value: k, label: RULE_SCOPE_LABELS[k] }))}
                />
              </Field>
              <ScopeChoices draft={draft} set={set} />
            </div>

            <div className="grid gap-4 sm:grid-cols-3">
              <Field label="Window: the last">
                <Input inputMode="numeric" value={draft.windowAmount} onChange={(e) => set({ windowAmount: e.target.value })} />
              </Field>
              <Field label="Window unit">
                <Select
                  value={draft.windowUnit}
                  onValueChange={(u) => set({ windowUnit: u as Draft["windowUnit"] })}
                  options={[
                    { value: "hours", label: "hours" },
                    { value: "days", label: "days" },
                  ]}
                />
              </Field>
              <Field label="Cooldown (minutes)" hint="A scope item fires at most once in this time.">
                <Input inputMode="numeric" value={draft.cooldownMinutes} onChange={(e) => set({ cooldownMinutes: e.target.value })} />
              </Field>
            </div>

            <fieldset className="grid gap-2">
              <legend className="mb-1 text-sm font-medium text-slate-800">Conditions (all must hold)</legend>
              {draft.conditions.map((c, i) => (
                <ConditionRow
                  key={i}
                  name={`Condition ${i + 1}`}
                  value={c}
                  onChange={(next) => set({ conditions: draft.conditions.map((x, j) => (j === i ? next : x)) })}
                  onRemove={draft.conditions.length > 1 ? () => set({ conditions: draft.conditions.filter((_, j) => j !== i) }) : undefined}
                />
              ))}
              <div>
                <Button variant="secondary" size="sm" onClick={() => set({ conditions: [...draft.conditions, { metric: "roi", op: "<", value: "0" }] })}>
                  <Plus /> Add condition
                </Button>
              </div>
            </fieldset>

            <fieldset className="grid gap-2">
              <legend className="sr-only">Guard</legend>
              <Checkbox checked={draft.guardOn} onCheckedChange={(guardOn) => set({ guardOn })} label="Only once this holds (a guard)" />
              {draft.guardOn ? <ConditionRow name="Guard" value={draft.guard} onChange={(guard) => set({ guard })} /> : null}
            </fieldset>

            <div className="grid gap-4 sm:grid-cols-2">
              <Field label="Action">
                <Select
                  value={draft.action}
                  onValueChange={(a) => set({ action: a as Draft["action"] })}
                  options={[
                    { value: "alert", label: "Alert only" },
                    { value: "actAndAlert", label: "Act and alert" },
                  ]}
                />
              </Field>
              {draft.action === "actAndAlert" ? (
                <Field label="Act on the item's TikTok ad groups">
                  <Select
                    value={draft.act}
                    onValueChange={(a) => set({ act: a as Draft["act"] })}
                    options={[
                      { value: "pause", label: "Pause them" },
                      { value: "resume", label: "Resume them" },
                    ]}
                  />
                </Field>
              ) : null}
            </div>

            <fieldset className="grid gap-2">
              <legend className="mb-1 text-sm font-medium">Alert</legend>
              <Checkbox checked={draft.admins} onCheckedChange={(admins) => set({ admins })} label="Tell the admins in the app" />
              <ChannelChoice chosen={draft.channelIds} onChange={(channelIds) => set({ channelIds })} />
            </fieldset>

            {problems.length ? (
              <ul role="alert" className="list-disc rounded-md bg-danger-50 py-2 pl-8 pr-3 text-sm text-danger-700">
                {problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            ) : null}

            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={save.isPending}>
                {save.isPending ? "Saving..." : id === null ? "Create rule" : "Save rule"}
              </Button>
              <Button variant="secondary" onClick={onDryRun} disabled={dryRun.isPending}>
                <FlaskConical /> {dryRun.isPending ? "Running..." : "Dry run (last 7 days)"}
              </Button>
              {id !== null ? (
                <Button variant="ghost" className="text-danger-600" onClick={() => setConfirmDelete(true)}>
                  <Trash2 /> Delete
                </Button>
              ) : null}
            </div>
          </form>
        </CardContent>
      </Card>

      {dryRun.data || dryRun.error ? <DryRunResult result={dryRun.data} error={dryRun.error} /> : null}

      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title="Delete rule?"
        description={`${draft.name || "This rule"} and its history will be removed; the audit log keeps its firings.`}
        confirmLabel="Delete rule"
        busy={remove.isPending}
        onConfirm={() =>
          id !== null &&
          remove.mutate(id, {
            onSuccess: () => {
              toast({ title: "Rule deleted", description: "The rule has been deleted." });
              void navigate("/rules");
            },
            onError: (err) => toastError("Error", err, "Failed to delete the rule"),
          })
        }
      />
    </div>
  );
}

export default function RuleEditorScreen() {
  const params = useParams();
  const id = params.id === undefined || params.id === "new" ? null : Number(params.id);
  const rule = useRule(id);
  const { named } = useReportTime();
  const [initial, setInitial] = useState<Draft | null>(id === null ? NEW_DRAFT : null);
  useEffect(() => {
    if (rule.data && initial === null) setInitial(draftOf(rule.data));
  }, [rule.data, initial]);

  return (
    <>
      <PageHeader
        title={id === null ? "New rule" : (rule.data?.rule.name ?? "Rule")}
        description={id !== null && rule.data ? summary(rule.data, named) : "Conditions over a rolling window, checked every 15 minutes."}
        actions={
          <Button variant="secondary" asChild>
            <Link to="/rules">
              <ArrowLeft /> All rules
            </Link>
          </Button>
        }
      />
      <RulesTabs />
      {rule.isError ? <p className="py-6 text-sm text-danger-600">{rule.error.message}</p> : null}
      {initial ? <Editor key={id ?? "new"} id={id} initial={initial} /> : rule.isError ? null : <Spinner />}
      {id !== null && rule.data ? <FiringHistory firings={rule.data.firings} /> : null}
    </>
  );
}

const summary = ({ rule }: RuleDetail, named: (iso: string) => string) =>
  `${rule.conditions.map(describeCondition).join(" and ")} over ${describeWindow(rule.window)}; last fired ${rule.lastFiredAt ? named(rule.lastFiredAt) : "never"}.`;

/** The channels a firing is sent to, by name; a broken one says so (nothing is sent to it until it is fixed on Channels). */
function ChannelChoice({ chosen, onChange }: { chosen: number[]; onChange: (ids: number[]) => void }) {
  const channels = useAlertChannels();
  if (channels.isPending) return <p className="text-sm text-muted-foreground">Loading channels...</p>;
  if (channels.isError) return <p className="text-sm text-danger-700">Failed to fetch channels</p>;
  const list = channels.data.channels;
  return (
    <div className="grid gap-2">
      {list.map((c) => (
        <Checkbox
          key={c.id}
          checked={chosen.includes(c.id)}
          onCheckedChange={(on) => onChange(on ? [...chosen, c.id] : chosen.filter((id) => id !== c.id))}
          label={`Send to ${c.name} (${CHANNEL_KIND_LABELS[c.kind]})${c.brokenAt ? " · broken: not sent to until fixed" : ""}`}
        />
      ))}
      {list.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          No channels yet: add email, Slack, Telegram or a webhook on{" "}
          <Link className="text-brand-700 underline-offset-4 hover:underline" to="/rules/channels">
            Channels
          </Link>
          .
        </p>
      ) : null}
    </div>
  );
}
