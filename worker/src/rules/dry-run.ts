/**
 * The dry run (docs/rules.md "Dry run"): an unsaved rule evaluated as the cron would have run it
 * at this time of day on each of the last 7 days, with its cooldown, over the same rollups.
 */
import { readEvaluationData } from "../db/queries/rules";
import { reportTimeZone } from "../db/queries/settings";
import type { Db } from "../env";
import { DAY_MS } from "../lib/calendar-days";
import type { RuleFigures, RuleInput } from "../schemas/rules";
import { indexWindow, itemFigures, matches, scopeItems, windowDays } from "./figures";

export const DRY_RUN_DAYS = 7;
/** The answer lists at most this many matched items (a rule on all campaigns may match many). */
export const DRY_RUN_MAX_ITEMS = 50;

export interface DryRunItem {
  key: string;
  label: string;
  /** Each evaluation that matched: when, and the figures. */
  matches: { at: number; figures: RuleFigures }[];
  /** When it would have fired (matches outside the cooldown of the previous firing). */
  firings: number[];
  adGroups: string[];
}

export async function dryRun(db: Db, rule: RuleInput, now: number) {
  const timeZone = await reportTimeZone(db);
  const instants = Array.from({ length: DRY_RUN_DAYS }, (_, i) => now - (DRY_RUN_DAYS - 1 - i) * DAY_MS);
  const ranges = instants.map((at) => windowDays(rule.window, at, timeZone));
  const data = await readEvaluationData(db, ranges);
  const windows = data.windows.map(indexWindow);
  const { items, missing } = scopeItems({ scope: rule.scope }, data.catalog);
  const matched: DryRunItem[] = [];
  for (const item of items) {
    const out: DryRunItem = { key: item.key, label: item.label, matches: [], firings: [], adGroups: [] };
    const groups = new Set<string>();
    instants.forEach((at, i) => {
      const w = windows[i];
      if (!w) return;
      const r = itemFigures(item, w);
      if (!matches(rule, r.figures)) return;
      out.matches.push({ at, figures: r.figures });
      r.adGroups.forEach((g) => groups.add(g));
      const last = out.firings.at(-1);
      if (last === undefined || at - last >= rule.cooldownMinutes * 60_000) out.firings.push(at);
    });
    out.adGroups = [...groups].sort();
    if (out.matches.length) matched.push(out);
  }
  return {
    evaluatedAt: instants,
    ranges,
    checkedItems: items.length,
    matchedItems: matched.length,
    items: matched.slice(0, DRY_RUN_MAX_ITEMS),
    missing,
    rowsRead: data.rowsRead,
  };
}
