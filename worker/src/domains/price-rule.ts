import { formatCents } from "../lib/money";
import type { DomainCheck } from "./namecheap";

export type Refusal = "taken" | "unchecked" | "early_access" | "price_unknown" | "above_max";

export interface Verdict {
  /** True when the name may be bought under the rules. */
  ok: boolean;
  refusal: Refusal | null;
  /** The first year's price with fees, when known. */
  priceCents: number | null;
  message: string;
}

const dollars = (cents: number) => `$${formatCents(cents)}`;

/**
 * Whether a name may be bought automatically: it must be available, out of any Early Access
 * period (EAP fees change daily and run to hundreds of dollars), have a known price, and cost no
 * more than the Maximum Domain Price in its first year. A premium name costs its premium
 * registration price plus the ICANN and EAP fees; a regular one the account's 1-year .xyz price
 * (with the ICANN fee). A missing or zero price is unknown, never free.
 */
export function judgePrice(check: DomainCheck, registerCents: number | null, maxCents: number): Verdict {
  const name = check.domain;
  if (check.problem) return { ok: false, refusal: "unchecked", priceCents: null, message: `Namecheap could not check ${name}: ${check.problem}` };
  if (!check.available) return { ok: false, refusal: "taken", priceCents: null, message: `${name} is already registered.` };
  const premiumBase = check.premiumRegistrationCents;
  const priceCents = check.premium ? (premiumBase && premiumBase > 0 ? premiumBase + check.icannFeeCents + check.eapFeeCents : null) : registerCents;
  if (check.eapFeeCents > 0) {
    return {
      ok: false,
      refusal: "early_access",
      priceCents,
      message: `${name} is in an Early Access period (an extra ${dollars(check.eapFeeCents)} fee that changes daily): it is not bought automatically.`,
    };
  }
  if (priceCents === null || priceCents <= 0) {
    return {
      ok: false,
      refusal: "price_unknown",
      priceCents: null,
      message: `Namecheap gave no price for ${name}, so it is not bought (a missing price is never taken as free).`,
    };
  }
  if (priceCents > maxCents) {
    const what = check.premium ? `${name} is a premium name at ${dollars(priceCents)}` : `${name} costs ${dollars(priceCents)}`;
    return { ok: false, refusal: "above_max", priceCents, message: `${what}, above your Maximum Domain Price of ${dollars(maxCents)} (Settings).` };
  }
  const label = check.premium ? "premium price" : "first year";
  return { ok: true, refusal: null, priceCents, message: `${name} is available: ${dollars(priceCents)} (${label}).` };
}
