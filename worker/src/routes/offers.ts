import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { audit, diff, fields, unlessUnchanged } from "../audit/record";
import { offerDeletionImpact } from "../db/queries/deletion-impact";
import { deleteOffer, getOffer, insertOffer, listOffers, updateOffer } from "../db/queries/offers";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { attributionProblem, createOfferSchema, updateOfferSchema } from "../schemas/offers";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";
import { inPathsMeanwhile, refuseIfInPaths } from "./paths";
import { objectClickSpans } from "../tracking/click-log";

/** With why its conversions cannot reach a campaign (null: they can), for Offer Config to flag and fix. */
const offerJson = (o: { id: number; name: string; url: string; utmTemplate: string; createdAt: number }) => ({
  ...o,
  createdAt: iso(o.createdAt),
  attributionProblem: attributionProblem(o.utmTemplate),
});

const LABELS = { name: "Name", url: "URL", utmTemplate: "UTM template" };

/** Offers: readable for the offer, campaign and stats screens, written by admins. */
export const offerRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const rows = await listOffers(c.get("db"));
    // An offer's URL and template carry the team's affiliate ids: only admins (who edit them) read
    // them. Members' screens (the stats filter) need just the choice.
    if (c.get("user")?.role !== "admin")
      return c.json(
        rows.map(({ id, name }) => ({ id, name })),
        200,
      );
    return c.json(rows.map(offerJson), 200);
  })

  .post("/", validate("json", createOfferSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    const [[offer]] = await db.batch([
      insertOffer(db, input),
      audit(c, { action: "offer.create", kind: "offer", id: sql`last_insert_rowid()`, summary: fields(input, LABELS) }),
    ]);
    return c.json(offerJson(offer!), 201);
  })

  .patch("/:id", validate("param", idParam), validate("json", updateOfferSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const before = await getOffer(db, id);
    if (!before) throw notFound("Offer not found");
    const [[offer]] = await db.batch([
      updateOffer(db, id, input),
      ...unlessUnchanged(diff(before, input, LABELS), (change) =>
        audit(c, { action: "offer.update", kind: "offer", id, summary: `${before.name}: ${change}` }, { ifChanged: true }),
      ),
    ]);
    if (!offer) throw notFound("Offer not found");
    // /click must send the very next exit to the new URL and template.
    invalidateTrackedCampaigns();
    return c.json(offerJson(offer), 200);
  })

  /** The campaigns that lose their exit destination with it, for the confirmation to name. */
  .get("/:id/deletion-impact", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    if (!(await getOffer(db, id))) throw notFound("Offer not found");
    return c.json(await offerDeletionImpact(db, id, (kept) => objectClickSpans({ db, shards: c.env.CLICK_SHARDS }, kept)), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getOffer(db, id);
    if (!before) throw notFound("Offer not found");
    await refuseIfInPaths(db, { offerId: id }, `Offer "${before.name}"`);
    const [deleted] = await inPathsMeanwhile(
      db.batch([deleteOffer(db, id), audit(c, { action: "offer.delete", kind: "offer", id, summary: fields(before, LABELS) }, { ifChanged: true })]),
    );
    if (!deleted.length) throw notFound("Offer not found");
    invalidateTrackedCampaigns();
    return c.json({ ok: true }, 200);
  });
