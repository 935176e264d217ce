import { app } from "./app";
import { handleEmail } from "./email/handler";
import type { Bindings } from "./env";
import { runScheduled } from "./jobs";
import { consumeDeadLetters, consumeEvents, TIKTOK_EVENTS_DLQ_NAME, TIKTOK_EVENTS_QUEUE_NAME } from "./tiktok-events/consume";
import { CLICKS_DLQ_NAME, CLICKS_QUEUE_NAME, consumeClickDeadLetters, consumeClicks } from "./tracking/click-queue";
import { consumeWebhooks } from "./webhooks/consume";
import { WEBHOOKS_QUEUE_NAME } from "./webhooks/queue";

/** The archive Workflow's class: wrangler.toml's [[workflows]] names it. */
export { ClickArchiveWorkflow } from "./retention/workflow";
export { ClickMoveWorkflow } from "./tracking/click-move-workflow";
export { CakePullWorkflow } from "./sync/cake-pull-workflow";
/** Raw clicks' shard-days: wrangler.toml's [[durable_objects.bindings]] names it. */
export { ClickShard } from "./tracking/click-shard";

export default {
  fetch: app.fetch,
  async email(message, env, _ctx) {
    await handleEmail(message, env);
  },
  async scheduled(controller, env, ctx) {
    // Each job is its own waitUntil (jobs/index.ts); this one only outlives them.
    ctx.waitUntil(runScheduled(env, controller.scheduledTime, ctx));
  },
  async queue(batch, env, _ctx) {
    if (batch.queue === TIKTOK_EVENTS_QUEUE_NAME) return consumeEvents(batch, env);
    if (batch.queue === TIKTOK_EVENTS_DLQ_NAME) return consumeDeadLetters(batch, env);
    if (batch.queue === CLICKS_QUEUE_NAME) return consumeClicks(batch, env);
    if (batch.queue === CLICKS_DLQ_NAME) return consumeClickDeadLetters(batch, env);
    if (batch.queue === WEBHOOKS_QUEUE_NAME) return consumeWebhooks(batch, env);
    throw new Error(`queue(): no consumer for queue ${batch.queue}`);
  },
} satisfies ExportedHandler<Bindings>;
