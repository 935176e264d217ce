import { and, asc, desc, eq, gt } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { writeSetting } from "../src/db/queries/settings";
import { auditLog, campaigns, domains } from "../src/db/schema";
import { ACTIVATION_CHECK_INTERVAL_MS, configureDomain, deleteDomain, migrateToWorkers, redeployWorker, updateNameservers } from "../src/domains/configure";
import { LEASE_MS } from "../src/domains/machine";
import { testProxy } from "../src/domains/proxy-test";
import { finishDomains } from "../src/jobs/finish-domains";
import type { ApiErrorBody } from "../src/lib/errors";
import {
  createDomainFakes,
  refusal,
  domainDeps,
  domainEnv,
  freshName,
  insertDomain,
  RELAY_KEY,
  RELAY_URL,
  routeFetchTo,
  rowOf,
  type DomainFakes,
} from "./domain-helpers";
import { bodyOf, db, idParam, makeAdmin, makeUser } from "./helpers";
import { callWith, clientWith } from "./performance-helpers";

/** helpers' typed `client`, as `user`, into the Worker with these bindings (through `callWith`). */
afterEach(() => vi.restoreAllMocks());
// Storage is shared by the tests of a file, and the cron looks at every row: each test starts with none.
beforeEach(async () => {
  await db().delete(domains);
});

/** A domain bought at the (fake) registrar and recorded as purchased. */
async function bought(fakes: DomainFakes, prefix = "bright") {
  const name = freshName(prefix);
  fakes.namecheap.state.domains.set(name, { id: 77, nameservers: ["dns1.registrar-servers.com", "dns2.registrar-servers.com"], created: Date.now() });
  return insertDomain({ domain: name, status: "purchased", purchaseOrderId: "80000001", purchaseAmountCents: 136 });
}

/** Configured and active, with `trk` attached here. */
async function activeDomain(fakes: DomainFakes, prefix = "live") {
  const row = await bought(fakes, prefix);
  fakes.cloudflare.addZone(row.domain, { status: "active" });
  const answer = await configureDomain(domainDeps(fakes), row.id, "trk");
  expect(answer.domain?.status).toBe("active");
  return answer.domain!;
}

const cron = (fakes: DomainFakes, now = Date.now) => finishDomains({ ...domainDeps(fakes), now });

/**
 * A reader of the audit entries about domain `id` written from now on (row ids start again at 1
 * once a test deletes every domain, so earlier tests' entries may name the same id).
 */
async function auditSince(id: number) {
  const [last] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  const since = last?.id ?? 0;
  return () =>
    db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityKind, "domain"), eq(auditLog.entityId, String(id)), gt(auditLog.id, since)))
      .orderBy(asc(auditLog.id));
}

describe("Configure DNS", () => {
  it("creates the zone, points the nameservers at it, waits for activation, and the cron attaches trk as a custom domain", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    const answer = await configureDomain(domainDeps(fakes), row.id, "trk");
    const zone = fakes.cloudflare.zoneByName(row.domain)!;
    expect(answer.success).toBe(true);
    expect(answer.message).toContain("Trackyard checks every 15 minutes and then attaches trk.");
    expect(answer.domain).toMatchObject({
      status: "configuring_dns",
      subdomain: "trk",
      cloudflareZoneId: zone.id,
      zoneStatus: "pending",
      nameservers: ["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"],
      errorMessage: null,
      leaseUntil: null,
    });
    expect(fakes.namecheap.nameserversOf(row.domain)).toEqual(["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"]);
    expect(zone.activationChecks).toBe(1);
    // The admin closes the tab; Cloudflare activates the zone; the cron finishes.
    expect(await cron(fakes)).toEqual({ purchasesChecked: 0, zonesChecked: 1 });
    const done = await rowOf(row.id);
    expect(done).toMatchObject({ status: "active", zoneStatus: "active", errorMessage: null });
    expect(done?.configuredAt).toBeGreaterThan(0);
    const attached = [...fakes.cloudflare.state.workerDomains.values()];
    expect(attached).toEqual([expect.objectContaining({ hostname: `trk.${row.domain}`, service: "trackyard", zone_id: zone.id, id: done?.workerDomainId })]);
    // Running again changes nothing and calls nothing more than a read.
    expect(await cron(fakes)).toEqual({ purchasesChecked: 0, zonesChecked: 0 });
  });

  it("gives a campaign using the domain https://trk.<domain> links", async () => {
    const fakes = createDomainFakes();
    const domain = await activeDomain(fakes);
    const lander = await insertLander(db(), { name: "L", url: "https://lander.test/" }).get();
    const campaign = await insertCampaign(db(), { name: "C", landerId: lander.id, offerId: null, domainId: domain.id, bhToggle: true }).get();
    const admin = await makeAdmin();
    const list = await bodyOf(await clientWith(domainEnv(), admin).campaigns.$get(), 200);
    const mine = list.find((c) => c.id === campaign.id)!;
    expect(mine.trackingDomain).toBe(`trk.${domain.domain}`);
    expect(mine.trackingUrl).toMatch(new RegExp(`^https://trk\\.${domain.domain.replace(".", "\\.")}/r/${campaign.id}\\?cid=`));
    expect(mine.exitScriptUrl).toBe(`https://trk.${domain.domain}/exit-tracker.js`);
  });

  it("goes straight to Active when the reused zone is already active", async () => {
    const fakes = createDomainFakes();
    const domain = await activeDomain(fakes);
    expect(fakes.cloudflare.state.zones.size).toBe(1);
    expect(domain.configuredAt).toBeGreaterThan(0);
  });

  it("checks a pending zone at most once an hour (Cloudflare's Free-plan limit), however often the cron runs", async () => {
    let clock = Date.now();
    const now = () => clock;
    const fakes = createDomainFakes({ cloudflare: { delegated: () => false, now } });
    const row = await bought(fakes);
    await configureDomain(domainDeps(fakes, { now }), row.id, "go");
    for (let i = 0; i < 3; i++) {
      clock += 15 * 60 * 1000;
      await cron(fakes, now);
    }
    const zone = fakes.cloudflare.zoneByName(row.domain)!;
    expect(zone.activationChecks).toBe(1);
    clock += ACTIVATION_CHECK_INTERVAL_MS;
    await cron(fakes, now);
    expect(zone.activationChecks).toBe(2);
    expect(await rowOf(row.id)).toMatchObject({ status: "configuring_dns", errorMessage: null });
    // Namecheap was told once; later runs see the nameservers are already right.
    expect(fakes.namecheap.commandsCount("namecheap.domains.dns.setCustom")).toBe(1);
  });

  it.each([["trk.go"], [""], ["Tr_k"]])("refuses the subdomain %j with the product's message and changes nothing", async (subdomain) => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const row = await bought(fakes);
    const admin = await makeAdmin();
    const res = await callWith(domainEnv(), `/api/domains/${row.id}/configure`, { cookie: admin.cookie, json: { subdomain } });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe(subdomain === "" ? "Subdomain is required" : "Invalid subdomain format (e.g., trk, go, click)");
    expect(await rowOf(row.id)).toEqual(row);
    expect(fakes.cloudflare.state.requests).toEqual([]);
  });

  it("puts each outside change on record before its call, and the outcome with what was done; a refused request writes nothing", async () => {
    // Cloudflare activates the zone only when the test says so.
    const fakes = createDomainFakes({ cloudflare: { delegated: () => false } });
    routeFetchTo(fakes);
    const row = await bought(fakes);
    const admin = await makeAdmin();
    const entries = await auditSince(row.id);
    await callWith(domainEnv(), `/api/domains/${row.id}/configure`, { cookie: admin.cookie, json: { subdomain: "Tr_k" } });
    expect(await entries()).toEqual([]);
    await bodyOf(await clientWith(domainEnv(), admin).domains[":id"].configure.$post({ ...idParam(row.id), json: { subdomain: "trk" } }), 200);
    const zone = (await rowOf(row.id))!.cloudflareZoneId;
    const ns = "ada.ns.cloudflare.com, bob.ns.cloudflare.com";
    expect((await entries()).map((e) => [e.action, e.actorName, e.summary])).toEqual([
      ["domain.zone_create", admin.username, `Creating the Cloudflare zone of ${row.domain} (or reusing this account's)`],
      ["domain.nameservers_set", admin.username, `Setting the nameservers of ${row.domain} at Namecheap to ${ns}`],
      [
        "domain.configure",
        admin.username,
        `trk.${row.domain} → Configuring DNS: Cloudflare zone ${zone} created; nameservers set at Namecheap to ${ns}. The zone is pending: waiting for Cloudflare to activate it.`,
      ],
    ]);

    // The cron's look at a zone still pending changes nothing and writes nothing; the one that
    // finds it active attaches trk and records it, as the cron.
    await cron(fakes);
    expect(await entries()).toHaveLength(3);
    fakes.cloudflare.activate(row.domain);
    await cron(fakes);
    expect((await entries()).slice(3).map((e) => [e.action, e.actorName, e.actorId, e.summary])).toEqual([
      ["domain.worker_attach", "cron", null, `Attaching trk.${row.domain} to this Worker as a Custom Domain`],
      ["domain.configure", "cron", null, `trk.${row.domain} → Active: trk.${row.domain} attached to this Worker. Live on this Worker.`],
    ]);
  });

  it("a Namecheap refusal after the zone was created: DNS Failed, and the zone it created is on record", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    const entries = await auditSince(row.id);
    fakes.namecheap.failNext({ command: "namecheap.domains.dns.setCustom", kind: "error", number: "2019166", text: "Domain not found" });
    expect(await refusal(configureDomain(domainDeps(fakes), row.id, "trk"))).toMatchObject({ status: 502 });
    const zone = (await rowOf(row.id))!.cloudflareZoneId;
    expect((await entries()).map((e) => `${e.action} | ${e.summary}`)).toEqual([
      `domain.zone_create | Creating the Cloudflare zone of ${row.domain} (or reusing this account's)`,
      `domain.nameservers_set | Setting the nameservers of ${row.domain} at Namecheap to ada.ns.cloudflare.com, bob.ns.cloudflare.com`,
      expect.stringMatching(
        new RegExp(`^domain\\.configure \\| trk\\.${row.domain.replace(".", "\\.")} → DNS Failed: Cloudflare zone ${zone} created\\. Namecheap error 2019166`),
      ),
    ]);
  });

  it("answers 404 for an unknown id and 409 in the wrong status, changing nothing", async () => {
    const fakes = createDomainFakes();
    expect(await refusal(configureDomain(domainDeps(fakes), 987654, "trk"))).toMatchObject({ status: 404, message: "Domain not found" });
    const failed = await insertDomain({ domain: freshName("failed"), status: "failed", errorMessage: "x" });
    expect(await refusal(configureDomain(domainDeps(fakes), failed.id, "trk"))).toMatchObject({
      status: 409,
      message: `${failed.domain} is Failed: configuring DNS is only possible when it is Purchased or Configuring DNS or DNS Failed.`,
    });
    expect(await rowOf(failed.id)).toEqual(failed);
    const active = await activeDomain(fakes);
    expect(await refusal(configureDomain(domainDeps(fakes), active.id, "go"))).toMatchObject({ status: 409 });
    expect(fakes.cloudflare.state.zones.size).toBe(1);
  });

  it("refuses a second configure while one runs", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    const results = await Promise.allSettled([configureDomain(domainDeps(fakes), row.id, "trk"), configureDomain(domainDeps(fakes), row.id, "trk")]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({ status: 409, message: `Another step is already running for ${row.domain}: wait for it to finish.` });
    expect(fakes.cloudflare.count("POST", "/zones")).toBe(1);
  });

  it("a Cloudflare timeout mid-configure: a clear answer, nothing half done, and the next try reuses what exists", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    // The zone exists and is active; then every read of custom domains times out.
    fakes.cloudflare.addZone(row.domain, { status: "active" });
    fakes.cloudflare.failNext(
      { match: "GET /workers/domains", kind: "timeout" },
      { match: "GET /workers/domains", kind: "timeout" },
      { match: "GET /workers/domains", kind: "timeout" },
    );
    const err = await refusal(configureDomain(domainDeps(fakes), row.id, "trk"));
    expect(err.status).toBe(502);
    expect(err.message).toBe(
      "Could not reach Cloudflare to list the Worker's custom domains: it did not answer in time. Nothing is half done: Trackyard tries again every 15 minutes, or use Retry Configuration.",
    );
    expect(await rowOf(row.id)).toMatchObject({ status: "configuring_dns", errorMessage: err.message, leaseUntil: null });
    expect(fakes.cloudflare.state.workerDomains.size).toBe(0);
    await cron(fakes);
    expect(await rowOf(row.id)).toMatchObject({ status: "active", errorMessage: null });
    expect(fakes.cloudflare.state.zones.size).toBe(1);
  });

  it("a Namecheap timeout while setting nameservers keeps the row for another try", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    fakes.namecheap.failNext({ command: "namecheap.domains.dns.setCustom", kind: "timeout" });
    const err = await refusal(configureDomain(domainDeps(fakes), row.id, "trk"));
    expect(err.message).toContain("did not answer in time");
    expect(await rowOf(row.id)).toMatchObject({ status: "configuring_dns", nameservers: null });
    await configureDomain(domainDeps(fakes), row.id, "trk");
    expect(fakes.cloudflare.state.zones.size).toBe(1);
    expect(fakes.namecheap.nameserversOf(row.domain)).toEqual(["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"]);
  });

  it("waits out Cloudflare's 429 and carries on", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    fakes.cloudflare.failNext({ match: "POST /zones", kind: "status", status: 429, retryAfter: "2" });
    const deps = domainDeps(fakes);
    expect((await configureDomain(deps, row.id, "trk")).domain?.status).toBe("configuring_dns");
    expect(deps.waits).toEqual([2000]);
  });

  it.each([
    ["Zone Edit", "create the zone"],
    ["Workers Scripts Edit", "list the Worker's custom domains"],
  ] as const)("a token lacking %s: DNS Failed naming it; Retry Configuration after the fix finishes", async (permission, purpose) => {
    const fakes = createDomainFakes({
      cloudflare: { permissions: ["Zone Read", "Zone Edit", "DNS Edit", "Workers Scripts Edit"].filter((p) => p !== permission) as never },
    });
    const row = await bought(fakes);
    if (permission !== "Zone Edit") fakes.cloudflare.addZone(row.domain, { status: "active" });
    const err = await refusal(configureDomain(domainDeps(fakes), row.id, "trk"));
    expect(err.message).toContain(`lacks the ${permission} permission, needed to ${purpose}`);
    expect(await rowOf(row.id)).toMatchObject({ status: "dns_failed", errorMessage: err.message });
    fakes.cloudflare.state.permissions.add(permission);
    expect(fakes.cloudflare.state.workerDomains.size).toBe(0);
    fakes.cloudflare.activate(row.domain);
    const retried = await configureDomain(domainDeps(fakes), row.id, "trk");
    if (permission === "Zone Edit") {
      expect(retried.domain?.status).toBe("configuring_dns");
      await cron(fakes);
    }
    expect(await rowOf(row.id)).toMatchObject({ status: "active", errorMessage: null });
  });

  it("a DNS record in the way of trk: DNS Failed saying which, and the record is left alone", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    fakes.cloudflare.addZone(row.domain, { status: "active" });
    fakes.cloudflare.addRecord(row.domain, { type: "CNAME", name: `trk.${row.domain}`, content: "parkingpage.namecheap.com" });
    const err = await refusal(configureDomain(domainDeps(fakes), row.id, "trk"));
    expect(err.message).toBe(
      `trk.${row.domain} already has a DNS record in Cloudflare (CNAME → parkingpage.namecheap.com), so it cannot be attached to this Worker. Delete that record in Cloudflare → DNS, or Retry Configuration with another subdomain.`,
    );
    expect(await rowOf(row.id)).toMatchObject({ status: "dns_failed" });
    expect(fakes.cloudflare.state.records.size).toBe(1);
    // Another subdomain works.
    expect((await configureDomain(domainDeps(fakes), row.id, "go")).domain).toMatchObject({ status: "active", subdomain: "go" });
  });

  it("a hostname attached to another Worker is a conflict, not taken over", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    fakes.cloudflare.addZone(row.domain, { status: "active" });
    fakes.cloudflare.addWorkerDomain(`trk.${row.domain}`, "landing-pages", row.domain);
    const err = await refusal(configureDomain(domainDeps(fakes), row.id, "trk"));
    expect(err.message).toContain("is a custom domain of another Worker (landing-pages)");
    expect([...fakes.cloudflare.state.workerDomains.values()].map((d) => d.service)).toEqual(["landing-pages"]);
  });

  it("a custom domain already attached to this Worker is success", async () => {
    const fakes = createDomainFakes();
    const row = await bought(fakes);
    fakes.cloudflare.addZone(row.domain, { status: "active" });
    const existing = fakes.cloudflare.addWorkerDomain(`trk.${row.domain}`, "trackyard", row.domain);
    expect((await configureDomain(domainDeps(fakes), row.id, "trk")).domain).toMatchObject({ status: "active", workerDomainId: existing.id });
    expect(fakes.cloudflare.count("PUT", "/workers/domains")).toBe(0);
  });

  it("a lease left by a crash runs out, and the row can be configured again", async () => {
    const fakes = createDomainFakes();
    const row = await insertDomain({ domain: freshName(), status: "configuring_dns", subdomain: "trk", leaseUntil: Date.now() + LEASE_MS });
    fakes.namecheap.state.domains.set(row.domain, { id: 5, nameservers: [], created: Date.now() });
    expect(await refusal(configureDomain(domainDeps(fakes), row.id, "trk"))).toMatchObject({ status: 409 });
    const later = () => Date.now() + LEASE_MS + 1000;
    expect((await configureDomain(domainDeps(fakes, { now: later }), row.id, "trk")).domain?.status).toBe("configuring_dns");
  });
});

describe("Migrate to Workers, Update NS, Delete, Redeploy Worker", () => {
  it("Migrate to Workers replaces a record pointing elsewhere with the custom domain", async () => {
    const fakes = createDomainFakes();
    const row = await insertDomain({ domain: freshName("old"), status: "active", subdomain: "trk" });
    const zone = fakes.cloudflare.addZone(row.domain, { status: "active" });
    await db().update(domains).set({ cloudflareZoneId: zone.id }).where(eq(domains.id, row.id));
    fakes.cloudflare.addRecord(row.domain, { type: "A", name: `trk.${row.domain}`, content: "192.0.2.10" });
    const answer = await migrateToWorkers(domainDeps(fakes), row.id);
    expect(answer.message).toBe(`trk.${row.domain} now runs on this Worker as a Custom Domain (replacing A → 192.0.2.10).`);
    expect(fakes.cloudflare.state.records.size).toBe(0);
    expect([...fakes.cloudflare.state.workerDomains.values()]).toEqual([expect.objectContaining({ hostname: `trk.${row.domain}`, service: "trackyard" })]);
    expect(answer.domain?.workerDomainId).toBeTruthy();
    // Not for a domain that is not active with a subdomain.
    const purchased = await bought(fakes);
    expect(await refusal(migrateToWorkers(domainDeps(fakes), purchased.id))).toMatchObject({ status: 409 });
    expect(await refusal(migrateToWorkers(domainDeps(fakes), 987654))).toMatchObject({ status: 404 });
  });

  it("Update NS pushes the zone's nameservers to Namecheap again", async () => {
    const fakes = createDomainFakes();
    const domain = await activeDomain(fakes);
    fakes.namecheap.state.domains.get(domain.domain)!.nameservers = ["dns1.registrar-servers.com", "dns2.registrar-servers.com"];
    const answer = await updateNameservers(domainDeps(fakes), domain.id);
    expect(answer.message).toBe("Nameservers updated at Namecheap: ada.ns.cloudflare.com, bob.ns.cloudflare.com.");
    expect(fakes.namecheap.nameserversOf(domain.domain)).toEqual(["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"]);
    const noZone = await bought(fakes);
    expect(await refusal(updateNameservers(domainDeps(fakes), noZone.id))).toMatchObject({
      status: 409,
      message: `${noZone.domain} has no Cloudflare zone yet: use Configure DNS first.`,
    });
  });

  it("Delete detaches the custom domain and forgets the row; campaigns fall back to the default; registration and zone stay", async () => {
    const fakes = createDomainFakes();
    await writeSetting(db(), "redirect_domain", "https://go.example.com");
    const domain = await activeDomain(fakes, "bye");
    const lander = await insertLander(db(), { name: "L", url: "https://lander.test/" }).get();
    const campaign = await insertCampaign(db(), { name: "C", landerId: lander.id, offerId: null, domainId: domain.id, bhToggle: true }).get();
    const admin = await makeAdmin();
    routeFetchTo(fakes);
    const res = await callWith(domainEnv(), `/api/domains/${domain.id}`, { method: "DELETE", cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      message: `${domain.domain} is removed from Trackyard and trk.${domain.domain} is detached from this Worker. The registration at Namecheap and the Cloudflare zone remain yours; campaigns that used it now use the default domain.`,
    });
    expect(await rowOf(domain.id)).toBeNull();
    expect(fakes.cloudflare.state.workerDomains.size).toBe(0);
    expect(fakes.cloudflare.zoneByName(domain.domain)).toBeTruthy();
    expect(fakes.namecheap.state.domains.has(domain.domain)).toBe(true);
    expect((await db().select().from(campaigns).where(eq(campaigns.id, campaign.id)))[0]?.domainId).toBeNull();
    const list = await bodyOf(await clientWith(domainEnv(), admin).campaigns.$get(), 200);
    expect(list.find((c) => c.id === campaign.id)?.trackingUrl).toMatch(/^https:\/\/go\.example\.com\/r\//);
  });

  it("Delete keeps the row when Cloudflare cannot detach, refuses during a purchase, and answers 404 for an unknown id", async () => {
    const fakes = createDomainFakes();
    const domain = await activeDomain(fakes, "stay");
    fakes.cloudflare.failNext({ kind: "timeout" }, { kind: "timeout" }, { kind: "timeout" });
    const err = await refusal(deleteDomain(domainDeps(fakes), domain.id));
    expect(err).toMatchObject({
      status: 502,
      message: "Could not reach Cloudflare to list the Worker's custom domains: it did not answer in time. Nothing was deleted.",
    });
    expect(await rowOf(domain.id)).toMatchObject({ status: "active", leaseUntil: null });
    const buying = await insertDomain({ domain: freshName(), status: "purchasing" });
    expect(await refusal(deleteDomain(domainDeps(fakes), buying.id))).toMatchObject({
      status: 409,
      message: `A purchase of ${buying.domain} is still being confirmed: delete it once it is Purchased or Failed.`,
    });
    expect(await refusal(deleteDomain(domainDeps(fakes), 987654))).toMatchObject({ status: 404 });
  });

  it("Redeploy Worker attaches what is missing, reports what was there and what is unknown, and deletes nothing", async () => {
    const fakes = createDomainFakes();
    const kept = await activeDomain(fakes, "kept");
    const lost = await activeDomain(fakes, "lost");
    // A deploy detached one; someone attached another hostname by hand.
    fakes.cloudflare.state.workerDomains.delete(lost.workerDomainId!);
    fakes.cloudflare.addWorkerDomain("promo.other.example", "trackyard", "other.example");
    const answer = await redeployWorker(domainDeps(fakes));
    expect(answer).toMatchObject({ attached: [`trk.${lost.domain}`], failed: [] });
    expect(answer.alreadyAttached).toContain(`trk.${kept.domain}`);
    expect(answer.unknown).toContain("promo.other.example");
    expect(answer.message).toContain(`Attached 1: trk.${lost.domain}.`);
    expect([...fakes.cloudflare.state.workerDomains.values()].map((d) => d.hostname)).toEqual(
      expect.arrayContaining([`trk.${kept.domain}`, `trk.${lost.domain}`, "promo.other.example"]),
    );
    expect(fakes.cloudflare.count("DELETE", "")).toBe(0);
  });

  it("POST /api/redeploy-worker is admin-only and answers with the report", async () => {
    const fakes = createDomainFakes();
    routeFetchTo(fakes);
    const member = await makeUser();
    expect((await callWith(domainEnv(), "/api/redeploy-worker", { cookie: member.cookie, json: {} })).status).toBe(403);
    const admin = await makeAdmin();
    const res = await callWith(domainEnv(), "/api/redeploy-worker", { cookie: admin.cookie, json: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ failed: [], message: expect.any(String) });
  });
});

describe("Test Proxy", () => {
  it("makes a real read-only call directly and reports the egress IP, advising the relay", async () => {
    const fakes = createDomainFakes();
    const answer = await testProxy(domainDeps(fakes));
    expect(answer).toMatchObject({ success: true, mode: "direct", egressIp: "203.0.113.7" });
    expect(answer.message).toBe(
      "Namecheap answered directly (available balance 250.00 USD). Calls leave from 203.0.113.7. Direct calls leave from Cloudflare's changing addresses: use the HTTPS relay in production.",
    );
    expect(fakes.namecheap.state.requests.map((r) => r.command)).toEqual(["namecheap.users.getBalances"]);
  });

  it("through the relay: the relay's IP, and a warning when NAMECHEAP_CLIENT_IP differs", async () => {
    const fakes = createDomainFakes();
    const answer = await testProxy(domainDeps(fakes, { env: domainEnv({ NAMECHEAP_PROXY: RELAY_URL, NAMECHEAP_RELAY_KEY: RELAY_KEY }) }));
    expect(answer).toMatchObject({ mode: "relay", egressIp: "198.51.100.20", route: "HTTPS relay at relay.trackyard.test" });
    expect(answer.message).toContain("whitelist this IP: 198.51.100.20");
  });

  it("Namecheap's IP-not-whitelisted answer becomes 'whitelist this IP: x.x.x.x' (502 through the route)", async () => {
    const fakes = createDomainFakes({ namecheap: { callerIp: "198.51.100.99" } });
    routeFetchTo(fakes);
    const admin = await makeAdmin();
    const res = await callWith(domainEnv(), "/api/domains/test-proxy", { cookie: admin.cookie, json: {} });
    expect(res.status).toBe(502);
    expect((await res.json<ApiErrorBody>()).error).toBe(
      "Namecheap refused the caller's IP address: whitelist this IP: 198.51.100.99 (Namecheap → Profile → Tools → API Access), and set NAMECHEAP_CLIENT_IP to it.",
    );
  });
});
