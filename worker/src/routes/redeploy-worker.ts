import { Hono } from "hono";
import { audit } from "../audit/record";
import { redeployWorker } from "../domains/configure";
import { requestDeps } from "../domains/context";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/**
 * POST /api/redeploy-worker (Settings → Redeploy Worker): reconciles every active tracking domain
 * with this Worker's custom domains. It attaches what is missing and deletes nothing; a deploy
 * itself is `wrangler deploy` (README, "Deploying to Cloudflare").
 */
export const redeployWorkerRoutes = new Hono<AppEnv>().post("/", async (c) => {
  const answer = await redeployWorker(requestDeps(c));
  if (answer.attached.length || answer.failed.length) {
    // Only a run that changed (or tried to change) what the Worker serves is worth an entry.
    await c.get("db").batch([audit(c, { action: "domain.redeploy_worker", kind: "domain", summary: answer.message })]);
  }
  if (answer.failed.length) throw new ApiError(502, answer.message, answer.failed);
  return c.json(answer, 200);
});
