import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { expect, test } from "vitest";
import { createFirstAdmin, createMember, useHarness } from "./support/harness";

const h = useHarness("accounts");

/** What the authenticator app would show `stepsAhead` 30-second steps from now. */
const codeFor = (secret: string, stepsAhead = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + stepsAhead * 30_000 });

async function passwordStep(page: Page, username: string, password: string) {
  await page.goto("/auth");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
}

/** Signs out, then the password step and a recovery code (signed in when it was good). */
async function withRecoveryCode(page: Page, code: string) {
  await signOut(page);
  await passwordStep(page, "founder", "founder-password");
  await page.getByRole("button", { name: "Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Logout" }).first().click();
  await page.getByRole("button", { name: "Sign In" }).waitFor();
}

/** Account page: scan (read the key), confirm with a computed code; returns the key and the recovery codes. */
async function turnOnTwoFactor(page: Page, password: string, shotName?: string) {
  await page.getByRole("button", { name: "Set Up Two-Factor Sign-In" }).click();
  // The password again first (docs/accounts-security.md "Accounts, roles and permissions").
  const confirm = page.getByRole("dialog", { name: "Set up two-factor sign-in" });
  await confirm.getByLabel("Your password").fill(password);
  await confirm.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("img", { name: "QR code to scan with your authenticator app" }).waitFor();
  const secret = (await page.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  if (shotName) await h.shot(page, shotName);
  await page.getByLabel("Code from the app").fill(codeFor(secret));
  await page.getByRole("button", { name: "Turn On" }).click();
  const dialog = page.getByRole("dialog", { name: "Save your recovery codes" });
  // allInnerTexts does not wait: the list is read once its codes are there.
  const items = dialog.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await items.nth(9).waitFor();
  const codes = await items.allInnerTexts();
  expect(codes).toHaveLength(10);
  return { secret, codes, dialog };
}

test("two-factor sign-in end to end: setup, code, recovery code, forced setup, and the audit trail", async () => {
  const adminCtx = await h.newContext();
  const admin = await adminCtx.newPage();
  await createFirstAdmin(admin, "founder", "founder-password");

  // 1. Turn it on from the Account page with a code computed here, as an app would.
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
  await admin.getByRole("heading", { name: "Account" }).waitFor();
  await h.shotBothSizes(admin, "01-account-off");
  const { secret, codes, dialog } = await turnOnTwoFactor(admin, "founder-password", "02-account-setup");
  await h.shotBothSizes(admin, "03-recovery-codes");
  await dialog.getByRole("button", { name: "I saved them" }).click();
  await admin.getByText("Recovery codes left").waitFor();
  await h.shotBothSizes(admin, "04-account-on");

  // 2. Sign out; sign in with the password and then the next code (the setup used the current one).
  await signOut(admin);
  await passwordStep(admin, "founder", "founder-password");
  await admin.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
  await h.shotBothSizes(admin, "05-second-step");
  await admin.getByLabel("Authentication code").fill(codeFor(secret, 1));
  await admin.getByRole("button", { name: "Verify" }).click();
  await admin.getByRole("navigation", { name: "Main" }).waitFor();

  // 3. A recovery code signs in once; the same code a second time is refused.
  await withRecoveryCode(admin, codes[0]!);
  await admin.getByRole("navigation", { name: "Main" }).waitFor();
  await withRecoveryCode(admin, codes[0]!);
  await admin.getByRole("alert").filter({ hasText: "That recovery code is wrong or was already used" }).waitFor();
  await h.shotBothSizes(admin, "06-recovery-code-used");
  expect(await admin.evaluate(async () => (await fetch("/api/user")).status)).toBe(401);
  await admin.getByLabel("Recovery code").fill(codes[1]!);
  await admin.getByRole("button", { name: "Verify" }).click();
  await admin.getByRole("navigation", { name: "Main" }).waitFor();

  // 4. The admin creates a member and requires two-factor sign-in for everyone.
  await createMember(admin, "mia", "mia-password-1");
  await admin.getByRole("switch", { name: "Require two-factor sign-in for everyone" }).click();
  await admin.getByText("Two-factor sign-in required").first().waitFor();
  await expect.poll(() => admin.getByRole("switch", { name: "Require two-factor sign-in for everyone" }).getAttribute("aria-checked")).toBe("true");
  await h.shotBothSizes(admin, "07-users-required");

  // 5. The member signs in and is sent to set it up before anything else.
  const memberCtx = await h.newContext();
  const member = await memberCtx.newPage();
  await passwordStep(member, "mia", "mia-password-1");
  await member.getByText("An admin requires two-factor sign-in for everyone").waitFor();
  expect(new URL(member.url()).pathname).toBe("/account");
  await member.goto("/codes");
  await expect.poll(() => new URL(member.url()).pathname).toBe("/account");
  expect(await member.evaluate(async () => (await fetch("/api/codes")).status)).toBe(403);
  await h.shotBothSizes(member, "08-member-must-set-up");
  const mia = await turnOnTwoFactor(member, "mia-password-1");
  await mia.dialog.getByRole("button", { name: "I saved them" }).click();
  await member.goto("/codes");
  await member.getByRole("heading", { name: /code/i }).first().waitFor();
  expect(new URL(member.url()).pathname).toBe("/codes");

  // Users says who has it on; the account dialog says its state above Reset Two-Factor.
  await admin.goto("/users");
  await admin.getByRole("button", { name: "Account of mia" }).click();
  const state = admin.getByRole("dialog");
  await state.getByText(/since .+; 10 recovery codes left\./).waitFor();
  await h.shotBothSizes(admin, "08b-users-account-on");
  await state.getByRole("button", { name: "Close" }).click();

  // 6. The admin sets mia a new password: first asked to confirm it is them, with the password and a code.
  await admin.goto("/users");
  await admin.getByRole("button", { name: "Account of mia" }).click();
  const account = admin.getByRole("dialog", { name: "Account — mia" });
  await account.getByLabel("New password").fill("mia-password-2");
  await account.getByRole("button", { name: "Set Password" }).click();
  const reauth = admin.getByRole("dialog", { name: "Confirm it is you" });
  await reauth.getByLabel("Your password").fill("founder-password");
  await h.shotBothSizes(admin, "08c-reauth-dialog");
  // A recovery code works here too (the app's codes were used up to the next step by the sign-ins above).
  await reauth.getByLabel("Code from your authenticator app").fill(codes[2]!);
  await reauth.getByRole("button", { name: "Confirm" }).click();
  await admin.getByText("Password set").first().waitFor();
  await expect.poll(() => reauth.count()).toBe(0);
  // mia was signed out everywhere.
  expect(await member.evaluate(async () => (await fetch("/api/user")).status)).toBe(401);
  await account.getByRole("button", { name: "Close" }).click();

  // 7. The audit screen shows each step.
  await admin.goto("/audit");
  await admin.getByRole("heading", { name: "Audit Log" }).waitFor();
  const table = admin.getByRole("table");
  for (const text of [
    "founder turned on two-factor sign-in; 10 recovery codes issued; other sessions signed out",
    "Password + authenticator code",
    "Password + recovery code (9 left)",
    "Recovery code wrong or already used",
    "Password + recovery code (8 left)",
    "mia (user)",
    "Require two-factor sign-in for everyone: off → on",
    "Password; sent to set up two-factor sign-in",
    "mia turned on two-factor sign-in; 10 recovery codes issued; other sessions signed out",
    "founder confirmed their password and code",
    "New password set for mia; signed out everywhere",
  ]) {
    await table.getByText(text, { exact: true }).first().waitFor();
  }
  expect(await table.getByText("Signed out", { exact: true }).count()).toBeGreaterThanOrEqual(3);
  // Newest first: the password reset is the top row.
  await expect.poll(() => table.getByRole("row").nth(1).innerText()).toContain("New password set for mia");
  await h.shotBothSizes(admin, "09-audit");

  // Filters: only sign-ins of the member.
  await admin.getByRole("combobox", { name: "Kind" }).click();
  await admin.getByRole("option", { name: "Sign-ins" }).click();
  await admin.getByRole("combobox", { name: "User" }).click();
  await admin.getByRole("option", { name: "mia" }).click();
  await expect.poll(() => table.getByRole("row").count()).toBe(2);
  await table.getByText("Password; sent to set up two-factor sign-in").waitFor();
  await h.shot(admin, "10-audit-filtered");

  await memberCtx.close();
  await adminCtx.close();
  // About 30 page steps, 20 full-page screenshots and a dozen password hashes: near a minute on a
  // 2-core machine with one core busy, 2 minutes at a load average of 10-14 (a fresh-clone run).
}, 300_000);
