import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect, test } from "vitest";
import { ROOT } from "../scripts/lib/server.mjs";
import { createFirstAdmin, useHarness } from "./support/harness";

const h = useHarness("phone-screens");
const PHONE = { width: 390, height: 844 };
/** A screen settles after a request or two: seconds on a loaded machine. */
const WAIT = { timeout: 30_000 };

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  expect(b).not.toBeNull();
  return b!;
}

/** Wholly inside the phone's screen: not cut off at the right, and above the fold. */
async function onFirstScreen(page: Page, locator: Locator) {
  const b = await box(locator);
  expect(b.x).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width + 0.5);
  expect(b.y + b.height).toBeLessThanOrEqual(PHONE.height);
}

test(
  "on a phone the Click Log's first click and every transaction's amount are on screen; at 1280 the Transactions cards line up",
  { timeout: 180_000 },
  async () => {
    const ctx = await h.newContext();
    const page = await ctx.newPage();
    await createFirstAdmin(page);
    const post = async (p: string, data: unknown) => {
      const res = await page.request.post(p, { data, headers: { origin: h.url } });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as { id: number };
    };
    const lander = await post("/api/landers", { name: "Quiz", url: "https://lander.example/quiz" });
    const campaign = await post("/api/campaigns", { name: "Spring sweepstakes US iOS", landerId: lander.id });
    // A crawler's click: flagged as a bot, with its reason.
    const res = await fetch(`${h.url}/r/${campaign.id}?cid=1799&plc=feed`, {
      redirect: "manual",
      headers: { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)", "cf-connecting-ip": "198.51.100.7" },
    });
    // A bot is shown a page of its own rather than redirected; either way the click is logged.
    expect(res.status).toBeLessThan(400);
    await page.goto("/billing");
    await page.locator('input[type="file"]').setInputFiles(path.join(ROOT, "samples", "billing", "sample-statement.csv"));
    await page.getByRole("status", { name: "Last upload" }).waitFor(WAIT);

    // 1280: the upload card ends level with the VCN Spend Summary beside it.
    const summaryCard = page.getByRole("table", { name: "VCN spend summary" }).locator("xpath=ancestor::*[contains(@class,'rounded')][1]");
    const uploadCard = page.getByRole("heading", { name: "Upload Billing Statement" }).locator("xpath=ancestor::*[contains(@class,'rounded')][1]");
    const [s, u] = [await box(summaryCard), await box(uploadCard)];
    expect(Math.abs(s.y + s.height - (u.y + u.height))).toBeLessThanOrEqual(1);
    await h.shot(page, "01-transactions-1280");

    await page.setViewportSize(PHONE);
    await page.goto("/clicks");
    const clicks = page.getByRole("table", { name: "Click log" });
    const firstRow = clicks.locator("tbody tr").first();
    await firstRow.getByText("Spring sweepstakes US iOS").waitFor(WAIT);
    // The visitor filters are folded; the first click, its campaign and click id are on the first screen.
    await page.getByRole("button", { name: "Filters", exact: true }).waitFor(WAIT);
    expect(await page.getByRole("group", { name: "Visitor filters" }).isVisible()).toBe(false);
    await onFirstScreen(page, firstRow.locator("td").first());
    await h.shot(page, "02-click-log-390");
    // The bot's reason on a tap (a phone has no hover).
    const bot = firstRow.getByRole("button", { name: /^Bot: / });
    await bot.click();
    expect(await bot.getAttribute("aria-expanded")).toBe("true");
    const reason = page.locator(`[id="${await bot.getAttribute("aria-controls")}"]`);
    await reason.waitFor(WAIT);
    expect((await bot.getAttribute("aria-label"))!.slice("Bot: ".length)).toBe(await reason.innerText());
    // Scrolled sideways, the pinned first column still names the campaign.
    await clicks.locator("xpath=ancestor::*[@role='region'][1]").evaluate((el) => el.scrollBy({ left: 600 }));
    await onFirstScreen(page, firstRow.getByText("Spring sweepstakes US iOS"));
    // Opened, the filters show, and say how many are active once one is.
    await page.getByRole("button", { name: "Filters", exact: true }).click();
    await page.getByRole("group", { name: "Visitor filters" }).waitFor(WAIT);

    await page.goto("/billing");
    const list = page.getByRole("table", { name: "Transactions" });
    const first = list.locator("tbody tr").first();
    await first.getByText(/^\$[\d,]+\.\d\d$/).waitFor(WAIT);
    // Every card's amount lies within the phone's width (not off to the right).
    for (const amount of await list
      .locator("tbody tr")
      .getByText(/^-?\$[\d,]+\.\d\d$/)
      .all()) {
      const b = await box(amount);
      expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width + 0.5);
    }
    // The VCN totals fit too: the last column's total ends inside the card.
    const total = page.getByRole("table", { name: "VCN spend summary" }).locator("tfoot td").last();
    expect((await total.innerText()).trim()).toMatch(/^\$[\d,]+\.\d\d$/);
    const t = await box(total);
    const card = await box(summaryCard);
    expect(t.x + t.width).toBeLessThanOrEqual(card.x + card.width);
    await h.shot(page, "03-transactions-390");
    await ctx.close();
  },
);
