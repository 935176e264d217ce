/**
 * A local stand-in for Namecheap's XML API (README, "Domain automation"),
 * answering with the documented shapes and the live answers' quirks:
 * - `/xml.response`, GET or POST form, global parameters ApiUser / ApiKey / UserName / ClientIp /
 *   Command; errors with HTTP 200 as `<ApiResponse Status="ERROR"><Errors><Error Number>`;
 *   1011150 names the caller IP that is not whitelisted, 1011102 a bad key, 1017101 a locked user;
 * - names in the case live answers use, which differs from the documented examples (lower-case
 *   product names in getPricing, `getinfo` in RequestedCommand, `YourAdditonalCost` misspelt);
 * - domains.check, users.getPricing, users.getBalances, users.address.getList/getInfo,
 *   domains.create, domains.getList, domains.getInfo, domains.dns.setCustom.
 *
 * Plain fetch handlers (`handle(Request)`): the worker tests inject them as `fetch`, and
 * scripts/fakes.mjs serves them over HTTP to `npm start`. No Worker-only APIs.
 */
import { hangUntilAborted } from "./hang";

export interface FakeAddress {
  id: number;
  name: string;
  isDefault: boolean;
  fields: Partial<
    Record<"FirstName" | "LastName" | "Organization" | "Address1" | "City" | "StateProvince" | "Zip" | "Country" | "Phone" | "EmailAddress", string>
  >;
}

/** An answer given instead of the real one, once, to the next call of `command` (any command when omitted). */
export type NamecheapFailure = { command?: string } & (
  | { kind: "error"; number: string; text: string }
  | { kind: "http"; status: number; body?: string }
  /** No answer until the caller gives up. `apply`: the command takes effect first (a purchase that went through). */
  | { kind: "timeout"; apply?: boolean }
  | { kind: "garbage" }
);

export interface NamecheapFakeOptions {
  apiUser?: string;
  apiKey?: string;
  /** The IP the fake sees calls come from, and the whitelist it checks it against. */
  callerIp?: string;
  whitelist?: string[];
  locked?: boolean;
  /** .xyz prices of the account (1 year), and the ICANN fee. */
  prices?: { register: string; renew: string; icann: string };
  /** Names registered by someone else. */
  taken?: string[];
  premium?: Record<string, { registration: string; renewal: string }>;
  /** Names in an Early Access period, with the fee. */
  eap?: Record<string, string>;
  addresses?: FakeAddress[];
  balance?: string;
  /** Names already in this account. */
  owned?: string[];
}

export const DEFAULT_ADDRESS: FakeAddress = {
  id: 4411,
  name: "Primary Address",
  isDefault: true,
  fields: {
    FirstName: "Dana",
    LastName: "Reyes",
    Organization: "Trackyard Media LLC",
    Address1: "500 Market Street",
    City: "San Francisco",
    StateProvince: "CA",
    Zip: "94105",
    Country: "US",
    Phone: "1.4155550100",
    EmailAddress: "domains@trackyard.test",
  },
};

const esc = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const xml = (body: string) =>
  new Response(`<?xml version="1.0" encoding="utf-8"?>\r\n${body}`, { status: 200, headers: { "content-type": "text/xml; charset=utf-8" } });

function envelope(command: string, inner: string) {
  return xml(
    `<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">\r\n  <Errors />\r\n  <Warnings />\r\n  <RequestedCommand>${esc(command.toLowerCase())}</RequestedCommand>\r\n  <CommandResponse Type="${esc(command.toLowerCase())}">\r\n    ${inner}\r\n  </CommandResponse>\r\n  <Server>PHX01APIEXT01</Server>\r\n  <GMTTimeDifference>--5:00</GMTTimeDifference>\r\n  <ExecutionTime>0.041</ExecutionTime>\r\n</ApiResponse>`,
  );
}

function errorAnswer(command: string, number: string, text: string) {
  return xml(
    `<ApiResponse Status="ERROR" xmlns="http://api.namecheap.com/xml.response">\r\n  <Errors>\r\n    <Error Number="${esc(number)}">${esc(text)}</Error>\r\n  </Errors>\r\n  <Warnings />\r\n  <RequestedCommand>${esc(command.toLowerCase())}</RequestedCommand>\r\n  <Server>PHX01APIEXT01</Server>\r\n  <GMTTimeDifference>--5:00</GMTTimeDifference>\r\n  <ExecutionTime>0.012</ExecutionTime>\r\n</ApiResponse>`,
  );
}

const mmddyyyy = (ms: number) => {
  const d = new Date(ms);
  return `${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}/${d.getUTCFullYear()}`;
};

export function createNamecheapFake(options: NamecheapFakeOptions = {}) {
  const state = {
    apiUser: options.apiUser ?? "trackyard",
    apiKey: options.apiKey ?? "namecheap-test-key",
    callerIp: options.callerIp ?? "203.0.113.7",
    whitelist: [...(options.whitelist ?? ["203.0.113.7"])],
    locked: options.locked ?? false,
    prices: { ...(options.prices ?? { register: "1.16", renew: "13.48", icann: "0.20" }) },
    taken: new Set(options.taken ?? ["google.xyz", "taken.xyz"]),
    premium: { ...(options.premium ?? {}) },
    eap: { ...(options.eap ?? {}) },
    addresses: [...(options.addresses ?? [DEFAULT_ADDRESS])],
    balance: options.balance ?? "250.00",
    /** Names in the account: id, nameservers, when registered. */
    domains: new Map<string, { id: number; nameservers: string[]; created: number }>(),
    /** Every successful domains.create: what it charged. */
    orders: [] as { domain: string; orderId: number; charged: string }[],
    /** Every call: the command, HTTP method, whether the key came in the URL, the other parameters (key removed). */
    requests: [] as { command: string; method: string; keyInUrl: boolean; params: Record<string, string> }[],
    failures: [] as NamecheapFailure[],
  };
  let nextId = 9_100_000;
  for (const name of options.owned ?? [])
    state.domains.set(name, { id: nextId++, nameservers: ["dns1.registrar-servers.com", "dns2.registrar-servers.com"], created: Date.now() });

  const commandsCount = (command: string) => state.requests.filter((r) => r.command.toLowerCase() === command.toLowerCase()).length;

  function price(kind: "register" | "renew") {
    const value = state.prices[kind];
    const icann = state.prices.icann;
    // The category is the action's name, names lower case, one attribute misspelt (as live).
    return `<Price Duration="1" DurationType="YEAR" Price="${value}" PricingType="MULTIPLE" AdditionalCost="${icann}" RegularPrice="${value}" RegularPriceType="MULTIPLE" RegularAdditionalCost="${icann}" RegularAdditionalCostType="MULTIPLE" YourPrice="${value}" YourPriceType="MULTIPLE" YourAdditonalCost="${icann}" YourAdditonalCostType="MULTIPLE" PromotionPrice="0.0" Currency="USD" />
            <Price Duration="2" DurationType="YEAR" Price="${(Number(value) + Number(state.prices.renew)).toFixed(2)}" PricingType="MULTIPLE" AdditionalCost="0.40" RegularPrice="0" YourPrice="0" Currency="USD" />`;
  }

  /** The command's effect and answer. */
  function run(command: string, p: (name: string) => string): Response {
    switch (command.toLowerCase()) {
      case "namecheap.domains.check": {
        const names = p("DomainList")
          .split(",")
          .map((n) => n.trim().toLowerCase())
          .filter(Boolean);
        if (!names.length) return errorAnswer(command, "2011169", "Parameter DomainList is missing");
        const results = names.map((name) => {
          const premium = state.premium[name];
          const eap = state.eap[name] ?? "0";
          const available = !state.taken.has(name) && !state.domains.has(name);
          return `<DomainCheckResult Domain="${esc(name)}" Available="${available}" ErrorNo="0" Description="" IsPremiumName="${premium ? "true" : "false"}" PremiumRegistrationPrice="${premium?.registration ?? "0"}" PremiumRenewalPrice="${premium?.renewal ?? "0"}" PremiumRestorePrice="0" PremiumTransferPrice="0" IcannFee="${premium ? state.prices.icann : "0"}" EapFee="${eap}" />`;
        });
        return envelope(command, results.join("\r\n    "));
      }
      case "namecheap.users.getpricing": {
        const action = p("ActionName").toLowerCase() || "register";
        if (p("ProductType").toUpperCase() !== "DOMAIN") return errorAnswer(command, "2011298", "ProductType is invalid");
        if (p("ProductName").toLowerCase() !== "xyz") return envelope(command, `<UserGetPricingResult />`);
        return envelope(
          command,
          `<UserGetPricingResult>
      <ProductType Name="domain">
        <ProductCategory Name="${esc(action)}">
          <Product Name="xyz">
            ${price(action === "renew" ? "renew" : "register")}
          </Product>
        </ProductCategory>
      </ProductType>
    </UserGetPricingResult>`,
        );
      }
      case "namecheap.users.getbalances":
        return envelope(
          command,
          `<UserGetBalancesResult Currency="USD" AvailableBalance="${state.balance}" AccountBalance="${state.balance}" EarnedAmount="0.00" WithdrawableAmount="0.00" FundsRequiredForAutoRenew="0.00" />`,
        );
      case "namecheap.users.address.getlist":
        return envelope(
          command,
          `<AddressGetListResult>${state.addresses.map((a) => `<List AddressId="${a.id}" AddressName="${esc(a.name)}" />`).join("")}</AddressGetListResult>`,
        );
      case "namecheap.users.address.getinfo": {
        const address = state.addresses.find((a) => String(a.id) === p("AddressId"));
        if (!address) return errorAnswer(command, "4022336", "Failed to retrieve user's address");
        const f = address.fields;
        const el = (name: string, value = "") => `<${name}>${esc(value)}</${name}>`;
        return envelope(
          command,
          `<GetAddressInfoResult>${el("AddressId", String(address.id))}${el("UserName", state.apiUser)}${el("AddressName", address.name)}${el("Default_YN", address.isDefault ? "true" : "false")}${el("FirstName", f.FirstName)}${el("LastName", f.LastName)}${el("JobTitle")}${el("Organization", f.Organization)}${el("Address1", f.Address1)}${el("Address2")}${el("City", f.City)}${el("StateProvince", f.StateProvince)}${el("StateProvinceChoice", "S")}${el("Zip", f.Zip)}${el("Country", f.Country)}${el("Phone", f.Phone)}${el("Fax")}${el("PhoneExt")}${el("EmailAddress", f.EmailAddress)}</GetAddressInfoResult>`,
        );
      }
      case "namecheap.domains.create": {
        const name = p("DomainName").toLowerCase();
        if (p("Years") === "") return errorAnswer(command, "2011169", "Parameter Years is missing");
        for (const role of ["Registrant", "Tech", "Admin", "AuxBilling"]) {
          for (const field of ["FirstName", "LastName", "Address1", "City", "StateProvince", "PostalCode", "Country", "Phone", "EmailAddress"]) {
            if (!p(`${role}${field}`)) return errorAnswer(command, "2011169", `Parameter ${role}${field} is Missing`);
          }
          if (!/^\+\d{1,3}\.\d{4,14}$/.test(p(`${role}Phone`)))
            return errorAnswer(command, "2015182", `Parameter ${role}Phone is Invalid: the format is +NNN.NNNNNNNNNN`);
        }
        if (state.taken.has(name) || state.domains.has(name)) return errorAnswer(command, "2010398", `Domain ${name} is not available for registration`);
        const premium = state.premium[name];
        if (premium && p("IsPremiumDomain").toLowerCase() !== "true")
          return errorAnswer(command, "2528268", "Order validation error: premium domain requires IsPremiumDomain and PremiumPrice");
        const years = Number(p("Years"));
        const charged = premium
          ? (Number(premium.registration) + Number(state.prices.icann)).toFixed(2)
          : (Number(state.prices.register) + Number(state.prices.icann) + (years - 1) * Number(state.prices.renew)).toFixed(2);
        if (Number(charged) > Number(state.balance)) return errorAnswer(command, "2033409", "Insufficient funds in the account to complete the order");
        state.balance = (Number(state.balance) - Number(charged)).toFixed(2);
        const id = nextId++;
        const orderId = 80_000_000 + state.orders.length + 1;
        state.domains.set(name, { id, nameservers: ["dns1.registrar-servers.com", "dns2.registrar-servers.com"], created: Date.now() });
        state.orders.push({ domain: name, orderId, charged });
        return envelope(
          command,
          `<DomainCreateResult Domain="${esc(name)}" Registered="true" ChargedAmount="${charged}" DomainID="${id}" OrderID="${orderId}" TransactionID="${orderId + 500}" WhoisguardEnable="true" FreePositiveSSL="false" NonRealTimeDomain="false" />`,
        );
      }
      case "namecheap.domains.getlist": {
        const term = p("SearchTerm").toLowerCase();
        const rows = [...state.domains.entries()].filter(([name]) => !term || name.includes(term));
        return envelope(
          command,
          `<DomainGetListResult>${rows
            .map(
              ([name, d]) =>
                `<Domain ID="${d.id}" Name="${esc(name)}" User="${esc(state.apiUser)}" Created="${mmddyyyy(d.created)}" Expires="${mmddyyyy(d.created + 365 * 86_400_000)}" IsExpired="false" IsLocked="false" AutoRenew="false" WhoisGuard="ENABLED" IsPremium="false" IsOurDNS="${d.nameservers[0]?.endsWith("registrar-servers.com") ? "true" : "false"}" />`,
            )
            .join(
              "",
            )}</DomainGetListResult><Paging><TotalItems>${rows.length}</TotalItems><CurrentPage>1</CurrentPage><PageSize>${p("PageSize") || "20"}</PageSize></Paging>`,
        );
      }
      case "namecheap.domains.getinfo": {
        const name = p("DomainName").toLowerCase();
        const d = state.domains.get(name);
        if (!d) return errorAnswer(command, "2019166", "Domain not found");
        const ours = d.nameservers[0]?.endsWith("registrar-servers.com") ?? false;
        return envelope(
          command,
          `<DomainGetInfoResult Status="Ok" ID="${d.id}" DomainName="${esc(name)}" OwnerName="${esc(state.apiUser)}" IsOwner="true" IsPremium="False"><DomainDetails><CreatedDate>${mmddyyyy(d.created)}</CreatedDate><ExpiredDate>${mmddyyyy(d.created + 365 * 86_400_000)}</ExpiredDate><NumYears>0</NumYears></DomainDetails><LockDetails /><Whoisguard Enabled="True"><ID>${d.id + 7}</ID></Whoisguard><DnsDetails ProviderType="${ours ? "FREE" : "CUSTOM"}" IsUsingOurDNS="${ours}" HostCount="0" EmailType="FWD" DynamicDNSStatus="false" IsFailover="false">${d.nameservers.map((ns) => `<Nameserver>${esc(ns)}</Nameserver>`).join("")}</DnsDetails><Modificationrights All="true" /></DomainGetInfoResult>`,
        );
      }
      case "namecheap.domains.dns.setcustom": {
        const name = `${p("SLD")}.${p("TLD")}`.toLowerCase();
        const d = state.domains.get(name);
        if (!d) return errorAnswer(command, "2019166", "Domain not found");
        const ns = p("Nameservers")
          .split(",")
          .map((n) => n.trim().toLowerCase())
          .filter(Boolean);
        if (ns.length < 2) return errorAnswer(command, "2011169", "Parameter Nameservers: at least 2 are required");
        d.nameservers = ns;
        return envelope(command, `<DomainDNSSetCustomResult Domain="${esc(name)}" Updated="true" />`);
      }
      default:
        return errorAnswer(command, "1010104", `Parameter Command is invalid: ${command}`);
    }
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/xml.response")
      return new Response("<html><body>404 - File or directory not found.</body></html>", { status: 404, headers: { "content-type": "text/html" } });
    const form = request.method === "POST" ? new URLSearchParams(await request.text()) : new URLSearchParams();
    // Parameter names are not case sensitive at Namecheap.
    const params = new Map<string, string>();
    for (const [k, v] of [...url.searchParams, ...form]) params.set(k.toLowerCase(), v);
    const p = (name: string) => params.get(name.toLowerCase()) ?? "";
    const command = p("Command");
    const logged: Record<string, string> = {};
    for (const [k, v] of params) if (k !== "apikey") logged[k] = v;
    state.requests.push({ command, method: request.method, keyInUrl: [...url.searchParams.keys()].some((k) => k.toLowerCase() === "apikey"), params: logged });

    const index = state.failures.findIndex((f) => !f.command || f.command.toLowerCase() === command.toLowerCase());
    const failure = index >= 0 ? state.failures.splice(index, 1)[0] : undefined;
    if (failure?.kind === "error") return errorAnswer(command, failure.number, failure.text);
    if (failure?.kind === "http")
      return new Response(failure.body ?? "<html><body><h1>502 Bad Gateway</h1></body></html>", {
        status: failure.status,
        headers: { "content-type": "text/html" },
      });
    if (failure?.kind === "garbage") return new Response("<html><body>Service Unavailable", { status: 200, headers: { "content-type": "text/html" } });

    if (!p("ApiUser")) return errorAnswer(command, "1010101", "Parameter APIUser is missing");
    if (!p("ApiKey")) return errorAnswer(command, "1010102", "Parameter APIKey is missing");
    if (!p("Command")) return errorAnswer(command, "1010104", "Parameter Command is missing");
    if (!p("ClientIp")) return errorAnswer(command, "1011105", "Parameter ClientIP is missing");
    if (p("ApiUser") !== state.apiUser || p("ApiKey") !== state.apiKey) return errorAnswer(command, "1011102", "Parameter APIKey is invalid");
    if (state.locked) return errorAnswer(command, "1017101", "Parameter ApiUser is disabled or locked");
    if (!state.whitelist.includes(state.callerIp)) return errorAnswer(command, "1011150", `Invalid request IP: ${state.callerIp}`);

    if (failure?.kind === "timeout") {
      if (failure.apply) run(command, p);
      return hangUntilAborted(request.signal);
    }
    return run(command, p);
  }

  return {
    state,
    handle,
    fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)),
    failNext(...failures: NamecheapFailure[]) {
      state.failures.push(...failures);
    },
    commandsCount,
    /** The nameservers the account has for a name (what Cloudflare's activation looks for). */
    nameserversOf: (name: string) => state.domains.get(name)?.nameservers ?? [],
  };
}

export type NamecheapFake = ReturnType<typeof createNamecheapFake>;

/**
 * The HTTPS relay of the README's nginx config, standing in front of `upstream`: POST
 * /xml.response with the right X-Relay-Key is passed on; GET /egress-ip answers the relay's IP.
 */
export function createRelayFake(options: { key: string; egressIp: string; upstream: (request: Request) => Promise<Response> }) {
  const state = { forwarded: 0, refused: 0 };
  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const nginx = (status: number, text: string) =>
      new Response(
        `<html><head><title>${status} ${text}</title></head><body><center><h1>${status} ${text}</h1></center><hr><center>nginx</center></body></html>`,
        { status, headers: { "content-type": "text/html" } },
      );
    if (url.pathname !== "/xml.response" && url.pathname !== "/egress-ip") return nginx(404, "Not Found");
    if (request.headers.get("x-relay-key") !== options.key) {
      state.refused++;
      return nginx(403, "Forbidden");
    }
    if (url.pathname === "/egress-ip") return new Response(`${options.egressIp}\n`, { headers: { "content-type": "text/plain" } });
    if (request.method !== "POST") return nginx(405, "Not Allowed");
    state.forwarded++;
    return options.upstream(
      new Request("https://api.namecheap.com/xml.response", {
        method: "POST",
        headers: { "content-type": request.headers.get("content-type") ?? "application/x-www-form-urlencoded" },
        body: await request.text(),
        signal: request.signal,
      }),
    );
  }
  return { state, handle, fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)) };
}

/** The IP echo service (api.ipify.org): answers the caller's IP as plain text. */
export const ipEchoFake = (ip: string) => async () => new Response(ip, { headers: { "content-type": "text/plain" } });
