/**
 * The cron's rule evaluation (docs/rules.md "Evaluation"): every enabled rule, per scope item, over
 * the daily rollups; a match is claimed (rule_firings' conditional insert) before anything is done,
 * so two runs at once act and notify once. Notifying goes through the DeliverAlert it is given.
 */
import { auditStatement } from "../audit/record";
import { rawBatch } from "../db/raw-batch";
import { claimFirings, finishFiring, listEnabledRules, readEvaluationData, type DayRange, type NewFiring, type RuleRow } from "../db/queries/rules";
import { reportTimeZone } from "../db/queries/settings";
import type { SQL } from "drizzle-orm";
import type { Bindings, Db } from "../env";
import { emitWebhookEvents, webhookEvent, type Emitted } from "../webhooks/emit";
import type { AdGroupStatusClient } from "../integrations/tiktok";
import type { AlertMessage, ChannelDelivery, DeliverAlert } from "../schemas/alerts";
import { describeCondition, describeWindow, formatFigure, RULE_METRIC_INFO, RULE_METRICS, type AdGroupOutcome, type RuleFigures } from "../schemas/rules";
import { indexWindow, itemFigures, matches, scopeItems, windowDays, type IndexedWindow, type ScopeItem } from "./figures";

export interface RuleDeps {
  /** Sends a firing's alert to its target; null until the real one is wired (nothing is sent, the firing says so). */
  deliver: DeliverAlert;
  /** Pauses and resumes ad groups; null when TikTok is not configured (the firing says so). */
  tiktok: AdGroupStatusClient | null;
  /** Where `rule.fired` webhook events go (docs/webhooks.md); none: not emitted. */
  webhooks?: Pick<Bindings, "WEBHOOKS_QUEUE">;
}

const RULES_ACTOR = { id: null, username: "rules" };

export interface EvaluationResult {
  rules: number;
  fired: number;
  skipped: number;
  rowsRead: number;
}

/** The windows' day ranges, each read once however many rules share it. */
function distinctRanges(list: RuleRow[], now: number, timeZone: string) {
  const ranges: DayRange[] = [];
  const rangeOf = new Map<number, number>();
  for (const rule of list) {
    const r = windowDays({ amount: rule.windowAmount, unit: rule.windowUnit }, now, timeZone);
    let i = ranges.findIndex((x) => x.startDate === r.startDate && x.endDate === r.endDate);
    if (i < 0) i = ranges.push(r) - 1;
    rangeOf.set(rule.id, i);
  }
  return { ranges, rangeOf };
}

export async function evaluateRules(db: Db, now: number, deps: RuleDeps): Promise<EvaluationResult> {
  const list = await listEnabledRules(db);
  const result: EvaluationResult = { rules: list.length, fired: 0, skipped: 0, rowsRead: 0 };
  if (!list.length) return result;
  const timeZone = await reportTimeZone(db);
  const { ranges, rangeOf } = distinctRanges(list, now, timeZone);
  const data = await readEvaluationData(db, ranges);
  result.rowsRead = data.rowsRead;
  const windows = data.windows.map(indexWindow);
  // Every match and every missing scope item first, then all claimed in batches, then acted on.
  const claims: { firing: NewFiring; act?: { rule: RuleRow; item: ScopeItem; figures: RuleFigures; adGroups: string[] } }[] = [];
  for (const rule of list) {
    const w = windows[rangeOf.get(rule.id) ?? 0] as IndexedWindow;
    const { items, missing } = scopeItems(rule, data.catalog);
    const base = { ruleId: rule.id, firedAt: now, cooldownMinutes: rule.cooldownMinutes };
    for (const m of missing) {
      claims.push({ firing: { ...base, itemKey: m.key, itemLabel: m.label, status: "skipped", figures: emptyFigures(), action: "none", note: m.note } });
    }
    for (const item of items) {
      const { figures, adGroups } = itemFigures(item, w);
      if (!matches(rule, figures)) continue;
      claims.push({
        firing: { ...base, itemKey: item.key, itemLabel: item.label, status: "acting", figures, action: actionOf(rule) },
        act: { rule, item, figures, adGroups },
      });
    }
  }
  const ids = await claimFirings(
    db,
    claims.map((c) => c.firing),
  );
  const finished: SQL[] = [];
  const emitted: Emitted[] = [];
  for (const [i, claim] of claims.entries()) {
    const id = ids[i];
    if (id === null || id === undefined) continue;
    if (!claim.act) {
      result.skipped++;
      continue;
    }
    const { rule, item, figures, adGroups } = claim.act;
    finished.push(...(await fire(db, id, rule, item, figures, adGroups, deps)));
    result.fired++;
    if (deps.webhooks) emitted.push({ event: await firedEvent(rule, id, item, figures, now), mediaBuyer: null });
  }
  for (let i = 0; i < finished.length; i += FINISH_BATCH) await rawBatch(db, finished.slice(i, i + FINISH_BATCH));
  // After the firings are written, so a receiver reading the rule's history finds them.
  if (deps.webhooks) await emitWebhookEvents(deps.webhooks, emitted);
  return result;
}

/** A claimed firing as a `rule.fired` webhook event: one per firing (its id). */
const firedEvent = (rule: RuleRow, firingId: number, item: ScopeItem, figures: RuleFigures, now: number) =>
  webhookEvent("rule.fired", String(firingId), now, {
    firing_id: firingId,
    rule_id: rule.id,
    rule_name: rule.name,
    item_key: item.key,
    item_label: item.label,
    action: actionOf(rule),
    figures,
  });

/** Two statements a firing: its answers and its audit entry. */
const FINISH_BATCH = 200;

const emptyFigures = (): RuleFigures => Object.fromEntries(RULE_METRICS.map((m) => [m, null])) as RuleFigures;

const actionOf = (rule: RuleRow) => (rule.action === "actAndAlert" && rule.act ? rule.act : "alert");

/** One claimed match: acted on and notified; answers the statements that record it (and audit it). */
async function fire(db: Db, firingId: number, rule: RuleRow, item: ScopeItem, figures: RuleFigures, adGroups: string[], deps: RuleDeps): Promise<SQL[]> {
  const action = actionOf(rule);
  const notes: string[] = [];
  let tiktok: AdGroupOutcome[] = [];
  if (action !== "alert") {
    if (!deps.tiktok) notes.push("TikTok is not configured (TIKTOK_ACCESS_TOKEN, TIKTOK_ADVERTISER_IDS): no ad group was changed");
    else if (!adGroups.length) notes.push("No TikTok ad group carried this item's clicks in the window: nothing to change");
    else {
      try {
        tiktok = await deps.tiktok.setStatus(adGroups, action === "pause" ? "DISABLE" : "ENABLE");
      } catch (err) {
        notes.push(`TikTok: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  let deliveries: ChannelDelivery[] = [];
  try {
    deliveries = await deps.deliver(rule.target, alertMessage(rule, item, figures, firingId, action, tiktok));
  } catch (err) {
    notes.push(`Alert: ${err instanceof Error ? err.message : String(err)}`);
  }
  const failed =
    tiktok.some((t) => t.outcome === "failed") || deliveries.some((d) => !d.ok) || notes.some((n) => n.startsWith("TikTok:") || n.startsWith("Alert:"));
  const note = notes.join("; ");
  const summary = `${item.label}: ${rule.conditions.map(describeCondition).join(" and ")}; ${actionSummary(action, tiktok)}${note ? `; ${note}` : ""}`;
  return [
    finishFiring(db, firingId, { status: failed ? "problem" : "done", tiktok, deliveries, note }).getSQL(),
    auditStatement(db, RULES_ACTOR, null, { action: "rule.fire", kind: "rule", id: rule.id, summary: `${rule.name} — ${summary}` }).getSQL(),
  ];
}

function actionSummary(action: string, tiktok: AdGroupOutcome[]): string {
  if (action === "alert") return "alert only";
  const count = (o: AdGroupOutcome["outcome"]) => tiktok.filter((t) => t.outcome === o).length;
  const verb = action === "pause" ? "paused" : "resumed";
  return `${verb} ${count("done")} ad group(s), ${count("already")} already ${verb}, ${count("failed")} failed, ${count("not_found")} not found`;
}

function alertMessage(rule: RuleRow, item: ScopeItem, figures: RuleFigures, firingId: number, action: string, tiktok: AdGroupOutcome[]): AlertMessage {
  const shown = [...new Set([...(rule.guard ? [rule.guard.metric] : []), ...rule.conditions.map((c) => c.metric)])];
  return {
    title: `Rule "${rule.name}" fired for ${item.label}`,
    text: `${rule.conditions.map(describeCondition).join(" and ")} over ${describeWindow({ amount: rule.windowAmount, unit: rule.windowUnit })}: ${actionSummary(action, tiktok)}.`,
    facts: shown.map((m) => ({ label: RULE_METRIC_INFO[m].label, value: formatFigure(m, figures[m]) })),
    link: `/rules/${rule.id}`,
    severity: action === "alert" ? "warning" : "critical",
    source: { kind: "rule", ruleId: rule.id, firingId },
  };
}
