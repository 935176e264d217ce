import { z } from "zod";
import { NAME_MAX } from "./landers";
import { mediaBuyerIdSchema } from "./users";

const campaignName = z
  .string({ error: "Campaign name is required" })
  .trim()
  .min(1, "Campaign name is required")
  .max(NAME_MAX, `Campaign name must be at most ${NAME_MAX} characters`);

const reference = (message: string) => z.number({ error: message }).int(message).positive(message);

/**
 * The CAKE sub1 value the offer template's {mediaBuyer} sends, as the Users screen assigns media
 * buyers (docs/product-rules.md "Offer templates and attribution"). Empty or null: none.
 */
const mediaBuyer = z
  .string({ error: "Media buyer must be text or null" })
  .trim()
  .transform((v) => (v === "" ? null : v))
  .pipe(mediaBuyerIdSchema.nullable())
  .nullable()
  .optional();
const sparkRef = reference("sparkId must be a spark id or null").nullable().optional();

/**
 * POST body. offerId / domainId omitted or null: no offer / the redirect domain from settings;
 * mediaBuyer / sparkId omitted or null: the offer template's {mediaBuyer} / {spark} stay empty.
 */
export const createCampaignSchema = z.object({
  name: campaignName,
  landerId: reference("Select a lander"),
  offerId: reference("offerId must be an offer id or null").nullable().optional(),
  domainId: reference("domainId must be a domain id or null").nullable().optional(),
  bhToggle: z.boolean({ error: "bhToggle must be true or false" }).default(false),
  mediaBuyer,
  sparkId: sparkRef,
});
export type CreateCampaignInput = z.input<typeof createCampaignSchema>;

/** PATCH body: any subset, e.g. `{ bhToggle }` alone from the list's switch. */
export const updateCampaignSchema = z
  .object({
    name: campaignName.optional(),
    landerId: reference("Select a lander").optional(),
    offerId: reference("offerId must be an offer id or null").nullable().optional(),
    domainId: reference("domainId must be a domain id or null").nullable().optional(),
    bhToggle: z.boolean({ error: "bhToggle must be true or false" }).optional(),
    mediaBuyer,
    sparkId: sparkRef,
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), "Send at least one field to change");
export type UpdateCampaignInput = z.input<typeof updateCampaignSchema>;

/** What a visitor of a campaign's tracking link sees while its BH Toggle (redirect to lander) is off. */
export const HOLDING_PAGE_TEXT = "This page is not available yet. Please check back later.";
