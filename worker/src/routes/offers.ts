import { Hono } from "hono";
import { deleteOffer, insertOffer, listOffers, updateOffer } from "../db/queries/offers";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { createOfferSchema, updateOfferSchema } from "../schemas/offers";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";

const offerJson = (o: { id: number; name: string; url: string; utmTemplate: string; createdAt: number }) => ({
  ...o,
  createdAt: iso(o.createdAt),
});

/** Offers: readable for the offer, campaign and stats screens, written by admins. */
export const offerRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const rows = await listOffers(c.get("db"));
    // An offer's URL and template carry the team's affiliate ids: only admins (who edit them) read
    // them. Members' screens (the stats filter) need just the choice.
    if (c.get("user")?.role !== "admin") return c.json(rows.map(({ id, name }) => ({ id, name })), 200);
    return c.json(rows.map(offerJson), 200);
  })

  .post("/", validate("json", createOfferSchema), async (c) => {
    const offer = await insertOffer(c.get("db"), c.req.valid("json"));
    return c.json(offerJson(offer), 201);
  })

  .patch("/:id", validate("param", idParam), validate("json", updateOfferSchema), async (c) => {
    const offer = await updateOffer(c.get("db"), c.req.valid("param").id, c.req.valid("json"));
    if (!offer) throw notFound("Offer not found");
    // /click must send the very next exit to the new URL and template.
    invalidateTrackedCampaigns();
    return c.json(offerJson(offer), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    if (!(await deleteOffer(c.get("db"), c.req.valid("param").id))) throw notFound("Offer not found");
    invalidateTrackedCampaigns();
    return c.json({ ok: true }, 200);
  });
