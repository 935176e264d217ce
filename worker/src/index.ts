import { app } from "./app";
import type { Bindings } from "./env";
import { runScheduled } from "./jobs";

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Bindings>;
