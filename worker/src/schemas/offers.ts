import { z } from "zod";
import { httpUrl } from "./http-url";
import { NAME_MAX } from "./landers";

/** The placeholders an offer's template may use (docs/product-rules.md), filled per click at /click. */
export const TEMPLATE_TOKENS = ["clickId", "campaign", "adGroup", "creative", "placement", "campaignName", "adGroupName", "creativeName"] as const;
export type TemplateToken = (typeof TEMPLATE_TOKENS)[number];

export const DEFAULT_UTM_TEMPLATE = "sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}&sub5={placement}";
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

const offerName = z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(NAME_MAX, `Name must be at most ${NAME_MAX} characters`);

export const createOfferSchema = z.object({ name: offerName, url: httpUrl("URL"), utmTemplate: utmTemplateSchema });
export type CreateOfferInput = z.input<typeof createOfferSchema>;

export const updateOfferSchema = createOfferSchema
  .partial()
  .refine((v) => v.name !== undefined || v.url !== undefined || v.utmTemplate !== undefined, "Send a name, URL or UTM template to change");
export type UpdateOfferInput = z.input<typeof updateOfferSchema>;
