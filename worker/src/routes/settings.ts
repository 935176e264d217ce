import { Hono } from "hono";
import { audit, diff } from "../audit/record";
import { readSettings, reportTimeZone, writeSetting } from "../db/queries/settings";
import type { AppEnv } from "../env";
import { dayIn } from "../lib/calendar-days";
import { validate } from "../lib/validate";
import { settingSchema } from "../schemas/settings";
import { invalidateTrackingSettings } from "../tracking/settings-cache";

export const settingsRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const values = await readSettings(c.get("db"));
    return c.json(
      Object.entries(values).map(([key, value]) => ({ key, value })),
      200,
    );
  })
  /**
   * The report time zone and its today, for every signed-in screen: the date pickers' Today,
   * Yesterday, Last N days and months are days of this zone, as the server counts them.
   */
  .get("/report-time-zone", async (c) => {
    const timeZone = await reportTimeZone(c.get("db"));
    return c.json({ timeZone, today: dayIn(Date.now(), timeZone) }, 200);
  })
  .post("/", validate("json", settingSchema), async (c) => {
    const db = c.get("db");
    const { key, value } = c.req.valid("json");
    const before = (await readSettings(db))[key];
    // A form saves all its settings: the unchanged ones are neither written nor logged.
    const change = diff({ [key]: before }, { [key]: value }, { [key]: key });
    if (change) await db.batch([writeSetting(db, key, value), audit(c, { action: "setting.update", kind: "setting", id: key, summary: change })]);
    invalidateTrackingSettings();
    return c.json({ key, value }, 200);
  });
