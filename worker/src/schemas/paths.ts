import { z } from "zod";
import { largestRemainder } from "../lib/largest-remainder";
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

/**
 * The country codes a country condition may name: ISO 3166-1 alpha-2, plus the codes Cloudflare's
 * `request.cf.country` also sends (XK Kosovo, XX unknown, T1 Tor).
 */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW XX T1".split(
    " ",
  ),
);

/** Why a condition's values cannot be matched, or null: unknown countries, out-of-range days and hours, non-numeric ASNs. */
export function conditionValueProblem(field: ConditionField, values: readonly string[]): string | null {
  const bad = (test: (v: string) => boolean) => values.filter((v) => !test(v.trim()));
  const wrong =
    field === "country"
      ? bad((v) => COUNTRY_CODES.has(v.toUpperCase()))
      : field === "weekday"
        ? bad((v) => /^[0-6]$/.test(v))
        : field === "hour"
          ? bad((v) => /^(?:[01]?\d|2[0-3])$/.test(v))
          : field === "asn"
            ? bad((v) => /^[1-9]\d{0,9}$/.test(v))
            : [];
  if (!wrong.length) return null;
  const list = wrong.map((v) => `"${v}"`).join(", ");
  if (field === "country") return `Unknown country code ${list} (use ISO 3166-1 alpha-2, e.g. US, GB, DE)`;
  if (field === "weekday") return `Day of week ${list} must be 0 (Sunday) to 6 (Saturday)`;
  if (field === "hour") return `Hour ${list} must be 0 to 23`;
  return `ASN ${list} must be a number`;
}

export const conditionSchema = z
  .object({
    field: z.enum(CONDITION_FIELDS, { error: `field must be one of ${CONDITION_FIELDS.join(", ")}` }),
    /** Only for field "param": the tracking URL's query parameter, e.g. "utm_source". */
    param: z.string().trim().min(1).max(100).optional(),
    op: z.enum(["is", "isNot"], { error: 'op must be "is" or "isNot"' }),
    /** ORed. country: ISO 3166-1 alpha-2; weekday: 0 (Sunday) - 6; hour: 0-23 (report time zone); asn: numbers as text. */
    values: z.array(z.string().trim().min(1).max(255)).min(1, "Give at least one value").max(MAX_VALUES, `At most ${MAX_VALUES} values`),
  })
  .refine((c) => (c.field === "param") === (c.param !== undefined), "A query parameter condition names its parameter (and only it does)")
  .superRefine((c, ctx) => {
    const problem = conditionValueProblem(c.field, c.values);
    if (problem) ctx.addIssue({ code: "custom", path: ["values"], message: problem });
  });
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
/** A path's variants' weights as its weight history keeps them (GET .../paths/:pathId/history). */
export interface PathWeights {
  landers: { landerId: number; weight: number; paused: boolean; pinned: boolean }[];
  offers: { offerId: number; weight: number; paused: boolean; pinned: boolean }[];
}

/** A path as validated: `id` absent for a new one. */
export type PathValues = z.infer<typeof pathSchema>;
export type Path = z.infer<typeof pathSchema> & { id: number };

/** PUT /api/campaigns/:id/paths: the campaign's whole set, in evaluation order (replaced atomically). */
export const putPathsSchema = z
  .object({ paths: z.array(pathSchema).min(1, "A campaign needs its default path").max(MAX_PATHS, `At most ${MAX_PATHS} paths`) })
  .superRefine(({ paths }, ctx) => {
    for (const { path, message } of pathSetProblems(paths)) ctx.addIssue({ code: "custom", path, message });
  });
export type PutPathsInput = z.input<typeof putPathsSchema>;

type PathShape = Pick<z.infer<typeof pathSchema>, "name" | "isDefault" | "conditions" | "landers" | "offers" | "directToOffer">;

const hasLive = (variants: readonly { weight: number; paused: boolean }[]) => variants.some((v) => !v.paused && v.weight > 0);

/**
 * What makes a set of paths unusable, each with where it is: the default path (exactly one, last,
 * without conditions), a path without a lander (or, straight to the offer, without an offer),
 * weights that send nobody anywhere, a lander or offer twice in one path.
 */
export function pathSetProblems(paths: readonly PathShape[]): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const defaults = paths.filter((p) => p.isDefault).length;
  if (defaults !== 1)
    problems.push({ path: ["paths"], message: defaults === 0 ? "One path must be the default path" : "Only one path can be the default path" });
  else if (!paths[paths.length - 1]!.isDefault)
    problems.push({ path: ["paths"], message: "The default path must be the last one (it catches every visitor no rule path took)" });
  paths.forEach((p, i) => {
    const at = (...rest: (string | number)[]) => ["paths", i, ...rest];
    const name = `Path "${p.name}"`;
    if (p.isDefault && p.conditions.length) problems.push({ path: at("conditions"), message: `${name} is the default path: it has no conditions` });
    if (!p.isDefault && !p.conditions.length)
      problems.push({ path: at("conditions"), message: `${name} needs at least one condition (only the default path has none)` });
    if (p.directToOffer) {
      if (p.landers.length) problems.push({ path: at("landers"), message: `${name} sends visitors straight to the offer: it has no landers` });
      if (!p.offers.length) problems.push({ path: at("offers"), message: `${name} sends visitors straight to the offer: give it an offer` });
    } else if (!p.landers.length) {
      problems.push({ path: at("landers"), message: `${name} needs a lander, or to send visitors straight to the offer` });
    }
    if (p.landers.length && !hasLive(p.landers)) {
      problems.push({ path: at("landers"), message: `${name}: every lander is paused or at 0%, so nobody could be sent to one` });
    }
    if (p.offers.length && !hasLive(p.offers)) {
      problems.push({ path: at("offers"), message: `${name}: every offer is paused or at 0%, so nobody could be sent to one` });
    }
    const twice = (ids: number[]) => ids.filter((id, j) => ids.indexOf(id) !== j);
    for (const id of new Set(twice(p.landers.map((l) => l.landerId)))) problems.push({ path: at("landers"), message: `${name} lists lander ${id} twice` });
    for (const id of new Set(twice(p.offers.map((o) => o.offerId)))) problems.push({ path: at("offers"), message: `${name} lists offer ${id} twice` });
  });
  return problems;
}

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

/**
 * The share of visitors each variant gets, in percent with one decimal, in the variants' order,
 * summing to exactly 100 (largest remainder, so three equal variants read 33.4, 33.3, 33.3): a
 * paused or 0-weight variant gets 0, the others their weight over the sum of the others. All 0
 * when none can receive visitors. The editor shows the same figures before a save.
 */
export function effectivePercents(variants: readonly { weight: number; paused?: boolean }[]): number[] {
  const live = variants.map((v) => (v.paused ? 0 : Math.max(0, v.weight)));
  const sum = live.reduce((s, w) => s + w, 0);
  if (sum === 0) return live.map(() => 0);
  return largestRemainder(
    live.map((w) => (w / sum) * 1000),
    1000,
  ).map((tenths) => tenths / 10);
}
