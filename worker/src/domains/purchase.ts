/**
 * Checking and buying a name, with the money rules (README, "Domain automation"):
 * - the purchase checks availability and price again on the server, with a fresh price, right
 *   before buying, and refuses above the Maximum Domain Price (premium names included);
 * - the row's purchasing status is the lock: a second purchase of the name, while one runs or after
 *   it succeeded, buys nothing (409);
 * - the first-year price must be the one the admin confirmed: a price changed since buys nothing (409);
 * - the purchase is on record before domains.create is sent (an audit entry in the batch that takes
 *   the lock), and its outcome joins the batch that records it;
 * - domains.create is sent once. When its outcome is unknown (timeout, 5xx, an unreadable answer)
 *   it is never resent: the row stays purchasing and is settled from the account's own domain list.
 */
import { ApiError, conflict } from "../lib/errors";
import { formatCents } from "../lib/money";
import { getDomain, getDomainByName, type DomainRow } from "../db/queries/domains";
import { SUPPORTED_TLD } from "../schemas/domains";
import { cloudflareSetup } from "./config";
import { maxPriceCents, namecheapFor, nowOf, type DomainDeps } from "./context";
import { machine } from "./machine";
import { NamecheapError, type Namecheap } from "./namecheap";
import { judgePrice, type Refusal } from "./price-rule";
import { domainAudit } from "./step-log";
import { asSentence } from "./text";

/** A purchase not confirmed by then, and not in the account, did not happen. */
export const PURCHASE_GIVE_UP_MS = 30 * 60 * 1000;
/** The cron leaves a purchase this young to the request that is sending it. */
export const PURCHASE_IN_FLIGHT_MS = 2 * 60 * 1000;

const money = (cents: number | null) => (cents === null ? null : formatCents(cents));

/** A Namecheap failure as the API's answer: account and route problems are 502 with the reason. */
export function namecheapFailure(err: unknown, doing: string): never {
  if (err instanceof NamecheapError) throw new ApiError(502, err.message);
  if (err instanceof ApiError) throw err;
  throw new ApiError(502, `Something went wrong while ${doing}: ${err instanceof Error ? err.message : String(err)}`);
}

async function quote(nc: Namecheap, domain: string, maxCents: number, fresh: boolean) {
  const check = await nc.check(domain);
  const registerCents = check.premium || !check.available ? null : await nc.registerPrice(SUPPORTED_TLD, { fresh });
  return { check, verdict: judgePrice(check, registerCents, maxCents) };
}

export interface CheckAnswer {
  available: boolean;
  price: string | null;
  premium: boolean;
  message: string;
  renewalPrice: string | null;
  maxPrice: string;
  refusal: Refusal | null;
}

/** POST /api/domains/check: availability and price, and whether the rules let it be bought. */
export async function checkDomain(deps: DomainDeps, domain: string): Promise<CheckAnswer> {
  const nc = namecheapFor(deps);
  const maxCents = await maxPriceCents(deps.db);
  try {
    const { check, verdict } = await quote(nc, domain, maxCents, false);
    // ⚠ First-year .xyz prices are often promotional: the renewal price is shown too.
    const renewalCents = check.premium ? check.premiumRenewalCents : verdict.ok ? await nc.renewPrice(SUPPORTED_TLD).catch(() => null) : null;
    return {
      available: verdict.ok,
      price: money(verdict.priceCents),
      premium: check.premium,
      message: verdict.message,
      renewalPrice: renewalCents && renewalCents > 0 ? formatCents(renewalCents) : null,
      maxPrice: formatCents(maxCents),
      refusal: verdict.refusal,
    };
  } catch (err) {
    return namecheapFailure(err, `checking ${domain}`);
  }
}

export interface PurchaseAnswer {
  success: boolean;
  /** True when the outcome is not known yet: the row stays Purchasing until the account says. */
  pending: boolean;
  message: string;
  domain: DomainRow | null;
}

/**
 * POST /api/domains/purchase. `confirmedCents` is the first-year price the admin confirmed: a
 * fresh price that differs buys nothing (409), so a click never buys at a price nobody saw.
 */
export async function purchaseDomain(deps: DomainDeps, domain: string, confirmedCents: number): Promise<PurchaseAnswer> {
  const { db } = deps;
  const nc = namecheapFor(deps);
  // Fail fast, before any call, when the name is already being bought or was bought.
  machine.refusePurchaseOf(await getDomainByName(db, domain));
  const maxCents = await maxPriceCents(db);

  let contact: Awaited<ReturnType<Namecheap["defaultContact"]>>;
  let premium: { priceCents: number } | null = null;
  let priceCents: number;
  try {
    const { check, verdict } = await quote(nc, domain, maxCents, true);
    if (!verdict.ok) {
      // Taken may mean taken by us: a purchase confirmed late, or a name bought by hand.
      if (verdict.refusal === "taken" && (await nc.findInAccount(domain))) return adopt(deps, domain);
      throw conflict(`${asSentence(verdict.message)} Nothing was bought.`);
    }
    priceCents = verdict.priceCents!;
    if (priceCents !== confirmedCents) {
      throw conflict(
        `The price of ${domain} is now $${formatCents(priceCents)}, not the $${formatCents(confirmedCents)} you confirmed: nothing was bought. Check availability again to see the new price.`,
      );
    }
    if (check.premium) premium = { priceCents: check.premiumRegistrationCents! };
    contact = await nc.defaultContact();
  } catch (err) {
    if (err instanceof NamecheapError && err.details.accountSetup) throw conflict(err.message);
    return namecheapFailure(err, `checking ${domain} before buying it`);
  }

  // The row (the purchase's lock) and the entry announcing the purchase are one batch, written
  // before domains.create is sent: whatever fails after the charge, the purchase is on record.
  const row = await machine.startPurchase(db, domain, nowOf(deps), (id) =>
    domainAudit(
      deps,
      {
        action: "domain.purchase_start",
        id,
        summary: `Buying ${domain} at Namecheap for $${formatCents(priceCents)} (first year${premium ? ", premium" : ""}, as confirmed): sending domains.create`,
      },
      { ifChanged: true },
    ),
  );
  const outcome = (summary: string) => domainAudit(deps, { action: "domain.purchase", id: row.id, summary }, { ifChanged: true });
  let registration: Awaited<ReturnType<Namecheap["create"]>>;
  try {
    registration = await nc.create(domain, contact, premium);
  } catch (err) {
    if (err instanceof NamecheapError && err.details.answered) {
      const failed = await machine.failPurchase(
        db,
        row.id,
        err.message,
        nowOf(deps),
        outcome(`${domain} → Failed: ${asSentence(err.message)} Nothing was bought.`),
      );
      return { success: false, pending: false, message: `${asSentence(err.message)} Nothing was bought.`, domain: failed };
    }
    const reason = err instanceof Error ? err.message : String(err);
    const note = `Namecheap's answer to the purchase did not arrive (${reason}). It was not sent again: Trackyard checks the Namecheap account and marks the domain Purchased or Failed.`;
    await machine.notePurchase(db, row.id, note, nowOf(deps), outcome(`${domain} → not confirmed yet: ${note}`));
    // One read-only look right away: a purchase that went through usually shows at once.
    const settled = await reconcilePurchase(deps, nc, row.id);
    if (settled?.status === "purchased")
      return { success: true, pending: false, message: `${domain} is yours (confirmed from the Namecheap account).`, domain: settled };
    return {
      success: false,
      pending: true,
      message: `The purchase of ${domain} is not confirmed yet: Namecheap's answer did not arrive (${reason}). It was not sent again; Trackyard checks the Namecheap account every 15 minutes and marks it Purchased or Failed.`,
      domain: settled ?? null,
    };
  }

  const charged = registration.chargedCents === null ? "" : `, $${formatCents(registration.chargedCents)} charged`;
  const order = registration.orderId ? ` (order ${registration.orderId}${charged})` : "";
  const next = cloudflareSetup(deps.env).config ? "Next: Configure DNS." : "Configure DNS once the Cloudflare settings are in place.";
  const message = `${domain} is yours${order}. ${next}`;
  try {
    const done = await machine.finishPurchase(
      db,
      row.id,
      { orderId: registration.orderId, chargedCents: registration.chargedCents },
      nowOf(deps),
      outcome(`${domain} → Purchased${order}`),
    );
    return { success: true, pending: false, message, domain: done ?? (await getDomain(db, row.id)) ?? null };
  } catch (err) {
    // Bought, but D1 failed to record it: the row stays Purchasing (the lock holds against a second
    // purchase), the entry written before the call says what was bought, and the cron marks it
    // Purchased once the Namecheap account shows it. Never an error that reads as "not bought".
    console.error(`purchase of ${domain} succeeded at Namecheap but was not recorded`, err);
    return {
      success: false,
      pending: true,
      message: `${domain} was bought at Namecheap${order}, but Trackyard could not record it (${err instanceof Error ? err.message : String(err)}). Do not buy it again: it stays Purchasing until Trackyard confirms it from the Namecheap account (checked every 15 minutes).`,
      domain: null,
    };
  }
}

/** The account already holds the name: record it as purchased, buying nothing. */
async function adopt(deps: DomainDeps, domain: string): Promise<PurchaseAnswer> {
  const row = await machine.startPurchase(deps.db, domain, nowOf(deps));
  const message = `${domain} is already in your Namecheap account: it is recorded as Purchased, and nothing was bought.`;
  const done = await machine.finishPurchase(
    deps.db,
    row.id,
    { orderId: null, chargedCents: null },
    nowOf(deps),
    domainAudit(
      deps,
      { action: "domain.purchase", id: row.id, summary: `${domain} → Purchased: already in the Namecheap account, nothing was bought` },
      { ifChanged: true },
    ),
  );
  return { success: true, pending: false, message, domain: done };
}

/**
 * Settles a purchasing row from the account's own domain list (read-only, never a new order):
 * there → purchased; not there long after the purchase was sent → failed; otherwise unchanged.
 * Namecheap being unreachable leaves it unchanged too.
 */
export async function reconcilePurchase(deps: DomainDeps, nc: Namecheap, id: number): Promise<DomainRow | null> {
  const row = await getDomain(deps.db, id);
  if (!row || row.status !== "purchasing") return row ?? null;
  let found: { id: string | null } | null;
  try {
    found = await nc.findInAccount(row.domain);
  } catch {
    return row;
  }
  const now = nowOf(deps);
  const outcome = (summary: string) => domainAudit(deps, { action: "domain.purchase", id, summary }, { ifChanged: true });
  if (found) {
    const entry = outcome(`${row.domain} → Purchased: confirmed from the Namecheap account's domain list`);
    return (await machine.finishPurchase(deps.db, id, { orderId: row.purchaseOrderId, chargedCents: row.purchaseAmountCents }, now, entry)) ?? row;
  }
  if (now - (row.purchaseStartedAt ?? row.createdAt) > PURCHASE_GIVE_UP_MS) {
    const message = `Namecheap never confirmed the purchase and ${row.domain} is not in the account ${Math.round(PURCHASE_GIVE_UP_MS / 60_000)} minutes later: nothing was bought. Check availability and purchase again.`;
    return (await machine.failPurchase(deps.db, id, message, now, outcome(`${row.domain} → Failed: ${message}`))) ?? row;
  }
  return row;
}
