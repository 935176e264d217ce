import type { BrowserContext, Page } from "playwright-core";
import { expect, test } from "vitest";
import { createFirstAdmin, useHarness } from "./support/harness";

/**
 * The URL is the state of a data screen: a filtered Stats screen and a filtered Click Log come
 * back the same after a refresh, after Back and Forward, and from a link pasted into another
 * browser.
 */
const h = useHarness("url-state");

const POLL = { timeout: 30_000, interval: 100 };
const PHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

async function api<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const [status, text] = await page.evaluate(
    async ([method, path, body]) => {
      const r = await fetch(path as string, {
        method: method as string,
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
      return [r.status, await r.text()] as const;
    },
    [method, path, body] as const,
  );
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
  return JSON.parse(text) as T;
}

async function clicks(campaignId: number, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${h.server.url}/r/${campaignId}?cid=17990000${i}`, { redirect: "manual", headers: { "user-agent": PHONE_UA } });
    expect(res.status).toBe(302);
  }
}

const totalClicks = (page: Page) => page.getByText("Total Clicks", { exact: true }).locator("xpath=following-sibling::p[1]").innerText();
const selectedTab = (page: Page) => page.getByRole("tablist", { name: "Group by" }).getByRole("tab", { selected: true }).innerText();
const botsChecked = (page: Page) => page.getByRole("checkbox", { name: "Include bot clicks" }).getAttribute("aria-checked");

let second: BrowserContext;

async function signInElsewhere(): Promise<Page> {
  second ??= await h.newContext();
  const page = await second.newPage();
  await page.goto("/auth");
  await page.getByLabel("Username").fill("founder");
  await page.getByLabel("Password", { exact: true }).fill("founder-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  return page;
}

test("refresh, Back and a pasted link restore a filtered Stats screen and a filtered Click Log", { timeout: 360_000 }, async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  await api(page, "POST", "/api/settings", { key: "redirect_domain", value: h.url });
  const lander = await api<{ id: number }>(page, "POST", "/api/landers", { name: "Quiz", url: "https://lander.example.com/quiz" });
  const spring = await api<{ id: number }>(page, "POST", "/api/campaigns", { name: "Spring sweeps", landerId: lander.id, offerId: null, bhToggle: true });
  const autumn = await api<{ id: number }>(page, "POST", "/api/campaigns", { name: "Autumn deals", landerId: lander.id, offerId: null, bhToggle: true });
  await clicks(spring.id, 2);
  await clicks(autumn.id, 1);

  // A fresh load brings the user and the report time zone in its page (worker/src/lib/boot-data.ts):
  // the screen asks for its own rows at once, not for those two first.
  const asked: string[] = [];
  const hear = (request: { url(): string }) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith("/api/")) asked.push(pathname);
  };
  page.on("request", hear);
  await page.goto("/clicks");
  await page.getByRole("table", { name: "Click log" }).locator("tbody tr", { hasText: "Spring sweeps" }).first().waitFor();
  page.off("request", hear);
  expect(asked).toContain("/api/clicks");
  expect(asked).not.toContain("/api/user");
  expect(asked).not.toContain("/api/settings/report-time-zone");
  expect(await page.locator("#trackyard-boot").count()).toBe(0);
  expect(await page.getByText("Signed in as").innerText()).toBe("Signed in as founder");
  expect(await page.getByRole("columnheader", { name: /^Clicked At/ }).innerText()).toMatch(/\(UTC\)/i);

  // Stats: a tab, bots included, a chosen range; each a step of the history.
  await page.goto("/");
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await page.getByRole("checkbox", { name: "Include bot clicks" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("includeBots"), POLL).toBe("true");
  await page.getByRole("tab", { name: "Landers" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("tab"), POLL).toBe("lander");
  const todayLabel = await page.getByRole("button", { name: /Date range/ }).getAttribute("aria-label");
  await page.getByRole("button", { name: /Date range/ }).click();
  await page.getByRole("button", { name: "Last 7 days" }).click();
  await page.getByRole("button", { name: "Apply" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.has("startDate"), POLL).toBe(true);
  await expect.poll(() => page.getByRole("button", { name: /Date range/ }).getAttribute("aria-label"), POLL).not.toBe(todayLabel);
  const filtered = page.url();
  const rangeLabel = await page.getByRole("button", { name: /Date range/ }).getAttribute("aria-label");

  await page.reload();
  await expect.poll(() => selectedTab(page), POLL).toBe("Landers");
  await expect.poll(() => botsChecked(page), POLL).toBe("true");
  await expect.poll(() => page.getByRole("button", { name: /Date range/ }).getAttribute("aria-label"), POLL).toBe(rangeLabel);

  // Back: the range goes, then the tab; Forward brings them again.
  await page.goBack();
  await expect.poll(() => page.getByRole("button", { name: /Date range/ }).getAttribute("aria-label"), POLL).not.toBe(rangeLabel);
  await page.goBack();
  await expect.poll(() => selectedTab(page), POLL).toBe("Campaigns");
  await expect.poll(() => botsChecked(page), POLL).toBe("true");
  await page.goForward();
  await page.goForward();
  await expect.poll(() => page.url(), POLL).toBe(filtered);
  await expect.poll(() => selectedTab(page), POLL).toBe("Landers");

  // Copy link, pasted into another browser.
  await page.getByRole("button", { name: "Copy link" }).first().click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(filtered);
  await h.shot(page, "01-stats-filtered");
  const elsewhere = await signInElsewhere();
  await elsewhere.goto(copied);
  await expect.poll(() => selectedTab(elsewhere), POLL).toBe("Landers");
  await expect.poll(() => botsChecked(elsewhere), POLL).toBe("true");
  await expect.poll(() => elsewhere.getByRole("button", { name: /Date range/ }).getAttribute("aria-label"), POLL).toBe(rangeLabel);

  // A hand-edited link with a bad value shows the screen with that value's default.
  await elsewhere.goto("/?tab=weather&includeBots=maybe&startDate=2026-02-31");
  await expect.poll(() => selectedTab(elsewhere), POLL).toBe("Campaigns");
  await expect.poll(() => botsChecked(elsewhere), POLL).toBe("false");

  // Click Log: one campaign and people only.
  await page.goto("/clicks");
  await expect.poll(() => totalClicks(page), POLL).toBe("3");
  await page.getByRole("combobox", { name: "Campaign" }).click();
  await page.getByRole("option", { name: "Autumn deals" }).click();
  await expect.poll(() => totalClicks(page), POLL).toBe("1");
  await page.getByRole("combobox", { name: "Visitors" }).click();
  await page.getByRole("option", { name: "People only" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("bot"), POLL).toBe("human");
  const log = page.url();
  expect(new URL(log).searchParams.get("campaignId")).toBe(String(autumn.id));

  await page.reload();
  await expect.poll(() => totalClicks(page), POLL).toBe("1");
  await expect.poll(() => page.getByRole("combobox", { name: "Campaign" }).innerText(), POLL).toBe("Autumn deals");
  await expect.poll(() => page.getByRole("combobox", { name: "Visitors" }).innerText(), POLL).toBe("People only");

  await page.goBack();
  await page.goBack();
  await expect.poll(() => totalClicks(page), POLL).toBe("3");
  await page.goForward();
  await page.goForward();
  await expect.poll(() => totalClicks(page), POLL).toBe("1");

  await page.getByRole("button", { name: "Copy link" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(log);
  await h.shot(page, "02-click-log-filtered");
  await elsewhere.goto(log);
  await expect.poll(() => totalClicks(elsewhere), POLL).toBe("1");
  await expect.poll(() => elsewhere.getByRole("combobox", { name: "Campaign" }).innerText(), POLL).toBe("Autumn deals");

  await second.close();
  await ctx.close();
});
