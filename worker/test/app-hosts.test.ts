import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import { DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
import { clicksWritten, db } from "./helpers";
import { POSTBACK_TOKEN, configuredEnv } from "./performance-helpers";

/** A tracking domain: a custom domain of this Worker that is not an app host. */
const TRACKING = "https://go.brand-hosts.test";

/** The built React app as Workers Static Assets would answer (the test Worker may have no build). */
const spaRequests: string[] = [];
const assets = {
  fetch: async (input: RequestInfo | URL) => {
    spaRequests.push(new Request(input).url);
    return new Response("<!doctype html><title>Trackyard</title>", { headers: { "content-type": "text/html; charset=utf-8" } });
  },
} as unknown as Fetcher;

/** The deployed Worker's vars (wrangler.toml: APP_HOSTS empty, WORKER_NAME trackyard), with `vars` over them. */
const deployed = (vars: Partial<Bindings> = {}): Bindings => ({ ...configuredEnv(), ASSETS: assets, APP_HOSTS: "", WORKER_NAME: "trackyard", ...vars });

async function visit(url: string, bindings: Bindings = deployed(), init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { redirect: "manual", ...init }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  await clicksWritten();
  return res;
}

/** The tracking domain's answer to anything but a tracking route: a plain 404, no page, no redirect, no cookie. */
async function expectPlainNotFound(res: Response, what: string) {
  expect(res.status, what).toBe(404);
  expect(res.headers.get("content-type"), what).toBe("text/plain; charset=utf-8");
  expect(res.headers.get("location"), what).toBeNull();
  expect(res.headers.get("set-cookie"), what).toBeNull();
  expect(res.headers.get("cache-control"), what).toBe("no-store");
  expect(await res.text(), what).toBe("Not found");
}

async function campaignWithOffer() {
  const database = db();
  const lander = await insertLander(database, { name: "Hosts lander", url: "https://lander-hosts.test/lp" }).get();
  const offer = await insertOffer(database, { name: "Hosts offer", url: "https://offer-hosts.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE }).get();
  const campaign = await insertCampaign(database, { name: "Hosts campaign", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
  return campaign.id;
}

let logs: string[];
beforeEach(() => {
  spaRequests.length = 0;
  logs = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    logs.push(args.map(String).join(" "));
  });
});
afterEach(() => vi.restoreAllMocks());

describe("a tracking domain", () => {
  it("answers everything but the tracking routes with a plain 404: no app, no sign-in, no API, no postback", async () => {
    const paths = [
      "/",
      "/auth",
      "/codes",
      "/api/user",
      "/api/setup",
      "/assets/index-3f9a1c.js",
      "/favicon.ico",
      `/postback/cake?token=${POSTBACK_TOKEN}&leadid=L-hosts&oid=1&price=1`,
    ];
    for (const path of paths) await expectPlainNotFound(await visit(`${TRACKING}${path}`), path);
    const login = await visit(`${TRACKING}/api/login`, deployed(), {
      method: "POST",
      headers: { "content-type": "application/json", origin: TRACKING },
      body: JSON.stringify({ username: "admin", password: "whatever-it-is" }),
    });
    await expectPlainNotFound(login, "POST /api/login");
    expect(spaRequests).toEqual([]);
  }, 30_000);

  it("still serves the tracking routes: the redirect of a real campaign, the exit and the exit script", async () => {
    const campaignId = await campaignWithOffer();
    const redirect = await visit(`${TRACKING}/r/${campaignId}?cid=1799`);
    expect(redirect.status).toBe(302);
    const lander = new URL(redirect.headers.get("location")!);
    expect(lander.origin + lander.pathname).toBe("https://lander-hosts.test/lp");
    const clickId = lander.searchParams.get("clickId")!;

    const exit = await visit(`${TRACKING}/click?clickId=${clickId}&cid=${campaignId}`);
    expect(exit.status).toBe(302);
    expect(exit.headers.get("location")).toMatch(/^https:\/\/offer-hosts\.test\/go\?/);

    const script = await visit(`${TRACKING}/exit-tracker.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // The unknown campaign keeps the tracking routes' own 404 page.
    expect((await visit(`${TRACKING}/r/999999999`)).status).toBe(404);
  }, 30_000);
});

describe("the app's own hosts", () => {
  /** The app answers: the React app for a screen, JSON from the API. */
  async function expectApp(origin: string, bindings: Bindings = deployed()) {
    const page = await visit(`${origin}/auth`, bindings);
    expect(page.status, origin).toBe(200);
    expect(await page.text(), origin).toContain("<title>Trackyard</title>");
    const setup = await visit(`${origin}/api/setup`, bindings);
    expect(setup.status, origin).toBe(200);
    expect(await setup.json(), origin).toHaveProperty("needsSetup");
    const user = await visit(`${origin}/api/user`, bindings);
    expect(user.status, origin).toBe(401);
  }

  it("serves the app on the Worker's workers.dev host and its version URLs with APP_HOSTS unset, and on this machine", async () => {
    for (const origin of [
      "https://trackyard.acme-team.workers.dev",
      "https://a1b2c3d4-trackyard.acme-team.workers.dev",
      "https://staging-trackyard.acme-team.workers.dev",
      "http://localhost:8787",
      "http://127.0.0.1:5173",
      "http://[::1]:8787",
    ])
      await expectApp(origin);
    expect(logs.filter((l) => l.startsWith("app hosts:"))).toEqual([]);
  }, 30_000);

  it("takes the workers.dev host from WORKER_NAME: another Worker's name there is not an app host, and the log says why", async () => {
    await expectPlainNotFound(await visit("https://other-app.acme-team.workers.dev/auth"), "another name");
    await expectPlainNotFound(await visit("https://trackyard.workers.dev/auth"), "no account subdomain");
    expect(logs.join("\n")).toContain('other-app.acme-team.workers.dev is not an app host because WORKER_NAME is "trackyard"');
    await expectApp("https://trackyard-eu.acme-team.workers.dev", deployed({ WORKER_NAME: "trackyard-eu" }));
  }, 30_000);

  it("serves the app on the hosts APP_HOSTS lists, however they are written, and on no other custom domain", async () => {
    const bindings = deployed({ APP_HOSTS: " App.Brand-Hosts.test , https://admin.brand-hosts.test/, ops.brand-hosts.test:8443,," });
    for (const origin of ["https://app.brand-hosts.test", "https://admin.brand-hosts.test", "https://ops.brand-hosts.test"]) await expectApp(origin, bindings);
    await expectPlainNotFound(await visit(`${TRACKING}/auth`, bindings), "unlisted");
    // Unset (the deployed default), a custom app domain is a tracking domain until it is listed.
    await expectPlainNotFound(await visit("https://app.brand-hosts.test/auth"), "not listed yet");
  }, 30_000);

  it("takes the CAKE postback on the app's hosts only", async () => {
    const leadid = `L-${crypto.randomUUID()}`;
    const query = `/postback/cake?token=${POSTBACK_TOKEN}&leadid=${leadid}&oid=11&price=4.00&s1=mb-hosts`;
    await expectPlainNotFound(await visit(`${TRACKING}${query}`), "tracking domain");
    const res = await visit(`https://trackyard.acme-team.workers.dev${query}`);
    expect(res.status).toBe(200);
    // The tracking domain's call counted nothing: this one is the first.
    expect(await res.json()).not.toMatchObject({ result: "duplicate" });
  }, 30_000);
});

describe("a screen's document", () => {
  const INDEX = '<!doctype html><html><head><title>Trackyard</title><script type="module" src="/assets/index-1a2b.js"></script></head><body></body></html>';

  /**
   * Built assets with the route list the build writes (scripts/lib/route-preloads-plugin.mjs), as
   * the asset server answers with wrangler.toml's `not_found_handling = "none"`: a name it has no
   * file for is a 404, with no page in its place.
   */
  function builtAssets(list: unknown) {
    const requests: string[] = [];
    const fetcher = {
      fetch: async (input: RequestInfo | URL) => {
        const url = new URL(new Request(input).url);
        requests.push(url.pathname);
        if (url.pathname === "/route-preloads.json") return Response.json(list);
        if (url.pathname === "/")
          return new Response(INDEX, { headers: { "content-type": "text/html; charset=utf-8", "content-length": String(INDEX.length), etag: '"index"' } });
        if (url.pathname.includes("missing")) return new Response(null, { status: 404 });
        if (url.pathname.endsWith(".css")) return new Response("a{}", { headers: { "content-type": "text/css; charset=utf-8" } });
        if (url.pathname.startsWith("/assets/") || url.pathname === "/favicon.svg")
          return new Response("export {};", { headers: { "content-type": "text/javascript" } });
        return new Response(null, { status: 404 });
      },
    } as unknown as Fetcher;
    return { fetcher, requests };
  }
  const LIST = {
    "/": ["/assets/stats-screen-9f8e.js", "/assets/vendor-7d6c.js"],
    "/clicks": ["/assets/clicks-screen-5b4a.js", "/assets/vendor-7d6c.js", "/assets/vendor-3e2f.css"],
  };

  it("names the screen's chunks as modulepreload links and their styles as stylesheets in the head, and keeps the security headers", async () => {
    const { fetcher } = builtAssets(LIST);
    const res = await visit("http://localhost:8787/clicks?startDate=2026-11-20", deployed({ ASSETS: fetcher }));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(
      '<link rel="modulepreload" crossorigin href="/assets/clicks-screen-5b4a.js"><link rel="modulepreload" crossorigin href="/assets/vendor-7d6c.js">' +
        '<link rel="stylesheet" crossorigin href="/assets/vendor-3e2f.css"></head>',
    );
    expect(html).not.toContain("stats-screen");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-length")).toBeNull();
    expect(res.headers.get("etag")).toBeNull();
    // Other documents and the assets themselves go out as they are.
    expect(await (await visit("http://localhost:8787/auth", deployed({ ASSETS: fetcher }))).text()).toBe(INDEX);
    expect(await (await visit("http://localhost:8787/assets/vendor-7d6c.js", deployed({ ASSETS: fetcher }))).text()).toBe("export {};");
  }, 30_000);

  it("sends the document as it is when the list is missing or holds anything but asset scripts", async () => {
    for (const list of [[], { "/": ['/assets/x.js"><script>alert(1)</script>'] }, { "/": "/assets/x.js" }, { "/": ["/assets/x.svg"] }]) {
      const { fetcher } = builtAssets(list);
      expect(await (await visit("http://localhost:8787/", deployed({ ASSETS: fetcher }))).text(), JSON.stringify(list)).toBe(INDEX);
    }
  }, 30_000);

  it("answers a screen's URL with the app's page, which the asset server has no file for", async () => {
    const { fetcher, requests } = builtAssets(LIST);
    const bindings = deployed({ ASSETS: fetcher });
    for (const path of ["/offers?page=2", "/auth", "/no-such-screen"]) {
      const res = await visit(`http://localhost:8787${path}`, bindings);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(INDEX);
      expect(res.headers.get("x-frame-options"), path).toBe("SAMEORIGIN");
    }
    // Asked for the path first, then for the page, with the request's own method and headers.
    expect(requests.filter((p) => p !== "/route-preloads.json")).toEqual(["/offers", "/", "/auth", "/", "/no-such-screen", "/"]);
    expect((await visit("http://localhost:8787/auth", bindings, { method: "HEAD" })).status).toBe(200);
    // A file it has goes out as it is, and a write to a path it has no file for is no page.
    expect(await (await visit("http://localhost:8787/favicon.svg", bindings)).text()).toBe("export {};");
    expect((await visit("http://localhost:8787/no-such-screen", bindings, { method: "POST", headers: { origin: "http://localhost:8787" } })).status).toBe(404);
  }, 30_000);

  it("is no part of a tracking domain's answer: a plain 404, the assets never asked", async () => {
    const { fetcher, requests } = builtAssets(LIST);
    await expectPlainNotFound(await visit(`${TRACKING}/clicks`, deployed({ ASSETS: fetcher })), "/clicks");
    expect(requests).toEqual([]);
  }, 30_000);
});
