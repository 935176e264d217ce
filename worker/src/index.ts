import { app } from "./app";
import { handleEmail } from "./email/handler";
import type { Bindings } from "./env";
import { runScheduled } from "./jobs";

export default {
  fetch: app.fetch,
  async email(message, env, _ctx) {
    await handleEmail(message, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Bindings>;
