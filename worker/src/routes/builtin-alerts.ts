import { Hono } from "hono";
import { audit } from "../audit/record";
import { builtinAlertStates, latestFirings, saveBuiltinAlert } from "../db/queries/builtin-alerts";
import type { AppEnv } from "../env";
import { badRequest } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { BUILTIN_ALERTS, builtinAlertParam, updateBuiltinAlertSchema } from "../schemas/builtin-alerts";

export const builtinAlertRoutes = new Hono<AppEnv>()
  /** Each built-in alert: what it watches, its switch and number, and when it last fired. */
  .get("/", async (c) => {
    const db = c.get("db");
    const [states, latest] = await Promise.all([builtinAlertStates(db), latestFirings(db)]);
    return c.json(
      BUILTIN_ALERTS.map((a, i) => {
        const last = latest.get(a.key);
        return {
          key: a.key,
          label: a.label,
          description: a.description,
          thresholdSpec: a.threshold ? { label: a.threshold.label, default: a.threshold.default, min: a.threshold.min, max: a.threshold.max } : null,
          enabled: states[i]!.enabled,
          threshold: states[i]!.threshold,
          lastFired: last ? { at: iso(last.firedAt), title: last.title } : null,
        };
      }),
      200,
    );
  })

  .put("/:alert", validate("param", builtinAlertParam), validate("json", updateBuiltinAlertSchema), async (c) => {
    const { alert } = c.req.valid("param");
    const { enabled, threshold = null } = c.req.valid("json");
    const spec = BUILTIN_ALERTS.find((a) => a.key === alert)!;
    if (threshold !== null) {
      if (!spec.threshold) throw badRequest(`${spec.label} has no number to set`);
      if (threshold < spec.threshold.min || threshold > spec.threshold.max)
        throw badRequest(`${spec.threshold.label} must be from ${spec.threshold.min} to ${spec.threshold.max.toLocaleString("en-US")}`);
    }
    const db = c.get("db");
    await db.batch([
      saveBuiltinAlert(db, alert, enabled, threshold, Date.now()),
      audit(c, {
        action: "setting.update",
        kind: "setting",
        id: `builtin-alert:${alert}`,
        summary: `${spec.label}: ${enabled ? "on" : "off"}${threshold !== null ? `, ${spec.threshold?.label}: ${threshold}` : ""}`,
      }),
    ]);
    return c.json({ key: alert, enabled, threshold: threshold ?? spec.threshold?.default ?? null }, 200);
  });
