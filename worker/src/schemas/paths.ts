import { z } from "zod";
import { NAME_MAX } from "./landers";

/**
 * A campaign's traffic distribution (docs/traffic-distribution.md): a default path and rule paths,
 * evaluated top-down, first match wins. Shared by the API (routes/paths.ts) and the web app.
 */

/** Past this a campaign's rules stop being something a person can read; say so rather than slow /r/. */
export const MAX_PATHS = 25;
export const MAX_CONDITIONS = 10;
export const MAX_VALUES = 100;
export const MAX_VARIANTS = 10;

/**
 * What a rule path can test. Bots are deliberately absent: a bot gets the path any visitor with its
 * properties would get (no cloaking, docs/product-rules.md).
 */
export const CONDITION_FIELDS = ["country", "region", "city", "deviceType", "os", "browser", "language", "asn", "weekday", "hour", "param"] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

export const conditionSchema = z
  .object({
    field: z.enum(CONDITION_FIELDS, { error: `field must be one of ${CONDITION_FIELDS.join(", ")}` }),
    /** Only for field "param": the tracking URL's query parameter, e.g. "utm_source". */
    param: z.string().trim().min(1).max(100).optional(),
    op: z.enum(["is", "isNot"], { error: 'op must be "is" or "isNot"' }),
    /** ORed. country: ISO 3166-1 alpha-2; weekday: 0 (Sunday) - 6; hour: 0-23 (report time zone); asn: numbers as text. */
    values: z.array(z.string().trim().min(1).max(255)).min(1, "Give at least one value").max(MAX_VALUES, `At most ${MAX_VALUES} values`),
  })
  .refine((c) => (c.field === "param") === (c.param !== undefined), "A query parameter condition names its parameter (and only it does)");
export type Condition = z.infer<typeof conditionSchema>;

const weight = z.number({ error: "weight must be a number" }).int("weight must be a whole number").min(0).max(100_000);

export const landerVariantSchema = z.object({
  landerId: z.number().int().positive(),
  /** Relative: shown as a percentage of the path's landers that are not paused. */
  weight,
  paused: z.boolean().default(false),
  /** Auto-optimisation leaves a pinned variant's weight as set. */
  pinned: z.boolean().default(false),
});
export const offerVariantSchema = landerVariantSchema.omit({ landerId: true }).extend({ offerId: z.number().int().positive() });

export const OPTIMISE_MODES = ["off", "cr", "epv"] as const;
export const optimisationSchema = z.object({
  /** cr: conversions per visit; epv: revenue per visit. */
  mode: z.enum(OPTIMISE_MODES).default("off"),
  windowDays: z.number().int().min(1).max(90).default(7),
  /** Every variant not paused keeps at least this share (percent). */
  floorPercent: z.number().min(0).max(50).default(5),
  /** Visits per variant before the optimiser moves any weight. */
  minVisits: z.number().int().min(0).max(1_000_000).default(200),
});

export const pathSchema = z.object({
  /** Absent for a new path. */
  id: z.number().int().positive().optional(),
  name: z.string().trim().min(1, "Path name is required").max(NAME_MAX),
  /** Exactly one path per campaign is the default: it has no conditions and is evaluated last. */
  isDefault: z.boolean(),
  /** ANDed. */
  conditions: z.array(conditionSchema).max(MAX_CONDITIONS),
  /** Empty with directToOffer: visitors go straight to an offer. */
  landers: z.array(landerVariantSchema).max(MAX_VARIANTS),
  offers: z.array(offerVariantSchema).max(MAX_VARIANTS),
  directToOffer: z.boolean().default(false),
  /** The same visitor (keyed hash of IP and user agent) sees the same lander for this many days; null: not sticky. */
  stickyDays: z.number().int().min(1).max(90).nullable().default(null),
  optimisation: optimisationSchema.default({ mode: "off", windowDays: 7, floorPercent: 5, minVisits: 200 }),
});
export type PathInput = z.input<typeof pathSchema>;
export type Path = z.infer<typeof pathSchema> & { id: number };

/** PUT /api/campaigns/:id/paths: the campaign's whole set, in evaluation order (replaced atomically). */
export const putPathsSchema = z.object({ paths: z.array(pathSchema).min(1).max(MAX_PATHS, `At most ${MAX_PATHS} paths`) });
export type PutPathsInput = z.input<typeof putPathsSchema>;

/** POST /api/campaigns/:id/paths/preview: "which path would this visitor get?" Every field optional. */
export const previewSchema = z.object({
  country: z.string().trim().max(2).optional(),
  region: z.string().trim().max(255).optional(),
  city: z.string().trim().max(255).optional(),
  deviceType: z.string().trim().max(255).optional(),
  os: z.string().trim().max(255).optional(),
  browser: z.string().trim().max(255).optional(),
  language: z.string().trim().max(255).optional(),
  asn: z.number().int().positive().optional(),
  /** An instant (ISO 8601); weekday and hour are read in the report time zone. Absent: now. */
  at: z.string().datetime({ offset: true }).optional(),
  /** The tracking URL's query, e.g. "utm_source=tt&plc=feed". */
  query: z.string().max(2000).optional(),
});
export type PreviewInput = z.input<typeof previewSchema>;
