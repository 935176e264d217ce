import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getDomainByName } from "../src/db/queries/domains";
import { writeSetting } from "../src/db/queries/settings";
import { and, asc, eq } from "drizzle-orm";
import { env } from "cloudflare:workers";
import { auditLog, domains } from "../src/db/schema";
import { checkDomain, PURCHASE_GIVE_UP_MS, PURCHASE_IN_FLIGHT_MS, purchaseDomain } from "../src/domains/purchase";
import { PURCHASE_PRICE_MESSAGE } from "../src/schemas/domains";
import { finishDomains } from "../src/jobs/finish-domains";
import type { ApiErrorBody } from "../src/lib/errors";
import { createDomainFakes, refusal, domainDeps, domainEnv, freshName, routeFetchTo, unconfiguredDomainEnv, type DomainFakes } from "./domain-helpers";
import { bodyOf, db, makeAdmin, makeUser } from "./helpers";
import { callWith, clientWith } from "./performance-helpers";

// Storage is shared by the tests of a file, and the cron looks at every row: each test starts with none.
beforeEach(async () => {
  await db().delete(domains);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await writeSetting(db(), "max_domain_price", "5.00");
});

/** The first-year price of a regular name in the fake (1.16 + the 0.20 ICANN fee), as the admin confirmed it. */
const PRICE = 136;
const orders = (fakes: DomainFakes) => fakes.namecheap.state.orders.length;
const creates = (fakes: DomainFakes) => fakes.namecheap.commandsCount("namecheap.domains.create");

describe("POST /api/domains/check", () => {
  it("answers availability, the first year's price with the ICANN fee, the renewal price and the maximum", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const res = await callWith(domainEnv(), "/api/domains/check", { cookie: admin.cookie, json: { domain: " BrightDeals.xyz " } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      available: true,
      price: "1.36",
      premium: false,
      message: "brightdeals.xyz is available: $1.36 (first year).",
      renewalPrice: "13.68",
      maxPrice: "5.00",
      refusal: null,
    });
  });

  it.each([
    ["", "Domain name is required"],
    ["not a domain", "Invalid domain format (e.g., example.com, example.co.uk)"],
    ["brightdeals.com", "Only .xyz domains are supported"],
  ])("refuses %j with the product's message, asking Namecheap nothing", async (domain, message) => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const res = await callWith(domainEnv(), "/api/domains/check", { cookie: admin.cookie, json: { domain } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: message, details: [`domain: ${message}`] });
    expect(fakes.namecheap.state.requests).toEqual([]);
  });

  it("refuses a name above the Maximum Domain Price, a premium name above it, and a taken name, with the reason", async () => {
    const fakes = createDomainFakes({ namecheap: { premium: { "gold.xyz": { registration: "450.00", renewal: "450.00" } } } });
    const deps = domainDeps(fakes);
    await writeSetting(db(), "max_domain_price", "1.00");
    expect(await checkDomain(deps, "cheapish.xyz")).toMatchObject({
      available: false,
      price: "1.36",
      refusal: "above_max",
      message: "cheapish.xyz costs $1.36, above your Maximum Domain Price of $1.00 (Settings).",
    });
    await writeSetting(db(), "max_domain_price", "100.00");
    expect(await checkDomain(deps, "gold.xyz")).toMatchObject({
      available: false,
      premium: true,
      price: "450.20",
      refusal: "above_max",
      message: "gold.xyz is a premium name at $450.20, above your Maximum Domain Price of $100.00 (Settings).",
    });
    expect(await checkDomain(deps, "taken.xyz")).toMatchObject({
      available: false,
      price: null,
      refusal: "taken",
      message: "taken.xyz is already registered.",
    });
  });

  it("shows Namecheap's account errors as what to do: whitelist this IP, the key, a locked user", async () => {
    for (const [options, text] of [
      [{ callerIp: "198.51.100.23" }, "whitelist this IP: 198.51.100.23"],
      [{ apiKey: "rotated" }, "NAMECHEAP_API_KEY is missing or wrong"],
      [{ locked: true }, "locked or disabled"],
    ] as const) {
      const fakes = createDomainFakes({ namecheap: options });
      const err = await refusal(checkDomain(domainDeps(fakes), "brightdeals.xyz"));
      expect(err.status).toBe(502);
      expect(err.message).toContain(text);
    }
  });

  it("says what is missing when Namecheap is not set up, while the other screens work", async () => {
    const admin = await makeAdmin();
    const env = unconfiguredDomainEnv();
    const res = await callWith(env, "/api/domains/check", { cookie: admin.cookie, json: { domain: "brightdeals.xyz" } });
    expect(res.status).toBe(409);
    expect((await res.json<ApiErrorBody>()).error).toBe(
      'Namecheap is not set up: NAMECHEAP_API_USER is not set; NAMECHEAP_API_KEY is not set; NAMECHEAP_CLIENT_IP is not set. See the README, "Domain automation".',
    );
    const setup = await callWith(env, "/api/domains/setup", { cookie: admin.cookie });
    expect(await setup.json()).toEqual({
      namecheap: {
        configured: false,
        problems: ["NAMECHEAP_API_USER is not set", "NAMECHEAP_API_KEY is not set", "NAMECHEAP_CLIENT_IP is not set"],
        route: "not configured",
        mode: null,
        apiHost: null,
        sandbox: false,
      },
      cloudflare: { configured: false, problems: ["CLOUDFLARE_API_TOKEN is not set", "CLOUDFLARE_ACCOUNT_ID is not set"], workerName: null },
      maxPrice: "5.00",
    });
    for (const path of ["/api/domains", "/api/campaigns", "/api/settings"]) expect((await callWith(env, path, { cookie: admin.cookie })).status).toBe(200);
  });

  it("is for admins only", async () => {
    const member = await makeUser("user", ["dashboard", "campaigns"]);
    for (const [path, json] of [
      ["/api/domains", undefined],
      ["/api/domains/check", { domain: "a.xyz" }],
      ["/api/domains/purchase", { domain: "a.xyz", price: "1.36" }],
    ] as const) {
      expect((await callWith(domainEnv(), path, { cookie: member.cookie, json })).status).toBe(403);
    }
  });
});

describe("POST /api/domains/purchase", () => {
  it("buys one year with free privacy, the default address as the four contacts, and records the order", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const name = freshName();
    // One answer for 200 and 202 (bought, or not confirmed yet): its status is a union bodyOf cannot narrow, so it is checked here.
    const res = await clientWith(domainEnv(), admin).domains.purchase.$post({ json: { domain: name, price: "1.36" } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.message).toBe(`${name} is yours (order 80000001, $1.36 charged). Next: Configure DNS.`);
    expect(body.domain).toMatchObject({ domain: name, status: "purchased", purchaseOrderId: "80000001", purchaseAmount: "1.36", errorMessage: null });
    const create = fakes.namecheap.state.requests.find((r) => r.command === "namecheap.domains.create")!;
    expect(create.method).toBe("POST");
    expect(create.params).toMatchObject({
      domainname: name,
      years: "1",
      addfreewhoisguard: "yes",
      wgenabled: "yes",
      registrantfirstname: "Dana",
      registrantphone: "+1.4155550100",
      techemailaddress: "domains@trackyard.test",
      adminpostalcode: "94105",
      auxbillingcountry: "US",
    });
    // The re-check right before buying: availability, then a fresh price (not the cached one).
    expect(fakes.namecheap.state.requests.map((r) => r.command)).toEqual([
      "namecheap.domains.check",
      "namecheap.users.getPricing",
      "namecheap.users.address.getList",
      "namecheap.users.address.getInfo",
      "namecheap.domains.create",
    ]);
    const list = await bodyOf(await clientWith(domainEnv(), admin).domains.$get(), 200);
    expect(list.some((d) => d.domain === name)).toBe(true);
    // The audit log names who bought it and what it cost: announced before the order, then its outcome.
    const entries = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityKind, "domain"), eq(auditLog.actorId, admin.id)))
      .orderBy(asc(auditLog.id));
    expect(entries.map((e) => [e.action, e.entityId, e.summary])).toEqual([
      ["domain.purchase_start", String(body.domain!.id), `Buying ${name} at Namecheap for $1.36 (first year, as confirmed): sending domains.create`],
      ["domain.purchase", String(body.domain!.id), `${name} → Purchased (order 80000001, $1.36 charged)`],
    ]);
  });

  it("buys only at the price the admin confirmed: a price changed since is 409 and buys nothing", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const name = freshName();
    const buy = (price: unknown) => callWith(domainEnv(), "/api/domains/purchase", { cookie: admin.cookie, json: { domain: name, price } });
    const checked = await bodyOf(await clientWith(domainEnv(), admin).domains.check.$post({ json: { domain: name } }), 200);
    expect(checked).toMatchObject({ price: "1.36", renewalPrice: "13.68" });
    // Namecheap's price moves (still under the maximum) between the confirmation and the click.
    fakes.namecheap.state.prices.register = "1.96";
    const res = await buy(checked.price);
    expect(res.status).toBe(409);
    expect((await res.json<ApiErrorBody>()).error).toBe(
      `The price of ${name} is now $2.16, not the $1.36 you confirmed: nothing was bought. Check availability again to see the new price.`,
    );
    expect(creates(fakes)).toBe(0);
    expect(await getDomainByName(db(), name)).toBeUndefined();
    // A purchase without a confirmed price is refused before anything is asked of Namecheap.
    const requests = fakes.namecheap.state.requests.length;
    for (const price of [undefined, "", "cheap", 1.36]) {
      const refused = await buy(price);
      expect(refused.status).toBe(400);
      expect((await refused.json<ApiErrorBody>()).error).toBe(PURCHASE_PRICE_MESSAGE);
    }
    expect(fakes.namecheap.state.requests.length).toBe(requests);
    // At the new price, confirmed, it is bought.
    expect((await buy("2.16")).status).toBe(200);
    expect(orders(fakes)).toBe(1);
  });

  it("a D1 failure after Namecheap charged: the purchase is on record from before the order, and the cron confirms it", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const name = freshName();
    // D1 refuses every batch from the moment Namecheap has taken the order.
    let broken = false;
    const charging = fakes.namecheap.handle;
    fakes.namecheap.handle = async (request) => {
      const form = await request.clone().text();
      const answer = await charging(request);
      if (form.includes("Command=namecheap.domains.create")) broken = true;
      return answer;
    };
    const failingDb = new Proxy(env.DB, {
      get(target, key) {
        if (key === "batch" && broken) return () => Promise.reject(new Error("D1_ERROR: Network connection lost."));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const res = await callWith(domainEnv({ DB: failingDb }), "/api/domains/purchase", { cookie: admin.cookie, json: { domain: name, price: "1.36" } });
    expect(res.status).toBe(202);
    const body = await res.json<{ success: boolean; pending: boolean; message: string }>();
    expect(body).toMatchObject({ success: false, pending: true });
    expect(body.message).toBe(
      `${name} was bought at Namecheap (order 80000001, $1.36 charged), but Trackyard could not record it (D1_ERROR: Network connection lost.). Do not buy it again: it stays Purchasing until Trackyard confirms it from the Namecheap account (checked every 15 minutes).`,
    );
    expect(orders(fakes)).toBe(1);
    const row = (await getDomainByName(db(), name))!;
    expect(row.status).toBe("purchasing");
    const trail = () =>
      db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.entityKind, "domain"), eq(auditLog.entityId, String(row.id))))
        .orderBy(asc(auditLog.id))
        .then((rows) => rows.filter((r) => r.at >= row.createdAt).map((r) => [r.action, r.actorName, r.summary]));
    expect(await trail()).toEqual([
      ["domain.purchase_start", admin.username, `Buying ${name} at Namecheap for $1.36 (first year, as confirmed): sending domains.create`],
    ]);
    // A second click while it is unconfirmed buys nothing.
    expect((await callWith(domainEnv(), "/api/domains/purchase", { cookie: admin.cookie, json: { domain: name, price: "1.36" } })).status).toBe(409);
    // The cron, once the purchase is no longer in flight, finds it in the account.
    const later = () => Date.now() + PURCHASE_IN_FLIGHT_MS + 1000;
    expect(await finishDomains({ ...domainDeps(fakes), now: later })).toEqual({ purchasesChecked: 1, zonesChecked: 0 });
    expect(await getDomainByName(db(), name)).toMatchObject({ status: "purchased" });
    expect((await trail()).slice(1)).toEqual([["domain.purchase", "cron", `${name} → Purchased: confirmed from the Namecheap account's domain list`]]);
    expect(orders(fakes)).toBe(1);
  });

  it("a purchase refused before buying leaves no audit entry", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    fakes.namecheap.state.prices.register = "9.99";
    const before = (await db().select().from(auditLog).where(eq(auditLog.action, "domain.purchase"))).length;
    const res = await callWith(domainEnv(), "/api/domains/purchase", { cookie: admin.cookie, json: { domain: freshName(), price: "10.19" } });
    expect(res.status).toBe(409);
    expect((await db().select().from(auditLog).where(eq(auditLog.action, "domain.purchase"))).length).toBe(before);
  });

  it("checks the price again on the server: a price raised since the check buys nothing", async () => {
    const fakes = createDomainFakes();
    const deps = domainDeps(fakes);
    const name = freshName();
    expect((await checkDomain(deps, name)).available).toBe(true);
    fakes.namecheap.state.prices.register = "9.99";
    const err = await refusal(purchaseDomain(deps, name, PRICE));
    expect(err.status).toBe(409);
    expect(err.message).toBe(`${name} costs $10.19, above your Maximum Domain Price of $5.00 (Settings). Nothing was bought.`);
    expect(await getDomainByName(db(), name)).toBeUndefined();
    expect(creates(fakes)).toBe(0);
  });

  it("a double click buys once: the second purchase gets 409", async () => {
    const fakes = createDomainFakes();
    const name = freshName();
    const results = await Promise.allSettled([purchaseDomain(domainDeps(fakes), name, PRICE), purchaseDomain(domainDeps(fakes), name, PRICE)]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({ status: 409 });
    expect(orders(fakes)).toBe(1);
    // And after it succeeded, again: nothing more is bought.
    const again = await refusal(purchaseDomain(domainDeps(fakes), name, PRICE));
    expect(again).toMatchObject({ status: 409, message: `${name} is already bought (Purchased): nothing more was bought.` });
    expect(orders(fakes)).toBe(1);
  });

  it("refuses a premium name above the maximum, and buys one under it as premium", async () => {
    const fakes = createDomainFakes({
      namecheap: { premium: { "vip.xyz": { registration: "3.50", renewal: "3.50" }, "gold.xyz": { registration: "450.00", renewal: "450.00" } } },
    });
    expect(await refusal(purchaseDomain(domainDeps(fakes), "gold.xyz", 45020))).toMatchObject({
      status: 409,
      message: expect.stringContaining("premium name at $450.20"),
    });
    expect((await purchaseDomain(domainDeps(fakes), "vip.xyz", 370)).success).toBe(true);
    const create = fakes.namecheap.state.requests.find((r) => r.command === "namecheap.domains.create")!;
    expect(create.params).toMatchObject({ ispremiumdomain: "true", premiumprice: "3.50" });
    expect(fakes.namecheap.state.orders).toEqual([{ domain: "vip.xyz", orderId: 80000001, charged: "3.70" }]);
  });

  it("refuses an unavailable name, and records one already in the account as purchased without buying", async () => {
    const mine = freshName("mine");
    const fakes = createDomainFakes({ namecheap: { owned: [mine] } });
    expect(await refusal(purchaseDomain(domainDeps(fakes), "taken.xyz", PRICE))).toMatchObject({
      status: 409,
      message: "taken.xyz is already registered. Nothing was bought.",
    });
    expect(await getDomainByName(db(), "taken.xyz")).toBeUndefined();
    const adopted = await purchaseDomain(domainDeps(fakes), mine, PRICE);
    expect(adopted).toMatchObject({
      success: true,
      message: `${mine} is already in your Namecheap account: it is recorded as Purchased, and nothing was bought.`,
    });
    expect(adopted.domain?.status).toBe("purchased");
    expect(orders(fakes)).toBe(0);
  });

  it("says exactly what to set up when the account has no default address, and writes nothing", async () => {
    const fakes = createDomainFakes({ namecheap: { addresses: [] } });
    const name = freshName();
    const err = await refusal(purchaseDomain(domainDeps(fakes), name, PRICE));
    expect(err.status).toBe(409);
    expect(err.message).toContain("open Profile → Address Book");
    expect(await getDomainByName(db(), name)).toBeUndefined();
    expect(creates(fakes)).toBe(0);
  });

  it("refuses before buying when Namecheap refuses the caller's IP, and writes nothing", async () => {
    const fakes = createDomainFakes({ namecheap: { callerIp: "198.51.100.23" } });
    const name = freshName();
    expect(await refusal(purchaseDomain(domainDeps(fakes), name, PRICE))).toMatchObject({
      status: 502,
      message: expect.stringContaining("whitelist this IP: 198.51.100.23"),
    });
    expect(await getDomainByName(db(), name)).toBeUndefined();
  });

  it("a purchase Namecheap refuses is Failed with its reason, and can be bought again", async () => {
    const fakes = createDomainFakes({ namecheap: { balance: "0.50" } });
    const name = freshName();
    const first = await purchaseDomain(domainDeps(fakes), name, PRICE);
    expect(first).toMatchObject({
      success: false,
      pending: false,
      message: "Namecheap error 2033409: Insufficient funds in the account to complete the order. Nothing was bought.",
    });
    expect(first.domain).toMatchObject({ status: "failed", errorMessage: "Namecheap error 2033409: Insufficient funds in the account to complete the order" });
    fakes.namecheap.state.balance = "20.00";
    const second = await purchaseDomain(domainDeps(fakes), name, PRICE);
    expect(second.domain).toMatchObject({ id: first.domain!.id, status: "purchased", errorMessage: null });
    expect(orders(fakes)).toBe(1);
  });

  it("never resends a purchase whose answer was lost: it went through → Purchased from the account's list", async () => {
    const fakes = createDomainFakes();
    const name = freshName();
    fakes.namecheap.failNext({ command: "namecheap.domains.create", kind: "timeout", apply: true });
    const answer = await purchaseDomain(domainDeps(fakes), name, PRICE);
    expect(answer).toMatchObject({ success: true, message: `${name} is yours (confirmed from the Namecheap account).` });
    expect(answer.domain?.status).toBe("purchased");
    expect(creates(fakes)).toBe(1);
    expect(fakes.namecheap.commandsCount("namecheap.domains.getList")).toBe(1);
  });

  it("an unclear purchase that did not go through stays Purchasing, is not resent, and is Failed only well after", async () => {
    const fakes = createDomainFakes();
    const name = freshName();
    let clock = Date.now();
    const now = () => clock;
    fakes.namecheap.failNext({ command: "namecheap.domains.create", kind: "http", status: 502 });
    const answer = await purchaseDomain(domainDeps(fakes, { now }), name, PRICE);
    expect(answer).toMatchObject({ success: false, pending: true });
    expect(answer.message).toContain("It was not sent again");
    expect(answer.domain).toMatchObject({ status: "purchasing", errorMessage: expect.stringContaining("Namecheap answered HTTP 502") });
    // A nervous second click: 409, nothing sent.
    expect(await refusal(purchaseDomain(domainDeps(fakes, { now }), name, PRICE))).toMatchObject({
      status: 409,
      message: `A purchase of ${name} is already running: nothing more was bought.`,
    });
    // The cron within the half hour: still purchasing, never a second create.
    clock += 10 * 60 * 1000;
    await finishDomains({ ...domainDeps(fakes), now });
    expect((await getDomainByName(db(), name))?.status).toBe("purchasing");
    clock += PURCHASE_GIVE_UP_MS;
    await finishDomains({ ...domainDeps(fakes), now });
    const failed = await getDomainByName(db(), name);
    expect(failed).toMatchObject({ status: "failed", errorMessage: expect.stringContaining("nothing was bought") });
    expect(creates(fakes)).toBe(1);
  });

  it("an unclear purchase that the account later shows is settled as Purchased by the cron", async () => {
    const fakes = createDomainFakes();
    const name = freshName();
    let clock = Date.now();
    const now = () => clock;
    fakes.namecheap.failNext({ command: "namecheap.domains.create", kind: "garbage" });
    expect((await purchaseDomain(domainDeps(fakes, { now }), name, PRICE)).pending).toBe(true);
    // Registered at Namecheap in the meantime (as a slow order would be).
    fakes.namecheap.state.domains.set(name, { id: 1, nameservers: ["dns1.registrar-servers.com", "dns2.registrar-servers.com"], created: clock });
    clock += 3 * 60 * 1000;
    expect(await finishDomains({ ...domainDeps(fakes), now })).toEqual({ purchasesChecked: 1, zonesChecked: 0 });
    expect(await getDomainByName(db(), name)).toMatchObject({ status: "purchased", errorMessage: null });
    expect(creates(fakes)).toBe(1);
  });

  it("a pending row (never tried) is bought like a new name, in the same row", async () => {
    const fakes = createDomainFakes();
    const name = freshName("pending");
    const [pending] = await db().insert(domains).values({ domain: name }).returning();
    expect(pending!.status).toBe("pending");
    const answer = await purchaseDomain(domainDeps(fakes), name, PRICE);
    expect(answer.domain).toMatchObject({ id: pending!.id, status: "purchased", purchaseOrderId: "80000001" });
  });

  it("the cron leaves a purchase just sent to its own request", async () => {
    const fakes = createDomainFakes();
    const name = freshName();
    await db().insert(domains).values({ domain: name, status: "purchasing", purchaseStartedAt: Date.now() });
    expect(await finishDomains({ ...domainDeps(fakes), now: Date.now })).toEqual({ purchasesChecked: 0, zonesChecked: 0 });
    expect(fakes.namecheap.state.requests).toEqual([]);
  });
});
