import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { callApi } from "./support/api";
import { createFirstAdmin, useHarness } from "./support/harness";

/**
 * The Rules screen end to end: visits come in through the tracking link (two ad groups, no
 * conversion), a rule is made on /rules/new, dry-run over the last 7 days, saved, and the cron
 * (`/__scheduled`: the click rollup, then the rules) fires it; its history shows the figures.
 */
const h = useHarness("rules");

/** Both sizes from the top (a full-page shot of a scrolled page draws the sidebar mid-page). */
async function shots(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await h.shotBothSizes(page, name);
}

const POLL = { timeout: 60_000, interval: 500 };
const PHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

test("a rule made on /rules is dry-run, saved, and fired by the cron, its firing in its history", { timeout: 300_000 }, async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  await callApi(page, "POST", "/api/settings", { key: "redirect_domain", value: h.url });
  const lander = await callApi<{ id: number }>(page, "POST", "/api/landers", { name: "Quiz", url: "https://lander.example.com/q" });
  const campaign = await callApi<{ id: number }>(page, "POST", "/api/campaigns", { name: "Night shift", landerId: lander.id });
  for (const [i, ad] of ["1790001", "1790001", "1790002"].entries()) {
    const res = await fetch(`${h.server.url}/r/${campaign.id}?cid=1799&ad=${ad}&aname=Group%20${ad}&plc=feed`, {
      redirect: "manual",
      headers: { "user-agent": PHONE_UA, "cf-connecting-ip": `198.51.100.${10 + i}` },
    });
    expect(res.status).toBeLessThan(400);
  }
  // The cron rolls the clicks up (each click is written after its answer, so until all three are in).
  const probe = {
    name: "probe",
    scope: { kind: "campaigns", values: [String(campaign.id)] },
    window: { amount: 1, unit: "days" },
    conditions: [{ metric: "linkClicks", op: ">=", value: 0 }],
    cooldownMinutes: 60,
    action: "alert",
    target: { channelIds: [], admins: true },
  };
  await expect
    .poll(async () => {
      await fetch(`${h.server.url}/__scheduled`);
      const dry = await callApi<{ items: { matches: { figures: { linkClicks: number } }[] }[] }>(page, "POST", "/api/rules/dry-run", probe);
      return dry.items[0]?.matches.at(-1)?.figures.linkClicks ?? 0;
    }, POLL)
    .toBe(3);

  await page.goto("/rules");
  await page.getByRole("heading", { name: "Rules" }).waitFor();
  await page.getByText("No rules yet").waitFor();
  expect(await page.getByRole("link", { name: "Channels" }).getAttribute("href")).toBe("/rules/channels");
  expect(await page.getByRole("link", { name: "Built-in alerts" }).getAttribute("href")).toBe("/rules/alerts");
  await page.getByRole("link", { name: "New rule" }).click();
  await page.getByRole("heading", { name: "New rule" }).waitFor();

  await page.getByLabel("Name").fill("Clicks, no conversions");
  await page.getByRole("combobox", { name: "Scope" }).click();
  await page.getByRole("option", { name: "Campaigns", exact: true }).click();
  await page.getByRole("checkbox", { name: "Night shift" }).click();
  // Bad input first: a threshold that is not a number is refused before anything is sent.
  await page.getByRole("textbox", { name: "Condition 1: threshold" }).fill("one");
  await page.getByRole("button", { name: "Dry run (last 7 days)" }).click();
  await page.getByRole("alert").getByText('The threshold must be a number, not "one"').waitFor();
  await page.getByRole("textbox", { name: "Condition 1: threshold" }).fill("1");
  await page.getByRole("combobox", { name: "Guard: metric" }).click();
  await page.getByRole("option", { name: "Link clicks" }).click();
  await page.getByRole("textbox", { name: "Guard: threshold" }).fill("3");

  await page.getByRole("button", { name: "Dry run (last 7 days)" }).click();
  const dry = page.getByRole("region", { name: "Dry run for Night shift" });
  await dry.waitFor();
  expect(await dry.innerText()).toContain("Would have fired 1 time");
  expect(await dry.innerText()).toContain("Link clicks 3");
  expect(await dry.innerText()).toContain("ad groups 1790001, 1790002");
  await shots(page, "01-editor-dry-run");

  await page.getByRole("button", { name: "Create rule" }).click();
  await page.getByRole("heading", { name: "Clicks, no conversions" }).waitFor();
  await page.getByText("The rule has not fired yet.").waitFor();

  // The cron evaluates it: one firing, alert only, with the figures; a second run stays in cooldown.
  await fetch(`${h.server.url}/__scheduled`);
  await expect
    .poll(async () => {
      await page.reload();
      await page.getByRole("heading", { name: "History" }).waitFor();
      return page.getByRole("cell", { name: "Night shift" }).count();
    }, POLL)
    .toBe(1);
  await fetch(`${h.server.url}/__scheduled`);
  await page.reload();
  await page.getByRole("heading", { name: "History" }).waitFor();
  expect(await page.getByRole("cell", { name: "Night shift" }).count()).toBe(1);
  const history = await page
    .getByRole("table", { name: /history/i })
    .or(page.locator("table").last())
    .innerText();
  expect(history).toContain("Link clicks 3");
  expect(history).toContain("Alert only");
  await shots(page, "02-history");

  await page.getByRole("link", { name: "All rules" }).click();
  await page.getByRole("link", { name: "Clicks, no conversions" }).waitFor();
  expect(await page.getByRole("row", { name: /Clicks, no conversions/ }).innerText()).not.toContain("Never");
  await page.getByRole("switch", { name: "Clicks, no conversions enabled" }).click();
  await expect.poll(() => page.getByRole("switch", { name: "Clicks, no conversions enabled" }).getAttribute("aria-checked"), POLL).toBe("false");
  await shots(page, "03-list");
});
