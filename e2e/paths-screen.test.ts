import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { callApi } from "./support/api";
import { createFirstAdmin, useHarness } from "./support/harness";

/**
 * The Traffic distribution screen end to end: a campaign made by the Create Campaign dialog is one
 * default path; a rule path for a country with two landers at 50/50 saves, survives a reload, and
 * the "Which path?" preview sends a visitor from that country down it and anyone else to the default;
 * the visitors the tracking link then sends down the default path show on Stats' Paths and
 * Lander × Offer tabs.
 */
const h = useHarness("paths-screen");

const POLL = { timeout: 20_000, interval: 100 };

const pathCard = (page: Page, name: RegExp) => page.getByRole("group", { name });
/** Both sizes of the screen from its top (a full-page shot of a scrolled page draws the sidebar mid-page). */
async function shots(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await h.shotBothSizes(page, name);
}
const share = (page: Page, path: RegExp, lander: string) =>
  pathCard(page, path)
    .getByRole("status", { name: `Share of ${lander}` })
    .innerText();

test("a rule path by country with two landers at 50/50 is saved, reloaded and previewed", { timeout: 240_000 }, async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  await callApi(page, "POST", "/api/settings", { key: "redirect_domain", value: h.url });
  await callApi(page, "POST", "/api/landers", { name: "Quiz A", url: "https://lander.example.com/a" });
  await callApi(page, "POST", "/api/landers", { name: "Quiz B", url: "https://lander.example.com/b" });
  await callApi(page, "POST", "/api/offers", { name: "Sweeps offer", url: "https://network.example.com/?o=1" });

  // Campaigns → Create Campaign: one lander, one offer.
  await page.goto("/campaigns");
  await page.getByRole("button", { name: "Create Campaign" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Campaign" });
  await dialog.getByLabel("Campaign Name").fill("Spring sweeps");
  await dialog.getByRole("combobox", { name: "Lander", exact: true }).click();
  await page.getByRole("option", { name: "Quiz A", exact: true }).click();
  await dialog.getByRole("combobox", { name: "Offer (optional)", exact: true }).click();
  await page.getByRole("option", { name: "Sweeps offer", exact: true }).click();
  await dialog.getByRole("button", { name: "Create Campaign" }).click();
  await page.getByRole("cell", { name: "Spring sweeps", exact: true }).first().waitFor();

  // Its row's action opens the screen: one default path with the dialog's lander and offer.
  await page.getByRole("link", { name: "Traffic distribution of Spring sweeps" }).click();
  await page.getByRole("heading", { name: "Traffic distribution" }).waitFor();
  const fallback = pathCard(page, /^Path 1: /);
  await fallback.waitFor();
  await expect.poll(() => fallback.getByRole("combobox", { name: /^Lander 1 of/ }).innerText(), POLL).toBe("Quiz A");
  await expect.poll(() => fallback.getByRole("combobox", { name: /^Offer 1 of/ }).innerText(), POLL).toBe("Sweeps offer");
  expect(await fallback.getByText("Default", { exact: true }).count()).toBe(1);
  await shots(page, "01-default-path");

  // A rule path: Germany, Quiz A and Quiz B at 50/50.
  await page.getByRole("button", { name: "Add rule path" }).click();
  const rule = pathCard(page, /^Path 1: /);
  await rule.getByRole("textbox", { name: "Name of path 1" }).fill("Germany");
  const germany = pathCard(page, /^Path 1: Germany/);
  await germany.getByRole("combobox", { name: "Add a country to condition 1 of Germany" }).fill("Germany");
  await page.getByRole("option", { name: "Germany (DE)" }).click();
  await germany.getByRole("combobox", { name: "Lander 1 of Germany" }).click();
  await page.getByRole("option", { name: "Quiz A", exact: true }).click();
  await germany.getByRole("button", { name: "Add lander" }).click();
  await expect.poll(() => share(page, /^Path 1: Germany/, "Quiz A"), POLL).toBe("50%");
  await expect.poll(() => share(page, /^Path 1: Germany/, "Quiz B"), POLL).toBe("50%");
  await germany.getByRole("button", { name: "Add offer" }).click();
  await page.getByText("Unsaved changes").waitFor();
  await shots(page, "02-rule-path-unsaved");

  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Traffic distribution saved", { exact: true }).waitFor();

  // A reload shows what the server kept.
  await page.reload();
  const saved = pathCard(page, /^Path 1: Germany/);
  await saved.waitFor();
  expect(await saved.getByRole("list", { name: "Countries of condition 1 of Germany" }).getByRole("listitem").allInnerTexts()).toEqual(["Germany (DE)"]);
  await expect.poll(() => share(page, /^Path 1: Germany/, "Quiz A"), POLL).toBe("50%");
  await expect.poll(() => share(page, /^Path 1: Germany/, "Quiz B"), POLL).toBe("50%");
  expect(
    await pathCard(page, /^Path 2: /)
      .getByText("Default", { exact: true })
      .count(),
  ).toBe(1);

  // Which path? A German visitor takes the rule; one from nowhere in particular the default.
  const preview = page.getByRole("form", { name: "Which path preview" });
  await preview.getByRole("combobox", { name: "Country" }).fill("Germany");
  await page.getByRole("option", { name: "Germany (DE)" }).click();
  await preview.getByRole("button", { name: "Show path" }).click();
  const result = page.getByRole("region", { name: "Preview result" });
  await expect.poll(() => result.innerText(), POLL).toContain("This visitor takes Germany");
  expect(await result.innerText()).toMatch(/Quiz A\s+50%/);
  await shots(page, "03-preview-germany");
  await preview.getByRole("combobox", { name: "Country" }).fill("France");
  await page.getByRole("option", { name: "France (FR)" }).click();
  await preview.getByRole("button", { name: "Show path" }).click();
  await expect.poll(() => result.innerText(), POLL).toContain("(the default path)");

  // The weight history: the save is in it, by who made it.
  await saved.getByRole("button", { name: "Weight history" }).click();
  const history = page.getByRole("dialog", { name: "Weight history: Germany" });
  await expect.poll(() => history.innerText(), POLL).toContain("founder");
  await shots(page, "04-weight-history");
  await page.keyboard.press("Escape");
  await history.waitFor({ state: "hidden" });

  // Its split test: no visits yet, so nothing is decided.
  await saved.getByRole("button", { name: "Split test" }).click();
  const splitTest = page.getByRole("dialog", { name: "Split test: Germany" });
  await expect.poll(() => splitTest.innerText(), POLL).toContain("No visits on this path in the last");
  expect(await splitTest.getByRole("list", { name: "Verdicts" }).innerText()).toContain("Landers: Not decided");
  await shots(page, "05-split-test");
  await page.keyboard.press("Escape");
  await splitTest.waitFor({ state: "hidden" });

  // Visitors follow the ad link (from nowhere in particular: the default path), and Stats names
  // where each went: the Paths and Lander × Offer tabs.
  const campaigns = await callApi<{ id: number; name: string; trackingUrl: string | null }[]>(page, "GET", "/api/campaigns");
  const spring = campaigns.find((c) => c.name === "Spring sweeps")!;
  // Live: the tracking link sends visitors on rather than showing the holding page.
  await callApi(page, "PATCH", `/api/campaigns/${spring.id}`, { bhToggle: true });
  const trackingUrl = spring.trackingUrl!.replaceAll(/__[A-Z_]+__/g, "1");
  // A phone's browser: the headless browser's own user agent would be flagged a bot and left out.
  const phone = { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148" };
  for (let i = 0; i < 3; i++) expect((await page.request.get(trackingUrl, { maxRedirects: 0, headers: phone })).status()).toBe(302);
  // The clicks reach D1 through the clicks queue a moment after their redirects (docs/tracking.md
  // "Clicks through a queue"); Stats reads them once they are stored.
  await expect.poll(() => callApi<{ total: number }>(page, "GET", `/api/clicks?campaignId=${spring.id}`).then((b) => b.total), POLL).toBe(3);
  await page.goto("/?tab=path");
  const row = (name: string) => page.getByRole("row", { name: new RegExp(`^${name}`) });
  await expect.poll(() => row("Spring sweeps › Default").count(), POLL).toBe(1);
  await page.getByRole("tab", { name: "Lander × Offer", exact: true }).click();
  await expect.poll(() => row("Quiz A × Sweeps offer").count(), POLL).toBe(1);
  expect(await page.getByRole("region", { name: "Our traffic" }).innerText()).toMatch(/Link clicks\s*3/i);
  await shots(page, "06-stats-lander-offer");
  await ctx.close();
});
