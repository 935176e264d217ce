import { createAdGroupStatusClient } from "../integrations/tiktok";
import { evaluateRules, type RuleDeps } from "../rules/evaluate";
import type { Bindings, Db } from "../env";
import type { DeliverAlert } from "../schemas/alerts";
import { tiktokSetup } from "../sync/config";
import type { Job } from "./index";

/**
 * The rules' cron job (docs/rules.md "Evaluation"), with the alert deliverer's maker passed in: the
 * channels live elsewhere (alerts/deliver.ts; schemas/alerts.ts is the seam), and tests pass one that records.
 * TikTok's ad group client is made from the environment each run, or null when TikTok is not set up.
 */
export function evaluateRulesJob(deliverer: (env: Bindings, db: Db) => DeliverAlert, tiktokOptions: Parameters<typeof createAdGroupStatusClient>[2] = {}): Job {
  return {
    name: "evaluate-rules",
    async run({ db, env, now }) {
      const setup = tiktokSetup(env);
      const deps: RuleDeps = {
        deliver: deliverer(env, db),
        tiktok: setup.config ? createAdGroupStatusClient(setup.config.client, setup.config.advertiserIds, tiktokOptions) : null,
        webhooks: env,
      };
      const result = await evaluateRules(db, now, deps);
      if (result.fired || result.skipped)
        console.log(`evaluate-rules: ${result.fired} firings, ${result.skipped} skipped scope items over ${result.rules} rules`);
    },
  };
}
