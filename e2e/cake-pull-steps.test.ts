/**
 * A CAKE click report too long for one invocation, pulled in steps by CakePullWorkflow in the local
 * Workflows engine (docs/click-storage.md "The CAKE pull in steps"): the clicks come through the
 * tracking link, CAKE's report (the fake, served over HTTP, one row a page) carries the ids the
 * offer link passed on as sub2, CAKE_PULL_STEP_ROWS is 2 so the report is long. "Sync now" says the
 * sync started; the card shows it going on; the steps finish it, and the Stats report counts every
 * visit and the revenue against the campaign. Screenshots at desktop and phone sizes.
 */
import { expect, test } from "vitest";
import { callApi } from "./support/api";
import { createFirstAdmin, useHarnessWithFakes } from "./support/harness";

const POLL = { timeout: 60_000, interval: 250 };

const h = useHarnessWithFakes("cake-pull-steps", (fakes) => ({
  CAKE_BASE_URL: fakes.url,
  CAKE_API_KEY: fakes.cake.state.apiKey,
  CAKE_AFFILIATE_ID: fakes.cake.state.affiliateId,
  CAKE_PULL_STEP_ROWS: "2",
}));

test("a long CAKE click report is pulled in steps and counted against the campaign", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();
  await createFirstAdmin(page);
  const lander = await callApi<{ id: number }>(page, "POST", "/api/landers", { name: "Steps lander", url: "https://lander.example/steps" });
  const campaign = await callApi<{ id: number }>(page, "POST", "/api/campaigns", { name: "Steps TikTok", landerId: lander.id, bhToggle: true });

  // Three visitors through the tracking link; the lander passes each click id on to the offer (sub2).
  const ids: string[] = [];
  for (const ip of ["203.0.113.21", "203.0.113.22", "203.0.113.23"]) {
    const res = await page.request.get(`/r/${campaign.id}?cid=1901&ad=2901&cr=3901&plc=feed`, {
      headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", "x-forwarded-for": ip },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(302);
    ids.push(new URL(res.headers().location!).searchParams.get("clickId")!);
  }
  await expect.poll(async () => (await callApi<{ total: number }>(page, "GET", "/api/clicks")).total, POLL).toBe(3);

  // CAKE's report of today: five visits (the first visitor came to the offer three times), one a
  // page, and a conversion of the second visitor.
  const today = new Date().toISOString().slice(0, 10);
  const row = (n: number, clickId: string) => ({
    click_id: n,
    click_date: `${today}T00:0${n}:00`,
    offer_id: 71,
    offer_name: "Steps offer",
    subid_1: "mb-steps",
    subid_2: clickId,
  });
  h.fakes.cake.state.clicks = [row(1, ids[0]!), row(2, ids[1]!), row(3, ids[0]!), row(4, ids[2]!), row(5, ids[0]!)];
  h.fakes.cake.state.maxPageRows = 1;
  h.fakes.cake.state.conversions = [
    {
      conversion_id: "steps-conv-1",
      conversion_date: `${today}T00:09:00`,
      offer_id: 71,
      offer_name: "Steps offer",
      subid_1: "mb-steps",
      subid_2: ids[1]!,
      price: "42.5000",
      disposition: "Approved",
    },
  ];

  await page.goto("/");
  const card = page.getByRole("region", { name: "Data sources" });
  await card.getByRole("button", { name: "Sync now" }).click();
  await page.getByText("Sync started", { exact: true }).waitFor();
  await page.getByText("CAKE: a long click report, going on in steps").first().waitFor();
  await h.shotBothSizes(page, "01-sync-started");

  // The steps run in the local Workflows engine and close the run.
  type Status = { sources: { source: string; lastRun: { status: string; rowsFetched: number; error: string | null } | null }[] };
  const cakeRun = async () => (await callApi<Status>(page, "GET", "/api/sync/status")).sources.find((s) => s.source === "cake")!.lastRun;
  await expect.poll(async () => (await cakeRun())?.status, POLL).toBe("ok");
  expect(await cakeRun()).toMatchObject({ rowsFetched: 6, error: null });

  const report = await callApi<{ rows: { campaignId: number | null; visits: number; conversions: number; revenue: string }[] }>(
    page,
    "GET",
    `/api/stats/report?startDate=${today}&endDate=${today}&groupBy=campaign`,
  );
  expect(report.rows.find((r) => r.campaignId === campaign.id)).toMatchObject({ visits: 5, conversions: 1, revenue: "42.50" });
  await page.reload();
  await card.getByText("last synced").waitFor();
  await h.shotBothSizes(page, "02-synced");
  await ctx.close();
});
