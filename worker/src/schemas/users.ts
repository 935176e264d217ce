import { z } from "zod";
import { newPassword, newUsername } from "./auth";

/** Mirrors `FEATURES` in db/schema.ts; schemas import only zod so the web app can use them. */
export const FEATURE_NAMES = ["dashboard", "offers", "campaigns", "landers", "clicks", "sparks", "performance"] as const;
export const featureSchema = z.enum(FEATURE_NAMES, { error: "Unknown feature" });

export const FEATURE_LABELS: Record<(typeof FEATURE_NAMES)[number], string> = {
  dashboard: "Dashboard (performance stats)",
  offers: "Offers screen (offers)",
  campaigns: "Campaigns",
  landers: "Landers",
  clicks: "Click Log",
  sparks: "Sparks",
  performance: "Offers screen (performance)",
};

/**
 * What a feature opens, where its name alone does not say. Both `offers` and `performance` are
 * valid feature names (older accounts hold either) and both open the one Offers screen.
 */
export const FEATURE_NOTES: Partial<Record<(typeof FEATURE_NAMES)[number], string>> = {
  offers: "Offer performance by offer. Opens the same screen as 'performance': either one is enough.",
  performance: "The same Offers screen as 'offers', under its other feature name: either one is enough.",
};

export const createUserSchema = z.object({
  username: newUsername,
  password: newPassword,
  role: z.enum(["user", "admin"], { error: "Role must be user or admin" }).default("user"),
});
export type CreateUserInput = z.infer<typeof createUserSchema>;

const uniqueList = <T extends z.ZodType>(item: T, max: number) =>
  z
    .array(item)
    .max(max, `At most ${max} items`)
    .transform((list) => [...new Set(list)]);

export const permissionsSchema = z.object({ features: uniqueList(featureSchema, FEATURE_NAMES.length * 2) });

const label = z.string().trim().min(1, "Values cannot be empty").max(255, "Values must be at most 255 characters");
/** One media buyer: the CAKE sub1 value their clicks carry. */
export const mediaBuyerIdSchema = label.max(50, "Media buyer ids are at most 50 characters");
export const vcnAssignmentsSchema = z.object({ vcnNicknames: uniqueList(label, 1000) });
export const mediaBuyerAssignmentsSchema = z.object({ subid1s: uniqueList(mediaBuyerIdSchema, 1000) });
export const sparkAssignmentsSchema = z.object({ sparkIds: uniqueList(z.number().int().positive(), 1000) });

export const roleSchema = z.object({ role: z.enum(["user", "admin"], { error: "Role must be user or admin" }) });

/** An admin setting a member's new password. */
export const resetPasswordSchema = z.object({ password: newPassword });

export const twoFactorRequirementSchema = z.object({ required: z.boolean({ error: "required must be true or false" }) });
