import { Hono } from "hono";
import { readPreferences, writePreferences } from "../db/queries/preferences";
import type { AppEnv } from "../env";
import { validate } from "../lib/validate";
import { statsPreferencesSchema } from "../schemas/stats";

/** The signed-in user's own stats-table columns (visible ones and widths), kept across browsers. */
export const preferenceRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json(await readPreferences(c.get("db"), c.get("user")!.id), 200))

  .put("/", validate("json", statsPreferencesSchema), async (c) =>
    c.json(await writePreferences(c.get("db"), c.get("user")!.id, c.req.valid("json"), Date.now()), 200),
  );
