import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      SESSION_SECRET: string;
      // wrangler.toml's click-store bindings (typed for the Worker in src/env.ts).
      ARCHIVE: R2Bucket;
      ARCHIVE_WORKFLOW: Workflow<import("../src/retention/config").ArchiveRunParams>;
      MOVE_WORKFLOW: Workflow<import("../src/tracking/click-move-workflow").MoveRunParams>;
      CAKE_PULL_WORKFLOW: Workflow<import("../src/sync/cake-pull-workflow").CakePullParams>;
      CLICKS_QUEUE: Queue<import("../src/tracking/click-queue").ClickMessage>;
      CLICK_SHARDS: DurableObjectNamespace<import("../src/tracking/click-shard").ClickShard>;
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

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
