import { createServer, request, type Server } from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../scripts/lib/server.mjs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createFirstAdmin, useHarness } from "./support/harness";

const h = useHarness("tracking");

/**
 * A lander and an offer page on another origin (their own local server), as a media buyer's
 * static lander would be: the lander loads exit-tracker.js from Trackyard and links to the offer.
 */
let site: Server;
let siteUrl = "";
const offerHits: URL[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    const url = new URL(req.url ?? "/", siteUrl);
    if (url.pathname === "/lander" || url.pathname === "/lander/step-2") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      const next = url.pathname === "/lander" ? `<a id="next" href="/lander/step-2">Next question</a>` : "";
      res.end(`<!doctype html><title>Quiz lander</title><h1>Which prize do you want?</h1>${next}
        <a id="offer" href="${h.url}/click" data-exit>Claim your prize</a>
        <script src="${h.url}/exit-tracker.js" async></script>`);
      return;
    }
    if (url.pathname === "/offer") {
      offerHits.push(url);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>Offer</title><h1>Offer reached</h1><pre id="query">${url.search.replace(/</g, "&lt;")}</pre>`);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

test("an ad click is recorded, reaches the lander, exits to the offer with its fields, and shows in the Click Log and its CSV", async () => {
  const ctx = await h.newContext();
  const page = await ctx.newPage();

  // Admin setup and the redirect domain (this local Trackyard).
  await createFirstAdmin(page);
  await page.goto("/settings");
  await page.getByLabel("Redirect Domain").fill(h.url);
  await page.getByRole("button", { name: "Save Domains" }).click();
  await page.getByText("Settings updated").first().waitFor();

  // Lander, offer (default template) and campaign.
  await page.goto("/landers");
  await page.getByRole("button", { name: "Add Lander" }).first().click();
  const landerDialog = page.getByRole("dialog");
  await landerDialog.getByLabel("Name").fill("Prize quiz");
  await landerDialog.getByLabel("URL").fill(`${siteUrl}/lander`);
  await landerDialog.getByRole("button", { name: "Add Lander" }).click();
  await page.getByRole("cell", { name: "Prize quiz", exact: true }).waitFor();
  await h.shot(page, "01-lander");

  await page.goto("/offer-config");
  await page.getByRole("button", { name: "Add Offer" }).click();
  const offerDialog = page.getByRole("dialog", { name: "Create New Offer" });
  await offerDialog.getByLabel("Name").fill("Prize offer");
  await offerDialog.getByLabel("URL").fill(`${siteUrl}/offer?aff=77`);
  await offerDialog.getByRole("button", { name: "Create Offer" }).click();
  await page.getByRole("cell", { name: "Prize offer", exact: true }).waitFor();
  await h.shot(page, "02-offer");

  await page.goto("/campaigns");
  await page.getByRole("button", { name: "Create Campaign" }).first().click();
  const campaignDialog = page.getByRole("dialog", { name: "Create Campaign" });
  await campaignDialog.getByLabel("Campaign Name").fill("Spring sweeps");
  await campaignDialog.getByRole("combobox", { name: "Lander" }).click();
  await page.getByRole("option", { name: "Prize quiz" }).click();
  await campaignDialog.getByRole("combobox", { name: "Offer (optional)" }).click();
  await page.getByRole("option", { name: "Prize offer" }).click();
  await campaignDialog.getByRole("switch", { name: "Enable redirect to lander" }).click();
  await campaignDialog.getByRole("button", { name: "Create Campaign" }).click();
  await page.getByRole("cell", { name: "Spring sweeps", exact: true }).waitFor();

  // Copy the tracking URL as a media buyer would, and look at the setup dialog.
  await page.getByRole("button", { name: "Copy UTM" }).click();
  await page.getByText("Copied!").first().waitFor();
  const trackingUrl = await page.evaluate(() => navigator.clipboard.readText());
  expect(trackingUrl).toMatch(new RegExp(`^${h.url.replace(/[.:/]/g, "\\$&")}/r/\\d+\\?cid=__CAMPAIGN_ID__&ad=__AID__&cr=__CID__&plc=__PLACEMENT__`));
  await page.getByRole("button", { name: "View Code" }).click();
  await page.getByRole("dialog", { name: /Tracking Setup for Spring sweeps/ }).waitFor();
  await h.shot(page, "03-tracking-setup");
  await page.keyboard.press("Escape");

  // TikTok fills its macros; a visitor taps the ad in a fresh browser.
  const adUrl = trackingUrl
    .replace("__CAMPAIGN_ID__", "1790000000001")
    .replace("__AID__", "1790000000002")
    .replace("__CID__", "1790000000003")
    .replace("__PLACEMENT__", "TikTok")
    .replace("__CAMPAIGN_NAME__", encodeURIComponent("Spring US & CA"))
    .replace("__AID_NAME__", encodeURIComponent("Broad 18+"))
    .replace("__CID_NAME__", encodeURIComponent("Video #3"));
  const visitorCtx = await h.browser.newContext();
  const visitor = await visitorCtx.newPage();
  await visitor.goto(adUrl);
  await visitor.getByRole("heading", { name: "Which prize do you want?" }).waitFor();
  const landed = new URL(visitor.url());
  expect(landed.origin).toBe(siteUrl);
  const clickId = landed.searchParams.get("clickId");
  expect(clickId).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  await h.shot(visitor, "04-lander");

  // A second lander page without the query: the script remembers the click.
  await visitor.getByRole("link", { name: "Next question" }).click();
  await visitor.waitForURL(`${siteUrl}/lander/step-2`);
  await expect.poll(() => visitor.getByRole("link", { name: "Claim your prize" }).getAttribute("href")).toContain(`clickId=${clickId}`);
  await visitor.getByRole("link", { name: "Claim your prize" }).click();
  await visitor.getByRole("heading", { name: "Offer reached" }).waitFor();
  await h.shot(visitor, "05-offer");
  const offer = offerHits.at(-1)!;
  expect(offer.searchParams.get("aff")).toBe("77");
  // The default template: no media buyer or spark on this campaign, so sub1 and sub3 go out empty.
  expect(offer.searchParams.get("sub1")).toBe("");
  expect(offer.searchParams.get("sub2")).toBe(clickId);
  expect(offer.searchParams.get("sub3")).toBe("");
  expect(offer.searchParams.get("sub4")).toBe("1790000000002");
  expect(offer.searchParams.get("sub5")).toBe("1790000000003");
  await visitorCtx.close();

  // The Click Log shows it as Exited. Once the click and its exit are stored (the clicks queue
  // writes them a moment after the answers), a fresh load of the screen brings its page of clicks
  // in the document: the screen draws the row without asking for it.
  const stored = async () => {
    const { clicks } = (await (await page.request.get("/api/clicks")).json()) as { clicks: { clickId: string; exitedAt: string | null }[] };
    return clicks.find((c) => c.clickId === clickId)?.exitedAt ?? null;
  };
  await expect.poll(stored, { timeout: 15_000 }).not.toBeNull();
  // The Worker waits at most half a second for it, so on a busy machine one load may go without,
  // and up to three are tried: docs/screens.md "First load: the screen's data in its document".
  const loadAsks = async () => {
    await page.goto("/clicks");
    await page.getByRole("cell", { name: `${clickId!.slice(0, 8)}...` }).waitFor();
    return page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .map((e) => e.name)
        .filter((name) => new URL(name).pathname === "/api/clicks"),
    );
  };
  let asked = await loadAsks();
  for (let attempt = 1; attempt < 3 && asked.length > 0; attempt++) asked = await loadAsks();
  expect(asked).toEqual([]);
  const row = page.getByRole("row", { name: new RegExp(clickId!.slice(0, 8)) });
  await row.getByText("Exited").waitFor();
  await expect.poll(() => row.innerText()).toContain("1790000000001");
  expect(await page.getByText("Lander CTR").locator("..").innerText()).toContain("100.00%");
  await h.shot(page, "06-click-log");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^click-log-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
  const [header, line] = csv.trim().split("\r\n");
  expect(header).toBe(
    "Click ID,Campaign,Clicked At (UTC),Exited,Exit Time (UTC),TikTok Campaign ID,TikTok Ad Group ID,TikTok Creative ID,Placement,Campaign Name,Ad Group Name,Creative Name,IP Address,User Agent," +
      "TTCLID,Country,Region,City,ASN,ISP,Device,OS,Browser,Bot,Bot Reason",
  );
  expect(line).toContain(clickId!);
  expect(line).toContain("Spring sweeps");
  expect(line).toContain("Spring US & CA");
  await ctx.close();
});

/** A GET to the server as `host` (a tracking domain is any host of this Worker that is not an app host). */
function getAs(host: string, pathname: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(pathname, h.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: "127.0.0.1", port: url.port, path: url.pathname, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the build's files come from the asset server with their headers, the app's pages from the Worker, and a tracking domain gets no page", async () => {
  const list = JSON.parse(readFileSync(path.join(ROOT, "dist", "client", "route-preloads.json"), "utf8")) as Record<string, string[]>;
  const script = list["/clicks"]!.find((f) => f.endsWith(".js"))!;
  const app = new URL(h.url).host;
  for (const host of [app, "go.tracking-domain.test"]) {
    const file = await getAs(host, script);
    expect(file.status, host).toBe(200);
    expect(file.headers["content-type"], host).toMatch(/^text\/javascript/);
    expect(file.headers["x-content-type-options"], host).toBe("nosniff");
    expect(file.headers.etag, host).toBeTruthy();
    // A name the build does not have is no page, on any host, and nothing a browser would keep.
    const missing = await getAs(host, "/assets/missing-AbCd1234.js");
    expect(missing.status, host).toBe(404);
    expect(missing.body, host).not.toContain("<html");
    for (const res of [file, missing]) expect(res.headers["cache-control"] ?? "", host).not.toMatch(/immutable|max-age=[1-9]/);
  }
  // The app's pages come from the Worker, with its headers; a tracking domain's is a plain 404.
  const page = await getAs(app, "/clicks");
  expect(page.status).toBe(200);
  expect(page.body).toContain('<div id="root">');
  expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
  expect(page.headers["cache-control"]).not.toContain("immutable");
  for (const pathname of ["/", "/clicks", "/favicon.svg", "/_headers"]) {
    const other = await getAs("go.tracking-domain.test", pathname);
    expect(other.status, pathname).toBe(404);
    expect(other.body, pathname).toBe("Not found");
  }
  expect((await getAs(app, "/_headers")).body).not.toContain("immutable");
});
