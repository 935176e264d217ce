import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { landerDeletionImpact } from "../db/queries/deletion-impact";
import { audit, diff, fields, unlessUnchanged } from "../audit/record";
import { deleteLander, getLander, insertLander, listLanders, updateLander } from "../db/queries/landers";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { createLanderSchema, updateLanderSchema } from "../schemas/landers";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";
import { inPathsMeanwhile, refuseIfInPaths } from "./paths";
import { objectClickSpans } from "../tracking/click-log";

const landerJson = (l: { id: number; name: string; url: string; createdAt: number }) => ({ ...l, createdAt: iso(l.createdAt) });

const LABELS = { name: "Name", url: "URL" };

/** Landers: readable with landers or campaigns (the campaign dialog lists them), written by admins. */
export const landerRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listLanders(c.get("db"))).map(landerJson), 200))

  .post("/", validate("json", createLanderSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    const [[lander]] = await db.batch([
      insertLander(db, input),
      audit(c, { action: "lander.create", kind: "lander", id: sql`last_insert_rowid()`, summary: fields(input, LABELS) }),
    ]);
    return c.json(landerJson(lander!), 201);
  })

  .patch("/:id", validate("param", idParam), validate("json", updateLanderSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const before = await getLander(db, id);
    if (!before) throw notFound("Lander not found");
    const [[lander]] = await db.batch([
      updateLander(db, id, input),
      ...unlessUnchanged(diff(before, input, LABELS), (change) =>
        audit(c, { action: "lander.update", kind: "lander", id, summary: `${before.name}: ${change}` }, { ifChanged: true }),
      ),
    ]);
    if (!lander) throw notFound("Lander not found");
    // /r/ redirects to the lander URL it cached.
    invalidateTrackedCampaigns();
    return c.json(landerJson(lander), 200);
  })

  /** What deleting it takes along (its campaigns, their clicks), for the confirmation to name. */
  .get("/:id/deletion-impact", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    if (!(await getLander(db, id))) throw notFound("Lander not found");
    return c.json(await landerDeletionImpact(db, id, (kept) => objectClickSpans({ db, shards: c.env.CLICK_SHARDS }, kept)), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getLander(db, id);
    if (!before) throw notFound("Lander not found");
    await refuseIfInPaths(db, { landerId: id }, `Lander "${before.name}"`);
    const [deleted] = await inPathsMeanwhile(
      db.batch([deleteLander(db, id), audit(c, { action: "lander.delete", kind: "lander", id, summary: fields(before, LABELS) }, { ifChanged: true })]),
    );
    if (!deleted.length) throw notFound("Lander not found");
    invalidateTrackedCampaigns();
    return c.json({ ok: true }, 200);
  });
