/**
 * A new team keeps the defaults and its revenue lands on the right campaign, media buyer and spark
 * (docs/product-rules.md "Offer templates and attribution"), walked through the screens: Landers,
 * Sparks, Offer Config (the prefilled template; a template that cannot be attributed flagged with
 * its fix, and a confirmation before saving one), Campaigns (media buyer and spark), then a visitor
 * following the app's own links to the offer, CAKE's postback with the subs that offer URL
 * carried, and the Stats screen's Campaigns, Media Buyer and Sparks tabs. Screenshots at 1280 x 860
 * and 390 x 844.
 */
import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { callApi } from "./support/api";
import { createFirstAdmin, useHarness } from "./support/harness";

const POSTBACK_TOKEN = "e2e-attribution-postback-0123456789";
const h = useHarness("attribution", { POSTBACK_TOKEN });

const POLL = { timeout: 15_000, interval: 200 };
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const OLD_DEFAULT = "sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}&sub5={placement}";
const PERSON = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** The page at both widths, from the top (dialogs stay open across the resize). */
async function shots(page: Page, name: string) {
  for (const [suffix, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await page.waitForTimeout(300);
    await h.shot(page, `${name}-${suffix}`);
  }
  await page.setViewportSize(DESKTOP);
}

/** The Stats table's row named `name`, as its cells' text. */
async function statsRow(page: Page, name: string) {
  const row = page.getByRole("table", { name: "Stats" }).locator("tbody tr").filter({ hasText: name });
  await row.first().waitFor();
  return row.first().locator("td").allInnerTexts();
}

async function chooseTab(page: Page, name: string) {
  await page.getByRole("tab", { name, exact: true }).click();
  await expect.poll(() => page.getByRole("tab", { name, exact: true }).getAttribute("aria-selected"), POLL).toBe("true");
}

test("a conversion through a default offer's link is credited to its campaign, media buyer and spark", { timeout: 240_000 }, async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  await callApi(page, "POST", "/api/settings", { key: "redirect_domain", value: h.url });

  // Landers → Add Lander.
  await page.goto("/landers");
  await page.getByRole("button", { name: "Add Lander" }).click();
  const landerDialog = page.getByRole("dialog", { name: "Add Lander" });
  await landerDialog.getByLabel("Name").fill("Prize quiz");
  await landerDialog.getByLabel("URL").fill("https://lander.example.com/quiz");
  await landerDialog.getByRole("button", { name: "Add Lander" }).click();
  await page.getByRole("cell", { name: "Prize quiz", exact: true }).waitFor();

  // Sparks → Create Spark.
  await page.goto("/sparks");
  await page.getByLabel("Spark Name").fill("Creator collab");
  await page.getByLabel("Spark Code").fill("<blockquote>creator post</blockquote>");
  await page.getByRole("button", { name: "Create Spark" }).click();
  await page.getByRole("heading", { name: "Creator collab", exact: true }).waitFor();
  const [spark] = await callApi<{ id: number; name: string; sparkId: string }[]>(page, "GET", "/api/sparks");

  // Offer Config: an offer a team kept from before (the old default) is flagged with its fix.
  await callApi(page, "POST", "/api/offers", { name: "Legacy sweeps", url: "https://network.example.com/?a=1&c=9", utmTemplate: OLD_DEFAULT });
  await page.goto("/offer-config");
  const warning = page.getByRole("note", { name: "Cannot be attributed" });
  await warning.waitFor();
  expect(await warning.innerText()).toContain('Revenue from this offer will show as "Direct"');
  await shots(page, "01-offer-config-broken-template");

  // Add Offer: the template comes prefilled with the default; one that cannot be attributed asks first.
  await page.getByRole("button", { name: "Add Offer" }).click();
  const offerDialog = page.getByRole("dialog", { name: "Create New Offer" });
  const template = offerDialog.getByLabel("UTM Template");
  expect(await template.inputValue()).toBe("sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={adGroup}&sub5={creative}");
  await offerDialog.getByLabel("Name").fill("Prize offer");
  await offerDialog.getByLabel("URL").fill("https://network.example.com/?a=12&c=7");
  await template.fill("s1={clickId}&s2={campaign}");
  await offerDialog.getByRole("button", { name: "Create Offer" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Save a template that cannot be attributed?" });
  await confirm.waitFor();
  await shots(page, "02-offer-dialog-confirmation");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await template.fill("sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={adGroup}&sub5={creative}");
  await offerDialog.getByRole("button", { name: "Create Offer" }).click();
  await page.getByRole("cell", { name: "Prize offer", exact: true }).waitFor();

  // The one-click fix on the legacy offer, then no flag is left.
  await page.getByRole("button", { name: "Fix the template of Legacy sweeps" }).click();
  await expect.poll(() => page.getByRole("note", { name: "Cannot be attributed" }).count(), POLL).toBe(0);

  // Campaigns → Create Campaign, with a media buyer typed and the spark chosen.
  await page.goto("/campaigns");
  await page.getByRole("button", { name: "Create Campaign" }).first().click();
  const campaignDialog = page.getByRole("dialog", { name: "Create Campaign" });
  await campaignDialog.getByLabel("Campaign Name").fill("Spring sweeps");
  await campaignDialog.getByRole("combobox", { name: "Lander", exact: true }).click();
  await page.getByRole("option", { name: "Prize quiz", exact: true }).click();
  await campaignDialog.getByRole("combobox", { name: "Offer (optional)", exact: true }).click();
  await page.getByRole("option", { name: "Prize offer", exact: true }).click();
  await campaignDialog.getByRole("combobox", { name: "Media Buyer (optional)", exact: true }).fill("ana");
  // Leaving the field closes Chromium's suggestion list for it, which would otherwise take a later click.
  await page.keyboard.press("Tab");
  await campaignDialog.getByRole("combobox", { name: "Spark (optional)", exact: true }).click();
  await page.getByRole("option", { name: `Creator collab (${spark!.sparkId})` }).click();
  await campaignDialog.getByRole("switch", { name: "Enable redirect to lander" }).click();
  await shots(page, "03-campaign-dialog");
  await campaignDialog.getByRole("button", { name: "Create Campaign" }).click();
  await campaignDialog.waitFor({ state: "hidden" });
  await page.getByRole("cell", { name: "Spring sweeps", exact: true }).first().waitFor();
  const [campaign] = await callApi<{ id: number; name: string; trackingUrl: string; exitUrl: string }[]>(page, "GET", "/api/campaigns");

  // A visitor: the ad's tracking URL as TikTok fills it, the lander, the lander's exit link.
  const adUrl = campaign!.trackingUrl.replace("__CAMPAIGN_ID__", "1799").replace("__AID__", "2001").replace("__CID__", "3002").replace("__PLACEMENT__", "feed");
  const toLander = await page.request.get(adUrl, { maxRedirects: 0, headers: { "user-agent": PERSON } });
  expect(toLander.status()).toBe(302);
  const lander = new URL(toLander.headers().location!);
  const clickId = lander.searchParams.get("clickId")!;
  await expect.poll(async () => (await callApi<{ total: number }>(page, "GET", "/api/clicks")).total, POLL).toBe(1);
  const toOffer = await page.request.get(`${campaign!.exitUrl}?clickId=${clickId}&cid=${lander.searchParams.get("cid")}`, {
    maxRedirects: 0,
    headers: { "user-agent": PERSON },
  });
  expect(toOffer.status()).toBe(302);
  const offerUrl = new URL(toOffer.headers().location!);
  const subs = [1, 2, 3, 4, 5].map((n) => offerUrl.searchParams.get(`sub${n}`));
  expect(subs).toEqual(["ana", clickId, spark!.sparkId, "2001", "3002"]);

  // CAKE's postback, carrying back what the offer URL sent it.
  const postback = new URLSearchParams({
    token: POSTBACK_TOKEN,
    leadid: "e2e-attribution-1",
    oid: "77",
    price: "12.50",
    s1: subs[0]!,
    s2: subs[1]!,
    s3: subs[2]!,
  });
  expect(await (await page.request.get(`/postback/cake?${postback}`)).json()).toEqual({ ok: true, result: "counted" });

  // Stats: the revenue is the campaign's, the media buyer's and the spark's; nothing is Direct.
  await page.goto("/");
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await expect.poll(() => statsRow(page, "Spring sweeps"), POLL).toContain("$12.50");
  expect(await page.getByRole("table", { name: "Stats" }).locator("tbody tr").filter({ hasText: "Direct" }).count()).toBe(0);
  await chooseTab(page, "Media Buyer");
  await expect.poll(() => statsRow(page, "ana"), POLL).toContain("$12.50");
  await chooseTab(page, "Sparks");
  await expect.poll(() => statsRow(page, "Creator collab"), POLL).toContain("$12.50");
  await shots(page, "04-stats-sparks");
  await ctx.close();
});
