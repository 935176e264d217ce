import { alertDeliverer } from "../alerts/deliver";
import { runBuiltinAlerts } from "../alerts/run-builtin";
import type { Job } from "./index";

/** The built-in alerts (docs/alerts.md "Built-in alerts"), every 15 minutes with the other jobs. */
export const builtinAlertsJob: Job = {
  name: "builtin-alerts",
  async run({ db, env, now }) {
    const { failed } = await runBuiltinAlerts(db, alertDeliverer(env, db), now, env.CLICK_SHARDS);
    if (failed.length) throw new Error(`built-in alerts failed: ${failed.map((f) => `${f.alert}: ${f.error}`).join("; ")}`);
  },
};
