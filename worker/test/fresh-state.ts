import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { forgetCodesVersion } from "../src/codes/version";
import { invalidateTrackedCampaigns } from "../src/tracking/campaign-cache";
import { invalidateTrackingSettings } from "../src/tracking/settings-cache";
import { clicksWritten } from "./helpers";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      SESSION_SECRET: string;
      // wrangler.toml's click-store bindings (typed for the Worker in src/env.ts).
      ARCHIVE: R2Bucket;
      ARCHIVE_WORKFLOW: Workflow<import("../src/retention/config").ArchiveRunParams>;
      CLICKS_QUEUE: Queue<import("../src/tracking/click-queue").ClickMessage>;
      CLICK_LIMITER: RateLimit;
      POSTBACK_LIMITER: RateLimit;
      // Webhooks out (src/env.ts WebhookBindings).
      WEBHOOKS_QUEUE: Queue<import("../src/webhooks/queue").WebhookMessage>;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}

/*
 * Runs before every worker test file. The files of one Vitest worker share one workerd and one
 * isolate (`isolate: false` in vitest.config.ts: a workerd of its own per file cost each file about
 * 4 s), so each file starts here from what a new one would give it: an empty, migrated D1, an
 * empty archive bucket, and none of the Worker's per-isolate caches of the last file's rows.
 */

// The last file's clicks still on their way would land in this file's database.
await clicksWritten(60_000);

// Every table goes, with the migrations' record, and the migrations make them again. A table that
// others still point to at their foreign keys cannot go first: it goes on a later round.
for (let left = await tableNames(); left.length > 0;) {
  const dropped = await Promise.all(
    left.map((name) =>
      env.DB.exec(`DROP TABLE "${name}"`).then(
        () => true,
        () => false,
      ),
    ),
  );
  const next = left.filter((_, i) => !dropped[i]);
  if (next.length === left.length) throw new Error(`could not empty the test database: ${next.join(", ")} would not drop`);
  left = next;
}
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

for (let listed = await env.ARCHIVE.list(); listed.objects.length > 0; listed = await env.ARCHIVE.list())
  await env.ARCHIVE.delete(listed.objects.map((o) => o.key));

invalidateTrackedCampaigns();
invalidateTrackingSettings();
forgetCodesVersion();

async function tableNames() {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{
    name: string;
  }>();
  return results.map((r) => r.name);
}
