/**
 * Rules (docs/rules.md): what a rule is, as the API takes it and the editor builds it. Shared by
 * the Worker's routes and evaluator and the web app's editor.
 */
import { z } from "zod";

export const RULE_METRICS = ["spend", "revenue", "profit", "roi", "cpa", "conversions", "visits", "linkClicks", "ctr", "cr", "epv", "botShare"] as const;
export type RuleMetric = (typeof RULE_METRICS)[number];

/** How each metric reads in the editor, the history and an alert, and its unit. */
export const RULE_METRIC_INFO: Record<RuleMetric, { label: string; unit: "$" | "%" | "" }> = {
  spend: { label: "Spend", unit: "$" },
  revenue: { label: "Revenue", unit: "$" },
  profit: { label: "Profit", unit: "$" },
  roi: { label: "ROI", unit: "%" },
  cpa: { label: "CPA", unit: "$" },
  conversions: { label: "Conversions", unit: "" },
  visits: { label: "Visits", unit: "" },
  linkClicks: { label: "Link clicks", unit: "" },
  ctr: { label: "CTR", unit: "%" },
  cr: { label: "CR", unit: "%" },
  epv: { label: "EPV", unit: "$" },
  botShare: { label: "Bot share", unit: "%" },
};

export const RULE_OPERATORS = [">", ">=", "<", "<="] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

export const RULE_SCOPE_KINDS = ["all", "campaigns", "adGroups", "sparks", "offers"] as const;
export type RuleScopeKind = (typeof RULE_SCOPE_KINDS)[number];
export const RULE_SCOPE_LABELS: Record<RuleScopeKind, string> = {
  all: "All campaigns",
  campaigns: "Campaigns",
  adGroups: "TikTok ad groups",
  sparks: "Sparks",
  offers: "Offers",
};

export const RULE_WINDOW_UNITS = ["hours", "days"] as const;
export const RULE_ACTIONS = ["alert", "actAndAlert"] as const;
export const RULE_ACTS = ["pause", "resume"] as const;
export const RULE_FIRING_STATUSES = ["acting", "done", "problem", "skipped"] as const;

/** The rollups hold 30 days in full resolution for the stats; a rule looks no further back. */
export const MAX_WINDOW_DAYS = 30;
export const MAX_WINDOW_HOURS = 7 * 24;
export const MAX_CONDITIONS = 10;
export const MAX_SCOPE_VALUES = 200;
/** The cron runs every 15 minutes: a shorter cooldown would mean nothing. */
export const MIN_COOLDOWN_MINUTES = 15;
export const MAX_COOLDOWN_MINUTES = 30 * 24 * 60;

export const ruleConditionSchema = z.object({
  metric: z.enum(RULE_METRICS, { error: (i) => `Unknown metric ${JSON.stringify(i.input)}: use one of ${RULE_METRICS.join(", ")}` }),
  op: z.enum(RULE_OPERATORS, { error: (i) => `Unknown comparison ${JSON.stringify(i.input)}: use one of ${RULE_OPERATORS.join(" ")}` }),
  value: z.number({ error: (i) => `The threshold must be a number, not ${JSON.stringify(i.input)}` }),
});
export type RuleCondition = z.infer<typeof ruleConditionSchema>;

const positiveIdText = z.string().regex(/^[1-9]\d{0,15}$/, "must be an id (a positive whole number)");

export const ruleScopeSchema = z
  .object({
    kind: z.enum(RULE_SCOPE_KINDS, { error: `The scope must be one of ${RULE_SCOPE_KINDS.join(", ")}` }),
    values: z.array(z.string().trim().min(1, "A scope value cannot be empty").max(255)).max(MAX_SCOPE_VALUES).default([]),
  })
  .superRefine((scope, ctx) => {
    if (scope.kind === "all" && scope.values.length) ctx.addIssue({ code: "custom", path: ["values"], message: "A rule on all campaigns lists no values" });
    if (scope.kind !== "all" && !scope.values.length)
      ctx.addIssue({ code: "custom", path: ["values"], message: `Choose at least one of the ${RULE_SCOPE_LABELS[scope.kind].toLowerCase()}` });
    if (scope.kind !== "all" && scope.kind !== "adGroups") {
      scope.values.forEach((v, i) => {
        if (!positiveIdText.safeParse(v).success) ctx.addIssue({ code: "custom", path: ["values", i], message: `${JSON.stringify(v)} is not an id` });
      });
    }
  });
export type RuleScope = z.infer<typeof ruleScopeSchema>;

export const alertTargetSchema = z.object({
  channelIds: z.array(z.number().int().positive()).max(20).default([]),
  admins: z.boolean().default(true),
});

export const ruleInputSchema = z
  .object({
    name: z.string().trim().min(1, "The rule needs a name").max(100, "The name is at most 100 characters"),
    enabled: z.boolean().default(true),
    scope: ruleScopeSchema,
    window: z.object({
      amount: z.number({ error: "The window must be a number" }).int("The window is a whole number").min(1, "The window must be at least 1 hour or day"),
      unit: z.enum(RULE_WINDOW_UNITS, { error: "The window is in hours or days" }),
    }),
    conditions: z.array(ruleConditionSchema).min(1, "Add at least one condition").max(MAX_CONDITIONS, `At most ${MAX_CONDITIONS} conditions`),
    guard: ruleConditionSchema.nullable().default(null),
    cooldownMinutes: z
      .number({ error: "The cooldown must be a number of minutes" })
      .int("The cooldown is whole minutes")
      .min(MIN_COOLDOWN_MINUTES, `The cooldown is at least ${MIN_COOLDOWN_MINUTES} minutes (the cron's interval)`)
      .max(MAX_COOLDOWN_MINUTES, "The cooldown is at most 30 days"),
    action: z.enum(RULE_ACTIONS, { error: "The action is alert or actAndAlert" }),
    act: z.enum(RULE_ACTS, { error: "The act is pause or resume" }).nullable().default(null),
    target: alertTargetSchema,
  })
  .superRefine((rule, ctx) => {
    const max = rule.window.unit === "days" ? MAX_WINDOW_DAYS : MAX_WINDOW_HOURS;
    if (rule.window.amount > max) ctx.addIssue({ code: "custom", path: ["window", "amount"], message: `The window is at most ${max} ${rule.window.unit}` });
    if (rule.action === "actAndAlert" && !rule.act) ctx.addIssue({ code: "custom", path: ["act"], message: "Choose whether to pause or resume the ad groups" });
    if (rule.action === "alert" && rule.act) ctx.addIssue({ code: "custom", path: ["act"], message: "An alert-only rule does not pause or resume" });
  });
export type RuleInput = z.infer<typeof ruleInputSchema>;
export type RuleInputDraft = z.input<typeof ruleInputSchema>;

export const ruleEnabledSchema = z.object({ enabled: z.boolean({ error: "enabled is true or false" }) });

/** A scope item's figures over a window: money in dollars, shares in percent; null where undefined (÷ 0). */
export type RuleFigures = Record<RuleMetric, number | null>;

/** What TikTok answered for one ad group of a firing. */
export interface AdGroupOutcome {
  adGroupId: string;
  advertiserId: string | null;
  /** done: changed; already: it already had that status (paused or enabled by hand); failed: TikTok refused or was unreachable. */
  outcome: "done" | "already" | "not_found" | "failed";
  code: number | null;
  message: string;
}

export const compare = (value: number | null, op: RuleOperator, threshold: number) => {
  if (value === null) return false;
  switch (op) {
    case ">":
      return value > threshold;
    case ">=":
      return value >= threshold;
    case "<":
      return value < threshold;
    case "<=":
      return value <= threshold;
  }
};

/** "Spend >= $20" as the editor and an alert write it. */
export function describeCondition(c: RuleCondition): string {
  const { label, unit } = RULE_METRIC_INFO[c.metric];
  return `${label} ${c.op} ${unit === "$" ? `$${c.value}` : `${c.value}${unit}`}`;
}

/** "the last 6 hours", "the last day". */
export const describeWindow = (w: { amount: number; unit: "hours" | "days" }) =>
  w.amount === 1 ? `the last ${w.unit.slice(0, -1)}` : `the last ${w.amount} ${w.unit}`;

/** A figure as shown: "$12.30", "41.2%", "17", or "—" where it is undefined. */
export function formatFigure(metric: RuleMetric, value: number | null): string {
  if (value === null) return "—";
  const { unit } = RULE_METRIC_INFO[metric];
  if (unit === "$") return `${value < 0 ? "-" : ""}$${Math.abs(value).toFixed(2)}`;
  if (unit === "%") return `${value.toFixed(1)}%`;
  return String(Math.round(value * 100) / 100);
}
