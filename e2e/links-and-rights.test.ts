import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { callApi } from "./support/api";
import { createFirstAdmin, createMember, useHarness } from "./support/harness";

/**
 * A shared link opened while signed out opens whole after sign-in (and after the two-factor
 * step), never another site; a feature an admin grants or removes shows on a signed-in member's
 * screen within seconds, without a reload.
 */
const h = useHarness("links-and-rights");

const POLL = { timeout: 15_000, interval: 100 };
const PHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

const codeFor = (secret: string, stepsAhead = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + stepsAhead * 30_000 });
const totalClicks = (page: Page) => page.getByText("Total Clicks", { exact: true }).locator("xpath=following-sibling::p[1]").innerText();
const selectedTab = (page: Page) => page.getByRole("tablist", { name: "Group by" }).getByRole("tab", { selected: true }).innerText();
const sidebar = (page: Page) => page.getByRole("navigation", { name: "Main" });

async function passwordStep(page: Page, username: string, password: string) {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
}

/** Founder, the first admin (created by whichever test runs first), signed in; founder never turns on two-factor. */
async function founder(): Promise<Page> {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await page.goto("/auth");
  const setup = await callApi<{ needsSetup: boolean }>(page, "GET", "/api/setup");
  if (setup.needsSetup) await createFirstAdmin(page, "founder", "founder-password");
  else {
    await passwordStep(page, "founder", "founder-password");
    await sidebar(page).waitFor();
  }
  return page;
}

test("a link opened signed out opens whole after sign-in, after the two-factor step too, and never off the site", { timeout: 150_000 }, async () => {
  const admin = await founder();
  // Her own admin for this test, who turns on two-factor sign-in below.
  await callApi(admin, "POST", "/api/users", { username: "ada", password: "ada-password-1", role: "admin" });
  await callApi(admin, "POST", "/api/settings", { key: "redirect_domain", value: h.url });
  const lander = await callApi<{ id: number }>(admin, "POST", "/api/landers", { name: "Quiz", url: "https://lander.example.com/quiz" });
  const spring = await callApi<{ id: number }>(admin, "POST", "/api/campaigns", { name: "Spring sweeps", landerId: lander.id, offerId: null, bhToggle: true });
  const autumn = await callApi<{ id: number }>(admin, "POST", "/api/campaigns", { name: "Autumn deals", landerId: lander.id, offerId: null, bhToggle: true });
  for (const id of [spring.id, spring.id, autumn.id]) {
    const res = await fetch(`${h.server.url}/r/${id}?cid=1799`, { redirect: "manual", headers: { "user-agent": PHONE_UA } });
    expect(res.status).toBe(302);
  }
  const { today } = await callApi<{ today: string }>(admin, "GET", "/api/settings/report-time-zone");

  // 1. A filtered Click Log link, hash and all, opened in a browser that is signed out.
  const clickLog = `/clicks?startDate=${today}&endDate=${today}&campaignId=${autumn.id}&bot=human#log`;
  const visitorCtx = await h.newContext();
  const visitor = await visitorCtx.newPage();
  await visitor.goto(clickLog);
  await visitor.getByRole("button", { name: "Sign In" }).waitFor();
  const signIn = new URL(visitor.url());
  expect(signIn.pathname).toBe("/auth");
  expect(signIn.searchParams.get("next")).toBe(clickLog);
  await h.shotBothSizes(visitor, "01-sign-in-with-link");
  await passwordStep(visitor, "ada", "ada-password-1");
  await expect.poll(() => visitor.url(), POLL).toBe(`${h.url}${clickLog}`);
  await expect.poll(() => visitor.getByRole("combobox", { name: "Campaign" }).innerText(), POLL).toBe("Autumn deals");
  await expect.poll(() => visitor.getByRole("combobox", { name: "Visitors" }).innerText(), POLL).toBe("People only");
  await expect.poll(() => totalClicks(visitor), POLL).toBe("1");
  await h.shotBothSizes(visitor, "02-returned-to-click-log");

  // 2. Two-factor sign-in on, then a Stats link: the password, the code, and the same Stats.
  await sidebar(visitor).getByRole("link", { name: "Account" }).click();
  await visitor.getByRole("button", { name: "Set Up Two-Factor Sign-In" }).click();
  const confirm = visitor.getByRole("dialog", { name: "Set up two-factor sign-in" });
  await confirm.getByLabel("Your password").fill("ada-password-1");
  await confirm.getByRole("button", { name: "Continue" }).click();
  const secret = (await visitor.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
  await visitor.getByLabel("Code from the app").fill(codeFor(secret));
  await visitor.getByRole("button", { name: "Turn On" }).click();
  const saved = visitor.getByRole("dialog", { name: "Save your recovery codes" });
  // allInnerTexts does not wait: the list is read once its codes are there.
  const codeItems = saved.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect.poll(() => codeItems.count(), POLL).toBe(10);
  const recoveryCodes = await codeItems.allInnerTexts();
  await saved.getByRole("button", { name: "I saved them" }).click();
  await visitor.getByText("Recovery codes left").waitFor();

  await visitor.getByRole("button", { name: "Logout" }).click();
  await visitor.getByRole("button", { name: "Sign In" }).waitFor();
  const stats = `/?tab=lander&includeBots=true&startDate=${today}&endDate=${today}`;
  await visitor.goto(stats);
  await passwordStep(visitor, "ada", "ada-password-1");
  await visitor.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
  expect(new URL(visitor.url()).searchParams.get("next")).toBe(stats);
  // The next step's code: the setup used the current one, and each is good once.
  await visitor.getByLabel("Authentication code").fill(codeFor(secret, 1));
  await visitor.getByRole("button", { name: "Verify" }).click();
  await expect.poll(() => visitor.url(), POLL).toBe(`${h.url}${stats}`);
  await expect.poll(() => selectedTab(visitor), POLL).toBe("Landers");
  await expect.poll(() => visitor.getByRole("checkbox", { name: "Include bot clicks" }).getAttribute("aria-checked"), POLL).toBe("true");
  await h.shot(visitor, "03-returned-to-stats-after-two-factor");

  // 3. A sign-in link naming another site signs in and stays here, at home.
  await visitor.getByRole("button", { name: "Logout" }).click();
  // Signed out first: /auth opened while the sign-out is still on its way finds a session and goes home.
  await visitor.getByRole("button", { name: "Sign In" }).waitFor();
  await visitor.goto(`/auth?next=${encodeURIComponent("//evil.example/steal")}`);
  await passwordStep(visitor, "ada", "ada-password-1");
  // The app's codes of this minute are used up: a recovery code.
  await visitor.getByRole("button", { name: "Use a recovery code" }).click();
  await visitor.getByLabel("Recovery code").fill(recoveryCodes[0]!);
  await visitor.getByRole("button", { name: "Verify" }).click();
  await expect.poll(() => visitor.url(), POLL).toBe(`${h.url}/`);

  await visitorCtx.close();
  await admin.context().close();
});

test("a feature granted to a signed-in member shows in their sidebar within seconds, and goes when removed", { timeout: 150_000 }, async () => {
  const admin = await founder();
  await createMember(admin, "mia", "mia-password-1");
  const mia = (await callApi<{ id: string; username: string }[]>(admin, "GET", "/api/users")).find((u) => u.username === "mia")!;
  const grant = (features: string[]) => callApi(admin, "POST", `/api/users/${mia.id}/permissions`, { features });

  const memberCtx = await h.newContext();
  const member = await memberCtx.newPage();
  await member.goto("/auth");
  await passwordStep(member, "mia", "mia-password-1");
  // No dashboard: the codes inbox, which polls every 2 seconds.
  await expect.poll(() => new URL(member.url()).pathname, POLL).toBe("/codes");
  const clickLogLink = sidebar(member).getByRole("link", { name: "Click Log" });
  expect(await clickLogLink.count()).toBe(0);

  // Granted: in the sidebar at the inbox's next poll, no reload.
  let started = Date.now();
  await grant(["clicks"]);
  await clickLogLink.waitFor({ timeout: 5_000 });
  const grantSeconds = (Date.now() - started) / 1000;
  await h.shotBothSizes(member, "04-member-granted-click-log");
  await clickLogLink.click();
  await member.getByRole("heading", { name: "Click Log" }).waitFor();

  // Removed while the member looks at the Click Log: back home, and gone from the sidebar.
  await grant([]);
  await expect.poll(() => new URL(member.url()).pathname, POLL).toBe("/codes");
  expect(await clickLogLink.count()).toBe(0);

  // On a screen that asks the server nothing (Account), a grant arrives too.
  await sidebar(member).getByRole("link", { name: "Account" }).click();
  await member.getByRole("heading", { name: "Account" }).waitFor();
  started = Date.now();
  await grant(["sparks"]);
  await sidebar(member).getByRole("link", { name: "Sparks" }).waitFor({ timeout: 20_000 });
  const quietSeconds = (Date.now() - started) / 1000;
  console.log(`granted feature shown after ${grantSeconds.toFixed(1)} s on Codes, ${quietSeconds.toFixed(1)} s on Account (no reload)`);
  expect(member.url()).toBe(`${h.url}/account`);

  await memberCtx.close();
  await admin.context().close();
});
