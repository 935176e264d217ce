import { expect, test } from "vitest";
import { createFirstAdmin, useHarness } from "./support/harness";

const h = useHarness("codes");

/** Delivers a raw message to the local Worker's email() handler, as Email Routing would. */
async function deliver(raw: string, to = "codes@inbox.trackyard.test") {
  const url = `${h.url}/cdn-cgi/handler/email?from=${encodeURIComponent("forwarder@gmail.example")}&to=${encodeURIComponent(to)}`;
  const res = await fetch(url, { method: "POST", body: raw });
  expect(res.status, await res.text()).toBeLessThan(300);
}

const message = (code: string, id: string) =>
  [
    "From: TikTok <no-reply@business.tiktok.example>",
    "To: codes@inbox.trackyard.test",
    `Subject: ${code} is your TikTok for Business verification code`,
    `Message-ID: <${id}@tiktok.example>`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    'Content-Type: text/plain; charset="UTF-8"',
    "",
    `Your verification code is ${code}. It expires in 10 minutes.`,
    "If you did not request this, ignore this email.",
    "",
  ].join("\r\n");

test("a forwarded code appears on the open Codes screen within 3 seconds, and copies with a tap", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);

  await page.goto("/codes");
  await page.getByText("No verification codes yet").waitFor();
  await h.shot(page, "01-empty");

  const started = Date.now();
  await deliver(message("731904", `e2e-${started}`));
  // No reload: the 2-second poll brings it in.
  await page.getByRole("button", { name: "Copy code 731904" }).waitFor({ timeout: 3000 });
  const elapsed = Date.now() - started;
  expect(elapsed).toBeLessThan(3000);
  await expect.poll(() => page.getByText("731904").count()).toBeGreaterThanOrEqual(2); // Latest Code card + table
  await h.shot(page, "02-code-arrived");

  await page.getByRole("button", { name: "Copy code 731904" }).click();
  // exact: Radix also announces the toast in a live region ("Notification Code copied!...").
  await page.getByText("Code copied!", { exact: true }).waitFor();
  await page.getByTestId("copied-icon").waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("731904");
  await h.shot(page, "03-copied");
  // The check mark goes back to the copy icon after 2 seconds.
  await page.getByTestId("copied-icon").waitFor({ state: "detached", timeout: 4000 });

  // The same message delivered twice is stored once; a newer code goes to the top.
  await deliver(message("731904", `e2e-${started}`));
  await deliver(message("G-55 21 09".replace("G-", ""), `e2e-${started}-2`));
  await page.getByRole("button", { name: "Copy code 552109" }).waitFor({ timeout: 3000 });
  const codes = await page.getByRole("button", { name: /^Copy code / }).allInnerTexts();
  expect(codes).toEqual(["552109", "731904"]);
  await h.shot(page, "04-two-codes");
  await ctx.close();
});
