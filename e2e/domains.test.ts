import type { Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serveFetch } from "../scripts/lib/serve-fetch.mjs";
import { createCloudflareFake } from "../worker/test/fakes/cloudflare-fake";
import { createNamecheapFake, createRelayFake } from "../worker/test/fakes/namecheap-fake";
import { createFirstAdmin, useHarness } from "./support/harness";

/** Screens settle after a request or two: seconds on a loaded machine, as long as Playwright's own waits allow (harness.ts). */
const WAIT = { timeout: 60_000 };

// Namecheap reached through the HTTPS relay (the production route), Cloudflare activating a zone
// once Namecheap points the domain at its nameservers and the activation re-check has run.
const RELAY_KEY = "e2e-relay-key";
const STATIC_IP = "203.0.113.7";
const namecheap = createNamecheapFake({ premium: { "gold.xyz": { registration: "450.00", renewal: "450.00" } } });
const cloudflare = createCloudflareFake({
  delegated: (name, ns) => [...namecheap.nameserversOf(name)].sort().join() === [...ns].sort().join(),
});
const relay = createRelayFake({ key: RELAY_KEY, egressIp: STATIC_IP, upstream: namecheap.handle });

const vars: Record<string, string> = {};
const servers: Server[] = [];
beforeAll(async () => {
  const [nc, cf, rl] = await Promise.all([serveFetch(namecheap.handle), serveFetch(cloudflare.handle), serveFetch(relay.handle)]);
  servers.push(nc.server, cf.server, rl.server);
  Object.assign(vars, {
    NAMECHEAP_API_URL: `${nc.url}/xml.response`,
    NAMECHEAP_PROXY: rl.url,
    NAMECHEAP_RELAY_KEY: RELAY_KEY,
    NAMECHEAP_API_USER: namecheap.state.apiUser,
    NAMECHEAP_API_KEY: namecheap.state.apiKey,
    NAMECHEAP_CLIENT_IP: STATIC_IP,
    CLOUDFLARE_API_URL: `${cf.url}/client/v4`,
    CLOUDFLARE_API_TOKEN: cloudflare.state.token,
    CLOUDFLARE_ACCOUNT_ID: cloudflare.state.accountId,
  });
});
const h = useHarness("domains", vars);
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** The calls each fake received during `step`, for the report of what every step costs. */
const costs: { step: string; namecheap: string[]; cloudflare: string[]; ms: number }[] = [];
async function measured<T>(step: string, run: () => Promise<T>): Promise<T> {
  const nc = namecheap.state.requests.length;
  const cf = cloudflare.state.requests.length;
  const started = performance.now();
  const result = await run();
  costs.push({
    step,
    namecheap: namecheap.state.requests.slice(nc).map((r) => r.command.replace("namecheap.", "")),
    cloudflare: cloudflare.state.requests.slice(cf).map((r) => `${r.method} ${r.path.replace(/\/accounts\/[^/]+/, "").replace(/[0-9a-f]{32}/g, ":id")}`),
    ms: Math.round(performance.now() - started),
  });
  return result;
}

const toast = (page: Page, title: string) =>
  page
    .getByRole("region", { name: /Notification/ })
    .getByText(title, { exact: true })
    .first();
const row = (page: Page, domain: string) => page.getByRole("table", { name: "Purchased Domains" }).getByRole("row").filter({ hasText: domain });

test("an admin checks, buys and configures a .xyz domain; the cron finishes it; a campaign's tracking URL uses it", { timeout: 600_000 }, async () => {
  const ctx = await h.newContext();
  // A long walk on a shared machine: give slow moments room rather than fail on them.
  ctx.setDefaultNavigationTimeout(60_000);
  let page = await ctx.newPage();
  await createFirstAdmin(page);
  await page.goto("/settings");
  await page.getByLabel("Redirect Domain").fill(h.url);
  await page.getByRole("button", { name: "Save Domains" }).click();
  await toast(page, "Settings updated").waitFor();

  // The sidebar lists Domains right after Invoicing, for admins.
  const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  expect(
    nav
      .map((t) => t.trim())
      .slice(
        nav.findIndex((t) => t.trim() === "Invoicing"),
        nav.findIndex((t) => t.trim() === "Invoicing") + 2,
      ),
  ).toEqual(["Invoicing", "Domains"]);

  await page.getByRole("link", { name: "Domains" }).click();
  await page.getByRole("heading", { name: "Domain Automation" }).waitFor();
  await page.getByText("No domains purchased yet").waitFor();
  expect(await page.getByText("Domain automation is not fully set up").count()).toBe(0);
  await h.shot(page, "01-empty");

  // The product's validation texts, before anything is sent.
  const input = page.getByLabel("Domain name");
  const check = page.getByRole("button", { name: "Check Availability" });
  await check.click();
  await page.getByText("Domain name is required").waitFor();
  await input.fill("not a domain");
  await check.click();
  await page.getByText("Invalid domain format (e.g., example.com, example.co.uk)").waitFor();
  await input.fill("brightdeals.com");
  await check.click();
  await page.getByText("Only .xyz domains are supported", { exact: true }).waitFor();
  expect(namecheap.state.requests.filter((r) => r.command === "namecheap.domains.check")).toHaveLength(0);

  // Test Proxy: a real read-only call through the relay, and the IP to whitelist.
  await measured("Test Proxy", async () => {
    await page.getByRole("button", { name: "Test Proxy" }).click();
    await toast(page, "Proxy test successful").waitFor();
  });
  await page.getByRole("status").filter({ hasText: "egress IP 203.0.113.7" }).waitFor();

  // A premium name above the Maximum Domain Price is refused, with its price.
  await input.fill("gold.xyz");
  await check.click();
  await toast(page, "Domain not available").waitFor();
  const goldResult = page.getByRole("region", { name: "Result for gold.xyz" });
  await goldResult.getByText("Premium Price:").waitFor();
  expect(await goldResult.innerText()).toContain("$450.20");
  expect(await goldResult.getByRole("button", { name: "Purchase Domain" }).count()).toBe(0);
  await h.shot(page, "02-premium-refused");

  // Check, buy.
  const flowStarted = performance.now();
  await input.fill("BrightDeals.xyz");
  await measured("Check Availability", async () => {
    await check.click();
    await toast(page, "Domain available").waitFor();
  });
  const result = page.getByRole("region", { name: "Result for brightdeals.xyz" });
  expect(await result.innerText()).toMatch(/Price:\s*\$1\.36 first year · renews at \$13\.68\/year/);
  await h.shot(page, "03-available");
  await measured("Purchase Domain", async () => {
    await result.getByRole("button", { name: "Purchase Domain" }).click();
    await toast(page, "Domain purchased").waitFor();
  });
  const bought = row(page, "brightdeals.xyz");
  await bought.getByText("Purchased", { exact: true }).waitFor(WAIT);
  expect(await bought.innerText()).toContain("80000001");
  expect(namecheap.state.orders).toEqual([{ domain: "brightdeals.xyz", orderId: 80000001, charged: "1.36" }]);

  // Configure DNS: subdomain trk by default, previewed.
  await bought.getByRole("button", { name: "Configure DNS" }).click();
  const dialog = page.getByRole("dialog", { name: "Configure DNS" });
  expect(await dialog.getByLabel("Subdomain").inputValue()).toBe("trk");
  await dialog.getByText("trk.brightdeals.xyz").waitFor();
  await dialog.getByLabel("Subdomain").fill("Trk.Go");
  await dialog.getByRole("button", { name: "Configure DNS" }).click();
  await dialog.getByText("Invalid subdomain format (e.g., trk, go, click)").waitFor();
  await dialog.getByLabel("Subdomain").fill("trk");
  await h.shot(page, "04-configure-dialog");
  await measured("Configure DNS", async () => {
    await dialog.getByRole("button", { name: "Configure DNS" }).click();
    await toast(page, "Domain configured").waitFor();
  });
  await bought.getByText("Configuring DNS").waitFor(WAIT);
  await bought.getByText("Waiting for Cloudflare to activate the zone").waitFor(WAIT);
  expect(namecheap.nameserversOf("brightdeals.xyz")).toEqual(cloudflare.state.nameServers);
  await h.shot(page, "05-waiting-for-zone");

  // The admin closes the tab. Cloudflare sees the nameservers; the cron attaches trk.
  await page.close();
  await measured("cron (zone active → attach)", async () => {
    const res = await fetch(`${h.server.url}/__scheduled`);
    expect(res.status).toBe(200);
    // The run itself goes on after the answer (waitUntil): its calls are counted once it is done.
    await expect.poll(() => cloudflare.state.workerDomains.size, WAIT).toBe(1);
  });
  page = await ctx.newPage();
  await page.goto("/domains");
  const active = row(page, "brightdeals.xyz");
  await active.getByText("Active", { exact: true }).waitFor(WAIT);
  const flowMs = performance.now() - flowStarted;
  expect(await active.innerText()).toContain("trk.brightdeals.xyz");
  expect([...cloudflare.state.workerDomains.values()]).toEqual([expect.objectContaining({ hostname: "trk.brightdeals.xyz", service: "trackyard" })]);
  await active.getByRole("button", { name: "Migrate to Workers" }).waitFor();
  await active.getByRole("button", { name: "Update NS" }).waitFor();
  await h.shot(page, "06-active");

  const phone = await h.browser.newContext({ baseURL: h.url, viewport: { width: 390, height: 844 }, storageState: await ctx.storageState() });
  phone.setDefaultNavigationTimeout(60_000);
  const phonePage = await phone.newPage();
  await phonePage.goto("/domains");
  await row(phonePage, "brightdeals.xyz").getByText("Active", { exact: true }).waitFor(WAIT);
  // On a phone each domain is a card: its buttons are on screen without scrolling sideways.
  for (const name of ["Migrate to Workers", "Update NS", "Delete brightdeals.xyz"]) {
    const box = (await row(phonePage, "brightdeals.xyz").getByRole("button", { name }).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await h.shot(phonePage, "07-active-phone");
  await phonePage.getByLabel("Domain name").fill("brightdeals2.xyz");
  await phonePage.getByRole("button", { name: "Check Availability" }).click();
  await phonePage.getByRole("region", { name: "Result for brightdeals2.xyz" }).waitFor();
  await h.shot(phonePage, "08-available-phone");

  // Update NS and Migrate to Workers on the active domain.
  await measured("Update NS", async () => {
    await active.getByRole("button", { name: "Update NS" }).click();
    await toast(page, "Nameservers updated").waitFor();
  });
  await measured("Migrate to Workers", async () => {
    await active.getByRole("button", { name: "Migrate to Workers" }).click();
    await toast(page, "Migrated to Workers").waitFor();
  });

  // A campaign on the new domain: its tracking URL and exit script use https://trk.brightdeals.xyz.
  await page.evaluate(async () => {
    const r = await fetch("/api/landers", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Quiz lander", url: "https://lander.example.com/quiz" }),
    });
    if (!r.ok) throw new Error(await r.text());
    const o = await fetch("/api/offers", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Sweeps", url: "https://offer.example.com/s", utmTemplate: "sub1={clickId}" }),
    });
    if (!o.ok) throw new Error(await o.text());
  });
  await page.goto("/campaigns");
  await page.getByRole("button", { name: "Create Campaign" }).first().click();
  const campaignDialog = page.getByRole("dialog", { name: "Create Campaign" });
  await campaignDialog.getByLabel("Campaign Name").fill("Bright launch");
  await campaignDialog.getByRole("combobox", { name: "Lander" }).click();
  await page.getByRole("option", { name: "Quiz lander" }).click();
  await campaignDialog.getByRole("combobox", { name: "Offer (optional)" }).click();
  await page.getByRole("option", { name: "Sweeps" }).click();
  await campaignDialog.getByRole("combobox", { name: "Tracking Domain (optional)" }).click();
  await page.getByRole("option", { name: "trk.brightdeals.xyz" }).click();
  await campaignDialog.getByRole("button", { name: "Create Campaign" }).click();
  await page.getByRole("cell", { name: "Bright launch", exact: true }).waitFor();
  await page.getByRole("button", { name: "View Code" }).click();
  const code = page.getByRole("dialog", { name: /Tracking Setup for Bright launch/ });
  await code.waitFor();
  const codeText = await code.innerText();
  expect(codeText).toMatch(/https:\/\/trk\.brightdeals\.xyz\/r\/\d+\?cid=__CAMPAIGN_ID__/);
  expect(codeText).toContain('<script src="https://trk.brightdeals.xyz/exit-tracker.js" async></script>');
  await h.shot(page, "09-campaign-code");
  await page.keyboard.press("Escape");

  // Settings: Redeploy Worker finds the domain attached, deletes nothing; the DNS instructions.
  await page.goto("/settings");
  await measured("Redeploy Worker", async () => {
    await page.getByRole("button", { name: "Redeploy Worker" }).click();
    await toast(page, "Worker redeployed").waitFor();
  });
  await page.getByLabel("Redeploy report").getByText("trk.brightdeals.xyz").waitFor();
  await page.getByRole("heading", { name: "DNS Instructions" }).waitFor();
  await h.shot(page, "10-settings");
  const phoneSettings = await phone.newPage();
  await phoneSettings.goto("/settings");
  await phoneSettings.getByRole("heading", { name: "DNS Instructions" }).waitFor();
  await h.shot(phoneSettings, "11-settings-phone");

  // Delete asks first, detaches trk, forgets the row; registration and zone stay.
  await page.goto("/domains");
  await row(page, "brightdeals.xyz").getByRole("button", { name: "Delete brightdeals.xyz" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete brightdeals.xyz?" });
  expect(await confirm.innerText()).toContain("The registration at Namecheap and the Cloudflare zone stay yours");
  await h.shot(page, "12-delete-confirm");
  await measured("Delete", async () => {
    await confirm.getByRole("button", { name: "Delete domain" }).click();
    await toast(page, "Domain deleted successfully").waitFor();
  });
  await page.getByText("No domains purchased yet").waitFor(WAIT);
  expect(cloudflare.state.workerDomains.size).toBe(0);
  expect(cloudflare.zoneByName("brightdeals.xyz")).toBeTruthy();
  expect(namecheap.state.domains.has("brightdeals.xyz")).toBe(true);
  await page.goto("/campaigns");
  await page.getByRole("button", { name: "View Code" }).click();
  expect(await page.getByRole("dialog", { name: /Tracking Setup for Bright launch/ }).innerText()).toContain(`${h.url}/r/`);

  console.log(`\nDomain flow against the fakes: check → active in ${(flowMs / 1000).toFixed(1)} s (browser, wrangler dev, relay).`);
  console.table(
    costs.map((c) => ({
      step: c.step,
      ms: c.ms,
      namecheap: `${c.namecheap.length}: ${c.namecheap.join(", ")}`,
      cloudflare: `${c.cloudflare.length}: ${c.cloudflare.join(", ")}`,
    })),
  );
  await phone.close();
  await ctx.close();
});

test("a member has no Domains entry and is sent away from /domains", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await page.goto("/auth");
  await page.getByLabel("Username").fill("founder");
  await page.getByLabel("Password", { exact: true }).fill("founder-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  const created = await page.evaluate(async () => {
    const r = await fetch("/api/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "buyer1", password: "buyer-password", role: "user" }),
    });
    return r.status;
  });
  expect(created).toBe(201);
  await ctx.close();
  const memberCtx = await h.newContext();
  const member = await memberCtx.newPage();
  await member.goto("/auth");
  await member.getByLabel("Username").fill("buyer1");
  await member.getByLabel("Password", { exact: true }).fill("buyer-password");
  await member.getByRole("button", { name: "Sign In" }).click();
  await member.waitForURL((u) => u.pathname !== "/auth");
  expect(await member.getByRole("link", { name: "Domains" }).count()).toBe(0);
  await member.goto("/domains");
  await member.waitForURL((u) => u.pathname !== "/domains");
  const status = await member.evaluate(async () => (await fetch("/api/domains")).status);
  expect(status).toBe(403);
  await memberCtx.close();
});
