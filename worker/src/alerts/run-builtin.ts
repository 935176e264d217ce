/**
 * One cron pass of the built-in alerts: each enabled alert's check, each occurrence it sees claimed
 * in builtin_alert_firings (only the first claim of an occurrence sends, so neither the next run
 * nor a second run at the same time repeats it), then delivered to the admins in the app and the
 * channels chosen for built-in alerts. One alert failing does not stop the others.
 */
import { builtinAlertStates, claimFiring, recordFiringDeliveries } from "../db/queries/builtin-alerts";
import { reportTimeZone } from "../db/queries/settings";
import type { Bindings, Db } from "../env";
import type { DeliverAlert } from "../schemas/alerts";
import { BUILTIN_CHECKS } from "./builtin-checks";
import { builtinTarget } from "./deliver";

export interface BuiltinRunResult {
  fired: { alert: string; occurrence: string }[];
  failed: { alert: string; error: string }[];
}

export async function runBuiltinAlerts(db: Db, deliver: DeliverAlert, now: number, shards: Bindings["CLICK_SHARDS"]): Promise<BuiltinRunResult> {
  const [states, timeZone] = await Promise.all([builtinAlertStates(db), reportTimeZone(db)]);
  const result: BuiltinRunResult = { fired: [], failed: [] };
  for (const state of states.filter((s) => s.enabled)) {
    try {
      const occurrences = await BUILTIN_CHECKS[state.key]({ db, shards, now, timeZone, threshold: state.threshold ?? 0 });
      for (const { occurrence, message } of occurrences) {
        const [claimed] = await claimFiring(db, { alert: state.key, occurrence, firedAt: now, title: message.title, facts: message.facts });
        if (!claimed) continue;
        const deliveries = await deliver(await builtinTarget(db), { ...message, source: { kind: "builtin", alert: state.key } });
        await recordFiringDeliveries(db, claimed.id, deliveries);
        result.fired.push({ alert: state.key, occurrence });
      }
    } catch (err) {
      console.error(`built-in alert ${state.key} failed`, err);
      result.failed.push({ alert: state.key, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}
