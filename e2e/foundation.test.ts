import { expect, test } from "vitest";
import type { Page } from "playwright-core";
import { createMember, useHarness } from "./support/harness";

const h = useHarness("foundation");

const sidebarLabels = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();

async function signIn(page: Page, username: string, password: string) {
  await page.goto("/auth");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
}

test("first admin sets up, creates a campaigns-only member, who sees only what they may", async () => {
  const adminCtx = await h.newContext();
  const admin = await adminCtx.newPage();

  // 1. First run: the sign-in screen offers the first-admin setup.
  await admin.goto("/");
  await expect.poll(() => admin.url()).toContain("/auth");
  await admin.getByRole("button", { name: "Create admin account" }).waitFor();
  await h.shot(admin, "01-first-admin-setup");
  await admin.getByLabel("Username").fill("founder");
  await admin.getByLabel("Password", { exact: true }).fill("founder-password");
  await admin.getByRole("button", { name: "Create admin account" }).click();
  await admin.getByRole("navigation", { name: "Main" }).waitFor();
  await h.shot(admin, "02-admin-home");

  // 2. Sign out and in again with the password.
  await admin.getByRole("button", { name: "Logout" }).first().click();
  await admin.getByRole("button", { name: "Sign In" }).waitFor();
  await signIn(admin, "founder", "founder-password");
  await admin.getByRole("navigation", { name: "Main" }).waitFor();

  // 3. Create a member with only the campaigns feature.
  await createMember(admin, "mia", "mia-password-1");
  await admin.getByRole("row", { name: /mia/ }).getByRole("button", { name: "Permissions" }).click();
  const perms = admin.getByRole("dialog", { name: /Permissions/ });
  await perms.getByLabel("Campaigns").click();
  await h.shot(admin, "03-member-permissions");
  await perms.getByRole("button", { name: "Save" }).click();
  await admin.getByText("Permissions updated").first().waitFor();
  await h.shot(admin, "04-users");

  // 4. The member signs in (own browser profile) and sees only their screens.
  const memberCtx = await h.newContext();
  const member = await memberCtx.newPage();
  await signIn(member, "mia", "mia-password-1");
  await member.getByRole("navigation", { name: "Main" }).waitFor();
  // No dashboard feature: the member's home is the codes inbox.
  await expect.poll(() => new URL(member.url()).pathname).toBe("/codes");
  expect(await sidebarLabels(member)).toEqual(["Campaigns", "Codes", "Transactions", "Account"]);
  await h.shot(member, "05-member-home");

  // 5. Admin-only screens send the member home; the API refuses admin calls.
  await member.goto("/users");
  await expect.poll(() => new URL(member.url()).pathname).toBe("/codes");
  await member.goto("/settings");
  await expect.poll(() => new URL(member.url()).pathname).toBe("/codes");
  const apiStatus = await member.evaluate(async () => {
    const list = await fetch("/api/users");
    const create = await fetch("/api/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "sneaky", password: "sneaky-password", role: "admin" }),
    });
    return [list.status, create.status];
  });
  expect(apiStatus).toEqual([403, 403]);

  // 6. Unknown routes show the 404 screen inside the layout.
  await member.goto("/no-such-screen");
  await member.getByRole("heading", { name: "404 Page Not Found" }).waitFor();

  // 7. Logout works: back to /auth, and the session is gone server-side.
  await member.getByRole("button", { name: "Logout" }).first().click();
  await member.getByRole("button", { name: "Sign In" }).waitFor();
  expect(await member.evaluate(async () => (await fetch("/api/user")).status)).toBe(401);
  await h.shot(member, "06-signed-out");

  await memberCtx.close();
  await adminCtx.close();
});

test("the sidebar collapses with Ctrl+B, remembers it in a cookie, and slides in on a phone", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await signIn(page, "founder", "founder-password");
  const aside = page.locator("aside");
  await expect.poll(() => aside.getAttribute("data-state")).toBe("expanded");
  await page.keyboard.press("Control+b");
  await expect.poll(() => aside.getAttribute("data-state")).toBe("collapsed");
  const cookie = (await ctx.cookies()).find((c) => c.name === "sidebar_state");
  expect(cookie?.value).toBe("false");
  expect(Math.round((cookie!.expires - Date.now() / 1000) / 86400)).toBe(7);
  await page.reload();
  await expect.poll(() => page.locator("aside").getAttribute("data-state")).toBe("collapsed");
  await h.shot(page, "07-collapsed");

  await page.setViewportSize({ width: 390, height: 800 });
  await expect.poll(() => page.locator("aside").count()).toBe(0);
  await page.getByRole("button", { name: "Toggle sidebar" }).click();
  await page.getByRole("dialog", { name: "Navigation" }).waitFor();
  await h.shot(page, "08-phone-sidebar");
  await ctx.close();
});
