import { Hono } from "hono";
import { readSettings, writeSetting } from "../db/queries/settings";
import type { AppEnv } from "../env";
import { validate } from "../lib/validate";
import { settingSchema } from "../schemas/settings";

export const settingsRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const values = await readSettings(c.get("db"));
    return c.json(
      Object.entries(values).map(([key, value]) => ({ key, value })),
      200,
    );
  })
  .post("/", validate("json", settingSchema), async (c) => {
    const { key, value } = c.req.valid("json");
    await writeSetting(c.get("db"), key, value);
    return c.json({ key, value }, 200);
  });
