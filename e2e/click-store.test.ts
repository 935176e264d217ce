import { expect, test } from "vitest";
import { createFirstAdmin, useHarness } from "./support/harness";

const h = useHarness("click-store");

test("the Click Log shows the rate limit's refusals, and says when a range reaches past the click retention", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  const post = async (path: string, data: unknown) => {
    const res = await page.request.post(path, { data, headers: { origin: h.url } });
    expect(res.status(), await res.text()).toBeLessThan(300);
    return (await res.json()) as { id: number };
  };
  const lander = await post("/api/landers", { name: "Quiz", url: "https://lander.example/quiz" });
  const campaign = await post("/api/campaigns", { name: "Spring sweeps", landerId: lander.id, bhToggle: true });

  // 620 ad clicks from one carrier address in a minute: all redirected, 600 stored, 20 counted.
  // The limit counts whole minutes: start with room left in this one.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 25_000) await new Promise((r) => setTimeout(r, left + 100));
  const statuses: number[] = [];
  for (let i = 0; i < 620; i += 40) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(40, 620 - i) }, () =>
        fetch(`${h.url}/r/${campaign.id}?cid=1799&plc=feed`, { redirect: "manual", headers: { "cf-connecting-ip": "198.51.100.23" } }),
      ),
    );
    statuses.push(...batch.map((r) => r.status));
  }
  expect(statuses.every((s) => s === 302)).toBe(true);

  await page.goto("/clicks");
  const refused = page.getByTestId("refused-clicks");
  await refused.waitFor();
  expect(await refused.textContent()).toContain("20 clicks and 0 exits from addresses over the per-IP limit were not stored");
  expect(await page.getByText("Raw clicks are kept for 90 days").textContent()).toContain("The stats keep every day");
  await h.shot(page, "01-refused-desktop");

  // A range reaching past the retention says so. (Archived days are listed with their downloads;
  // the worker tests archive real days: `wrangler dev` cannot run the cron at a later time.)
  await page.getByRole("button", { name: /^Date range:/ }).click();
  await page.getByRole("button", { name: "Last 6 months" }).click();
  await page.getByRole("button", { name: "Apply" }).click();
  const notice = page.getByTestId("retention-notice");
  await notice.waitFor();
  expect(await notice.textContent()).toContain("This range reaches past the click retention");
  expect(await notice.textContent()).toContain("No archived day falls in this range yet.");
  await h.shot(page, "02-past-retention-desktop");

  await page.setViewportSize({ width: 390, height: 844 });
  await notice.waitFor();
  await h.shot(page, "03-past-retention-phone");
  await ctx.close();
});
