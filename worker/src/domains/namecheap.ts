/**
 * Namecheap's XML API, as domain automation uses it (README, "Domain automation").
 *
 * - Every command is an HTTP POST form: the API key travels in the body, never in a URL that a
 *   proxy, relay or log could record. (Reads may be GET at Namecheap; POST works for all, and the
 *   relay accepts POST only.)
 * - Errors arrive with HTTP 200 as `<ApiResponse Status="ERROR">`: we branch on Status, and turn the
 *   account-level ones (IP not whitelisted, bad key, locked user) into sentences saying what to do.
 * - Element and attribute names are matched without regard to case (live answers differ from the
 *   documented examples).
 * - A failure whose outcome is unknown (timeout, 5xx, a body that is not Namecheap's XML) is marked
 *   `answered: false`: for domains.create that means "may have been charged", and the purchase code
 *   never sends it again.
 * - ⚠ Namecheap publishes no rate limit; users report about 20 calls a minute. Each isolate keeps
 *   to that, and prices are cached for an hour.
 */
import { ExternalApiError, type FetchFn } from "../integrations/http";
import { decimalToCents } from "../lib/money";
import { isIpv4, type NamecheapConfig, type NamecheapRoute } from "./config";
import { socks5Request, Socks5Error, type ConnectFn } from "./socks5";
import { attr, child, childrenNamed, childText, descendant, descendants, isTrue, parseXml, XmlError, type XmlElement } from "./xml";

export class NamecheapError extends ExternalApiError {
  constructor(
    message: string,
    readonly details: {
      /** True when Namecheap (or the route to it) definitely did not act on the call. */
      answered: boolean;
      /** Namecheap's error number, when it gave one. */
      number?: string;
      /** The caller IP Namecheap named in an IP-not-whitelisted error. */
      egressIp?: string;
      /** Something to set up in the Namecheap account first (the default address). */
      accountSetup?: boolean;
    },
  ) {
    // Never retried automatically: a resent purchase can charge twice, and reads are cheap to ask again.
    super("Namecheap", message, false, details.number);
    this.name = "NamecheapError";
  }
}

export interface NamecheapDeps {
  fetch?: FetchFn;
  connect?: ConnectFn;
  timeoutMs?: number;
  now?: () => number;
}

export interface DomainCheck {
  domain: string;
  available: boolean;
  /** Namecheap's reason when it could not check the name. */
  problem: string | null;
  premium: boolean;
  premiumRegistrationCents: number | null;
  premiumRenewalCents: number | null;
  icannFeeCents: number;
  eapFeeCents: number;
}

export interface Contact {
  FirstName: string;
  LastName: string;
  Address1: string;
  Address2: string;
  City: string;
  StateProvince: string;
  StateProvinceChoice: string;
  PostalCode: string;
  Country: string;
  Phone: string;
  EmailAddress: string;
  OrganizationName: string;
}

export interface Registration {
  orderId: string | null;
  domainId: string | null;
  transactionId: string | null;
  chargedCents: number | null;
}

export interface DomainInfo {
  owned: boolean;
  nameservers: string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** The address-book entries read while looking for the default one. */
const MAX_ADDRESSES = 10;
export const PRICE_CACHE_MS = 60 * 60 * 1000;
const RATE_WINDOW_MS = 60_000;
const RATE_MAX = 20;
const RATE_MAX_WAIT_MS = 8_000;

// Per-isolate state: recent call times (the rate budget) and prices.
const recentCalls: number[] = [];
const priceCache = new Map<string, { cents: number | null; expires: number }>();

/** For tests: start from an empty price cache and rate budget. */
export function resetNamecheapState() {
  recentCalls.length = 0;
  priceCache.clear();
}

const ACCOUNT_SETUP = "Namecheap → Profile → Tools → API Access";

/** Namecheap's error, in words that say what to do. */
function describeError(number: string, text: string): { message: string; egressIp?: string } {
  switch (number) {
    case "1011150":
    case "1017150": {
      const ip = /(\d{1,3}(?:\.\d{1,3}){3})/.exec(text)?.[1];
      return ip
        ? {
            message: `Namecheap refused the caller's IP address: whitelist this IP: ${ip} (${ACCOUNT_SETUP}), and set NAMECHEAP_CLIENT_IP to it.`,
            egressIp: ip,
          }
        : { message: `Namecheap refused the caller's IP address (${text}). Whitelist the IP the calls come from in ${ACCOUNT_SETUP}.` };
    }
    case "1010102":
    case "1011102":
      return { message: `Namecheap rejected the API key: NAMECHEAP_API_KEY is missing or wrong (copy it from ${ACCOUNT_SETUP}).` };
    case "1017101":
    case "1017103":
    case "1017105":
    case "1017410":
    case "1017411":
      return {
        message: `The Namecheap account is locked or disabled for API use (${text}). Sign in to Namecheap to resolve it; API access also needs a funded account.`,
      };
    case "1016103":
    case "1019103":
      return { message: `Namecheap does not accept the user name (${text}): check NAMECHEAP_API_USER and NAMECHEAP_USERNAME.` };
    case "1010101":
      return { message: "Namecheap did not get an API user: set NAMECHEAP_API_USER." };
    default:
      return { message: `Namecheap error ${number || "(no number)"}: ${text || "no description"}` };
  }
}

/** `x050900` numbers are Namecheap's "unknown / unhandled" family: what happened is not known. */
const isUnclearError = (number: string) => /0900$/.test(number);

/** The CommandResponse of an OK answer; throws NamecheapError for an ERROR one. */
export function readAnswer(body: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (err) {
    const snippet = body.replace(/\s+/g, " ").trim().slice(0, 160);
    throw new NamecheapError(
      `Namecheap sent something that is not its XML (${err instanceof XmlError ? err.message : "unreadable"}): ${snippet || "empty body"}`,
      { answered: false },
    );
  }
  if (root.name.toLowerCase() !== "apiresponse") throw new NamecheapError(`Namecheap sent an unexpected document <${root.name}>`, { answered: false });
  const status = attr(root, "Status")?.toUpperCase();
  if (status === "OK") return child(root, "CommandResponse") ?? root;
  const errors = descendants(child(root, "Errors"), "Error").map((e) => ({ number: attr(e, "Number") ?? "", text: e.text.trim() }));
  const first = errors[0] ?? { number: "", text: `status ${status ?? "missing"}` };
  const { message, egressIp } = describeError(first.number, first.text);
  throw new NamecheapError(message, { answered: !isUnclearError(first.number), number: first.number, egressIp });
}

const cents = (value: string | undefined) => (value === undefined || value.trim() === "" ? null : decimalToCents(value, "round"));

/** "91.1111111111" (address book) → "+91.1111111111" (what domains.create asks for). */
export const namecheapPhone = (phone: string) => {
  const p = phone.replace(/[\s()-]/g, "");
  return p && !p.startsWith("+") ? `+${p}` : p;
};

const REQUIRED_CONTACT: (keyof Contact)[] = ["FirstName", "LastName", "Address1", "City", "StateProvince", "PostalCode", "Country", "Phone", "EmailAddress"];
const CONTACT_ROLES = ["Registrant", "Tech", "Admin", "AuxBilling"] as const;

export function createNamecheap(config: NamecheapConfig, deps: NamecheapDeps = {}) {
  const fetchFn = deps.fetch ?? ((input, init) => fetch(input, init));
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const route = config.route;

  async function takeRateSlot() {
    const t = now();
    while (recentCalls.length && recentCalls[0]! <= t - RATE_WINDOW_MS) recentCalls.shift();
    if (recentCalls.length >= RATE_MAX) {
      const wait = recentCalls[0]! + RATE_WINDOW_MS - t;
      if (wait > RATE_MAX_WAIT_MS) {
        throw new NamecheapError(`Namecheap allows about ${RATE_MAX} calls a minute and this one would exceed it: try again in ${Math.ceil(wait / 1000)} s.`, {
          answered: true,
        });
      }
      await new Promise((r) => setTimeout(r, wait));
    }
    recentCalls.push(now());
  }

  /** One HTTP exchange on the configured route: the status and body text. */
  async function exchange(form: URLSearchParams): Promise<{ status: number; body: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    const body = form.toString();
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/xml, text/xml" };
    const unclear = (reason: string) =>
      new NamecheapError(
        `Could not get an answer from Namecheap${route.mode === "direct" ? "" : ` through the ${route.mode === "relay" ? "HTTPS relay" : "SOCKS5 proxy"}`}: ${reason}`,
        { answered: false },
      );
    if (route.mode === "socks5") {
      try {
        const res = await socks5Request(deps.connect ?? (await defaultConnect()), route, { method: "POST", url: config.apiUrl, headers, body }, signal);
        return { status: res.status, body: res.body };
      } catch (err) {
        if (err instanceof Socks5Error && err.beforeRequest) throw new NamecheapError(err.message, { answered: true });
        throw unclear(signal.aborted ? "it did not answer in time" : err instanceof Error ? err.message : String(err));
      }
    }
    const url = route.mode === "relay" ? route.url : config.apiUrl;
    if (route.mode === "relay") headers["x-relay-key"] = route.key;
    let res: Response;
    try {
      res = await fetchFn(url.toString(), { method: "POST", headers, body, signal });
    } catch (err) {
      throw unclear(
        signal.aborted || (err instanceof Error && err.name === "TimeoutError")
          ? "it did not answer in time"
          : err instanceof Error
            ? err.message
            : String(err),
      );
    }
    if (route.mode === "relay" && (res.status === 401 || res.status === 403)) {
      throw new NamecheapError(
        `The HTTPS relay at ${url.host} refused the call (HTTP ${res.status}): NAMECHEAP_RELAY_KEY does not match the key in its nginx config.`,
        { answered: true },
      );
    }
    return { status: res.status, body: await res.text() };
  }

  async function call(command: string, params: Record<string, string> = {}): Promise<XmlElement> {
    await takeRateSlot();
    const form = new URLSearchParams({
      ApiUser: config.apiUser,
      ApiKey: config.apiKey,
      UserName: config.userName,
      ClientIp: config.clientIp,
      Command: command,
      ...params,
    });
    const { status, body } = await exchange(form);
    if (status >= 500 || status === 408)
      throw new NamecheapError(`Namecheap answered HTTP ${status}: the outcome of ${command} is unknown.`, { answered: false });
    if (status !== 200) throw new NamecheapError(`Namecheap answered HTTP ${status} to ${command}.`, { answered: status !== 429 });
    return readAnswer(body);
  }

  async function price(action: "REGISTER" | "RENEW", tld: string, fresh: boolean): Promise<number | null> {
    const key = `${config.apiUrl}|${config.userName}|${action}|${tld}`;
    const cached = priceCache.get(key);
    if (!fresh && cached && cached.expires > now()) return cached.cents;
    const answer = await call("namecheap.users.getPricing", { ProductType: "DOMAIN", ActionName: action, ProductName: tld.toUpperCase() });
    const type = descendants(answer, "ProductType").find((t) => attr(t, "Name")?.toLowerCase() === "domain");
    const categories = descendants(type, "ProductCategory");
    // Live answers name the category after the action ("register"); the documented example says "DOMAINS".
    const category = categories.find((c) => attr(c, "Name")?.toLowerCase() === action.toLowerCase()) ?? (categories.length === 1 ? categories[0] : undefined);
    const product = descendants(category, "Product").find((p) => attr(p, "Name")?.toLowerCase() === tld.toLowerCase());
    const oneYear = descendants(product, "Price").find((p) => attr(p, "Duration") === "1" && (attr(p, "DurationType") ?? "YEAR").toUpperCase() === "YEAR");
    const base = cents(attr(oneYear, "Price")) ?? cents(attr(oneYear, "YourPrice")) ?? cents(attr(oneYear, "RegularPrice"));
    // The ICANN fee comes as AdditionalCost. A missing or zero price is unknown, never free.
    const total = base && base > 0 ? base + (cents(attr(oneYear, "AdditionalCost")) ?? 0) : null;
    priceCache.set(key, { cents: total, expires: now() + PRICE_CACHE_MS });
    return total;
  }

  async function addressInfo(id: string) {
    const answer = await call("namecheap.users.address.getInfo", { AddressId: id });
    return descendant(answer, "GetAddressInfoResult") ?? answer;
  }

  return {
    route,

    async check(domain: string): Promise<DomainCheck> {
      const answer = await call("namecheap.domains.check", { DomainList: domain });
      const result =
        descendants(answer, "DomainCheckResult").find((r) => attr(r, "Domain")?.toLowerCase() === domain) ?? descendant(answer, "DomainCheckResult");
      if (!result) throw new NamecheapError(`Namecheap's answer about ${domain} has no DomainCheckResult`, { answered: false });
      const errorNo = attr(result, "ErrorNo") ?? "0";
      const description = attr(result, "Description")?.trim() ?? "";
      return {
        domain,
        available: isTrue(attr(result, "Available")),
        problem: errorNo !== "0" && errorNo !== "" ? description || `error ${errorNo}` : null,
        premium: isTrue(attr(result, "IsPremiumName")),
        premiumRegistrationCents: cents(attr(result, "PremiumRegistrationPrice")),
        premiumRenewalCents: cents(attr(result, "PremiumRenewalPrice")),
        icannFeeCents: cents(attr(result, "IcannFee")) ?? 0,
        eapFeeCents: cents(attr(result, "EapFee")) ?? 0,
      };
    },

    /** The 1-year registration price of a TLD including the ICANN fee (cached an hour unless `fresh`). */
    registerPrice: (tld: string, { fresh = false } = {}) => price("REGISTER", tld, fresh),
    renewPrice: (tld: string) => price("RENEW", tld, false),

    async balance(): Promise<{ currency: string; available: string }> {
      const result = descendant(await call("namecheap.users.getBalances"), "UserGetBalancesResult");
      return { currency: attr(result, "Currency") ?? "USD", available: attr(result, "AvailableBalance") ?? "?" };
    },

    /**
     * The registrant contact from the account's default address-book entry. Throws a
     * NamecheapError saying exactly what to set up when there is none or it is incomplete.
     */
    async defaultContact(): Promise<Contact> {
      const list = descendants(await call("namecheap.users.address.getList"), "List");
      const setUp =
        "In Namecheap, open Profile → Address Book, add the registrant's address (name, street, city, state or province, postal code, country, phone, email) and choose 'Set as default'; then purchase again.";
      if (!list.length)
        throw new NamecheapError(`Your Namecheap account has no address in its address book, so there is no registrant contact. ${setUp}`, {
          answered: true,
          accountSetup: true,
        });
      // ⚠ Some answers flag the default entry on the list itself; otherwise each entry is read.
      const flagged = list.filter((l) => isTrue(attr(l, "IsDefault")));
      let found: XmlElement | undefined;
      for (const entry of (flagged.length ? flagged : list).slice(0, MAX_ADDRESSES)) {
        const id = attr(entry, "AddressId");
        if (!id) continue;
        const info = await addressInfo(id);
        if (flagged.length || isTrue(childText(info, "Default_YN"))) {
          found = info;
          break;
        }
      }
      if (!found)
        throw new NamecheapError(`None of the addresses in your Namecheap address book is the default one. ${setUp}`, { answered: true, accountSetup: true });
      const get = (name: string) => childText(found, name) ?? "";
      const contact: Contact = {
        FirstName: get("FirstName"),
        LastName: get("LastName"),
        Address1: get("Address1"),
        Address2: get("Address2"),
        City: get("City"),
        StateProvince: get("StateProvince"),
        StateProvinceChoice: get("StateProvinceChoice"),
        PostalCode: get("Zip") || get("PostalCode"),
        Country: get("Country"),
        Phone: namecheapPhone(get("Phone")),
        EmailAddress: get("EmailAddress"),
        OrganizationName: get("Organization"),
      };
      const lacking = REQUIRED_CONTACT.filter((k) => !contact[k]);
      if (lacking.length) {
        const name = get("AddressName") || "the default address";
        throw new NamecheapError(
          `The default address '${name}' in your Namecheap address book lacks ${lacking.join(", ")}. Complete it in Namecheap → Profile → Address Book, then purchase again.`,
          { answered: true, accountSetup: true },
        );
      }
      return contact;
    },

    /**
     * domains.create for 1 year with free WHOIS privacy. Sent once: a failure with `answered: false`
     * may have registered (and charged) it, and must be reconciled, never resent.
     */
    async create(domain: string, contact: Contact, premium: { priceCents: number } | null): Promise<Registration> {
      const params: Record<string, string> = { DomainName: domain, Years: "1", AddFreeWhoisguard: "yes", WGEnabled: "yes" };
      for (const role of CONTACT_ROLES) {
        for (const [field, value] of Object.entries(contact)) if (value) params[`${role}${field}`] = value;
      }
      if (premium) {
        params.IsPremiumDomain = "true";
        params.PremiumPrice = (premium.priceCents / 100).toFixed(2);
      }
      const answer = await call("namecheap.domains.create", params);
      const result = descendant(answer, "DomainCreateResult");
      if (!result)
        throw new NamecheapError(
          `Namecheap's answer to the purchase of ${domain} has no DomainCreateResult: check the Namecheap account before trying again.`,
          { answered: false },
        );
      if (!isTrue(attr(result, "Registered")))
        throw new NamecheapError(`Namecheap did not register ${domain} (it answered Registered=${attr(result, "Registered") ?? "missing"}).`, {
          answered: true,
        });
      return {
        orderId: attr(result, "OrderID") ?? null,
        domainId: attr(result, "DomainID") ?? null,
        transactionId: attr(result, "TransactionID") ?? null,
        chargedCents: cents(attr(result, "ChargedAmount")),
      };
    },

    /** Whether the account holds the domain, and until when, from its own domain list (read-only). */
    async findInAccount(domain: string): Promise<{ id: string | null; expiresAt: number | null } | null> {
      const answer = await call("namecheap.domains.getList", { ListType: "ALL", SearchTerm: domain, PageSize: "100" });
      const hit = descendants(answer, "Domain").find((d) => attr(d, "Name")?.toLowerCase() === domain);
      return hit ? { id: attr(hit, "ID") ?? null, expiresAt: listDate(attr(hit, "Expires")) } : null;
    },

    /** The domain's owner flag and nameservers; null when the account does not hold it. */
    async info(domain: string): Promise<DomainInfo | null> {
      let answer: XmlElement;
      try {
        answer = await call("namecheap.domains.getInfo", { DomainName: domain });
      } catch (err) {
        if (err instanceof NamecheapError && (err.details.number === "2019166" || err.details.number === "2016166")) return null;
        throw err;
      }
      const result = descendant(answer, "DomainGetInfoResult");
      const dns = descendant(result, "DnsDetails");
      return {
        owned: isTrue(attr(result, "IsOwner")),
        nameservers: childrenNamed(dns, "Nameserver")
          .map((n) => n.text.trim().toLowerCase())
          .filter(Boolean),
      };
    },

    async setNameservers(domain: string, nameservers: string[]): Promise<void> {
      const dot = domain.indexOf(".");
      const answer = await call("namecheap.domains.dns.setCustom", {
        SLD: domain.slice(0, dot),
        TLD: domain.slice(dot + 1),
        Nameservers: nameservers.join(","),
      });
      const result = descendant(answer, "DomainDNSSetCustomResult");
      // Documented as Updated="true"; the published example says Update="true".
      if (!isTrue(attr(result, "Updated") ?? attr(result, "Update"))) {
        throw new NamecheapError(`Namecheap did not confirm the new nameservers for ${domain}.`, { answered: true });
      }
    },

    /** The IPv4 address calls leave from on this route, as an echo service sees it; null when unknown. */
    async egressIp(): Promise<string | null> {
      try {
        const signal = AbortSignal.timeout(Math.min(timeoutMs, 10_000));
        let text: string;
        if (route.mode === "socks5") {
          text = (await socks5Request(deps.connect ?? (await defaultConnect()), route, { method: "GET", url: new URL(IP_ECHO_URL) }, signal)).body;
        } else if (route.mode === "relay") {
          const res = await fetchFn(new URL("/egress-ip", route.url).toString(), { headers: { "x-relay-key": route.key }, signal });
          text = res.ok ? await res.text() : "";
        } else {
          const res = await fetchFn(IP_ECHO_URL, { signal });
          text = res.ok ? await res.text() : "";
        }
        const ip = text.trim();
        return isIpv4(ip) ? ip : null;
      } catch {
        return null;
      }
    },
  };
}

export type Namecheap = ReturnType<typeof createNamecheap>;

/** The domain list's dates, "MM/DD/YYYY", as the instant that day starts in UTC; null when absent or unreadable. */
export function listDate(text: string | undefined): number | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text?.trim() ?? "");
  if (!m) return null;
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = Date.UTC(year, month - 1, day);
  return new Date(at).getUTCDate() === day && month >= 1 && month <= 12 ? at : null;
}

/** An echo service that answers the caller's IP address as plain text. */
export const IP_ECHO_URL = "https://api.ipify.org/";

async function defaultConnect(): Promise<ConnectFn> {
  const { connect } = await import("cloudflare:sockets");
  return connect as unknown as ConnectFn;
}

export const routeLabel = (route: NamecheapRoute) =>
  route.mode === "direct" ? "directly" : route.mode === "relay" ? "through the HTTPS relay" : "through the SOCKS5 proxy";
