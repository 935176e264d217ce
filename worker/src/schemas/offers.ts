import { z } from "zod";
import { httpUrl } from "./http-url";
import { NAME_MAX } from "./landers";

/**
 * The placeholders an offer's template may use, filled per click at /click: the click's own
 * values, then the campaign's media buyer and its spark's sparkId
 * (docs/product-rules.md "Offer templates and attribution").
 */
export const TEMPLATE_TOKENS = [
  "clickId",
  "campaign",
  "adGroup",
  "creative",
  "placement",
  "campaignName",
  "adGroupName",
  "creativeName",
  "mediaBuyer",
  "spark",
] as const;
export type TemplateToken = (typeof TEMPLATE_TOKENS)[number];

/**
 * A new offer's template. The Stats read CAKE's sub1 as the media buyer, sub2 as our click id and
 * sub3 as the spark, so those three carry exactly that; the ad values follow.
 */
export const DEFAULT_UTM_TEMPLATE = "sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={adGroup}&sub5={creative}";
/** The default until the Stats' reading won: its revenue never reached a campaign. Migration 0007 moved such offers to the default. */
export const OLD_DEFAULT_UTM_TEMPLATE = "sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}&sub5={placement}";
export const TEMPLATE_MAX = 2000;

const tokenList = TEMPLATE_TOKENS.map((t) => `{${t}}`).join(", ");

/** Problems with a template, as sentences; empty when it is usable. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  const known = new Set<string>(TEMPLATE_TOKENS);
  const unknown = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).filter((name) => !known.has(name));
  if (unknown.length) {
    const names = [...new Set(unknown)].map((n) => `{${n}}`).join(", ");
    problems.push(`Unknown token${unknown.length > 1 ? "s" : ""} ${names}. Available tokens: ${tokenList}`);
  }
  if (/[{}]/.test(template.replace(/\{[^{}]*\}/g, ""))) {
    problems.push("Braces must enclose a token, like {clickId}");
  }
  if (/\s/.test(template)) problems.push("The UTM template cannot contain spaces");
  if (template.includes("#")) problems.push("The UTM template cannot contain #");
  return problems;
}

/** Stored without a leading ? or &: the server adds the right separator for the offer URL. */
export const utmTemplateSchema = z
  .string({ error: "UTM template is required" })
  .trim()
  .transform((v) => v.replace(/^[?&]+/, ""))
  .pipe(
    z
      .string()
      .min(1, "UTM template is required")
      .max(TEMPLATE_MAX, `UTM template must be at most ${TEMPLATE_MAX} characters`)
      .superRefine((value, ctx) => {
        for (const message of templateProblems(value)) ctx.addIssue({ code: "custom", message });
      }),
  );

/** What each attribution sub carries for the Stats, in a media buyer's words. */
const SUB_ROLES: Partial<Record<string, { token: TemplateToken; shownAs: string }>> = {
  sub1: { token: "mediaBuyer", shownAs: "media buyers" },
  sub3: { token: "spark", shownAs: "sparks" },
};

const TOKEN_WORDS: Record<TemplateToken, string> = {
  clickId: "click ids",
  campaign: "TikTok campaign ids",
  adGroup: "ad group ids",
  creative: "ad ids",
  placement: "placements",
  campaignName: "TikTok campaign names",
  adGroupName: "ad group names",
  creativeName: "ad names",
  mediaBuyer: "media buyers",
  spark: "sparks",
};

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

interface TemplateParam {
  /** The parameter's name as typed, and lower-cased for comparing: CAKE (ASP.NET) reads query names regardless of case. */
  key: string;
  name: string;
  value: string;
  /** The part as typed, for a parameter kept unchanged (`flag` stays `flag`, not `flag=`). */
  raw?: string;
}

const parseTemplate = (template: string): TemplateParam[] =>
  template
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const at = part.indexOf("=");
      const key = at < 0 ? part : part.slice(0, at);
      return { key, name: key.toLowerCase(), value: at < 0 ? "" : part.slice(at + 1), raw: part };
    });

/** The parameter with a new value. */
const withValue = (p: TemplateParam, value: string): TemplateParam => ({ key: p.key, name: p.name, value });

const joinTemplate = (params: TemplateParam[]) => params.map((p) => p.raw ?? `${p.key}=${p.value}`).join("&");

/** The token a value is made of alone (`{adGroup}`), or null for a literal or a mix. */
function soleToken(value: string): TemplateToken | null {
  const m = /^\{([A-Za-z]+)\}$/.exec(value);
  return m && (TEMPLATE_TOKENS as readonly string[]).includes(m[1]!) ? (m[1] as TemplateToken) : null;
}

/**
 * Why conversions through an offer with this template cannot reach their campaign, in words a
 * media buyer reads on Offer Config; null when they can. The one rule: sub2 is exactly `{clickId}`,
 * once (docs/product-rules.md "Offer templates and attribution"). The Stats tie a CAKE conversion
 * to our click, and through it to the campaign, by sub2 alone; sub1 and sub3 misread are named too.
 */
export function attributionProblem(template: string): string | null {
  const params = parseTemplate(template);
  const sub2 = params.filter((p) => p.name === "sub2");
  if (sub2.length === 1 && sub2[0]!.value === "{clickId}") return null;
  const why =
    sub2.length === 0
      ? "the template sends no sub2, where the click id ({clickId}) must go"
      : sub2.length > 1
        ? "the template sends sub2 more than once; it must be the click id ({clickId}), once"
        : `sub2 carries ${sub2[0]!.value === "" ? "nothing" : sub2[0]!.value} instead of the click id ({clickId})`;
  const sentences = [`Revenue from this offer will show as "Direct", not under its campaign: ${why}.`];
  for (const [name, role] of Object.entries(SUB_ROLES)) {
    const token = soleToken(params.find((p) => p.name === name)?.value ?? "");
    if (role && token && token !== role.token) sentences.push(`${capitalised(TOKEN_WORDS[token])} will show as ${role.shownAs} (${name}).`);
  }
  return sentences.join(" ");
}

/**
 * Offer Config's one-click fix: the template with sub2 = `{clickId}`, the rest kept where it makes
 * sense. sub1 and sub3, when they carry a token, get the one the Stats read there ({mediaBuyer},
 * {spark}); a token pushed out of sub1-sub3 moves to sub4 or sub5 when free. Literal values and every
 * other parameter stay as they were, in their order. The old default becomes the new one.
 */
export function attributableTemplate(template: string): string {
  if (template === OLD_DEFAULT_UTM_TEMPLATE) return DEFAULT_UTM_TEMPLATE;
  const params = parseTemplate(template);
  const displaced: string[] = [];
  let sub2Seen = false;
  const kept: TemplateParam[] = [];
  for (const p of params) {
    if (p.name === "sub2") {
      if (soleToken(p.value) !== "clickId" && p.value !== "") displaced.push(p.value);
      if (sub2Seen) continue;
      sub2Seen = true;
      kept.push(withValue(p, "{clickId}"));
      continue;
    }
    const token = soleToken(p.value);
    const want = SUB_ROLES[p.name]?.token;
    if (want && token && token !== want) {
      displaced.push(p.value);
      kept.push(withValue(p, `{${want}}`));
      continue;
    }
    kept.push(p);
  }
  if (!sub2Seen) {
    // In sub order: after sub1, else before the first later sub, else last.
    const sub1At = kept.findIndex((p) => p.name === "sub1");
    const laterAt = kept.findIndex((p) => /^sub[3-9]$/.test(p.name));
    const at = sub1At >= 0 ? sub1At + 1 : laterAt >= 0 ? laterAt : kept.length;
    kept.splice(at, 0, { key: "sub2", name: "sub2", value: "{clickId}" });
  }
  const moving = displaced.filter((v) => soleToken(v) !== "clickId" && !kept.some((p) => p.value === v));
  for (const name of ["sub4", "sub5"]) {
    if (moving.length === 0) break;
    if (!kept.some((p) => p.name === name)) kept.push({ key: name, name, value: moving.shift()! });
  }
  return joinTemplate(kept);
}

const offerName = z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(NAME_MAX, `Name must be at most ${NAME_MAX} characters`);

const offerFields = { name: offerName, url: httpUrl("URL"), utmTemplate: utmTemplateSchema };

/** POST body; without a template the offer gets the default one (the Add Offer dialog shows it prefilled). */
export const createOfferSchema = z.object({ ...offerFields, utmTemplate: utmTemplateSchema.default(DEFAULT_UTM_TEMPLATE) });
export type CreateOfferInput = z.input<typeof createOfferSchema>;

export const updateOfferSchema = z
  .object(offerFields)
  .partial()
  .refine((v) => v.name !== undefined || v.url !== undefined || v.utmTemplate !== undefined, "Send a name, URL or UTM template to change");
export type UpdateOfferInput = z.input<typeof updateOfferSchema>;
