import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { prefetch as billingPrefetch } from "@/features/billing/prefetch";
import { prefetch as clicksPrefetch } from "@/features/clicks/prefetch";
import { TABS, VARIABLES } from "@/features/stats/groupings";
import { prefetch as statsPrefetch } from "@/features/stats/prefetch";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";
import { callKey } from "../../../worker/src/boot-parts";
import { screenCalls } from "../../../worker/src/lib/screen-calls";
import { STATS_TABS, STATS_VARIABLES } from "../../../worker/src/schemas/stats";
import { api, primeAnswers, unwrap } from "./api";

const ZONE = "Asia/Manila";

/** The calls a screen's route loader makes for `href` (the app's own code), each as its callKey. */
async function loaderCalls(href: string): Promise<string[]> {
  const made: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input), "http://localhost");
      made.push(callKey(url.pathname, url.searchParams));
      return Response.json({});
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(reportTimeZoneQuery.queryKey, { timeZone: ZONE, today: dayInZone(Date.now(), ZONE) });
  const url = new URL(href, "http://localhost");
  const prefetch = url.pathname === "/" ? statsPrefetch : url.pathname === "/clicks" ? clicksPrefetch : billingPrefetch;
  await prefetch(client, url);
  return made.sort();
}

/** The same screen's first calls as the Worker works them out for its document. */
const workerCalls = (href: string) =>
  screenCalls(new URL(href, "http://localhost"), dayInZone(Date.now(), ZONE))
    .map((c) => callKey(c.path, c.query))
    .sort();

afterEach(() => vi.unstubAllGlobals());

describe("a screen's first calls, as the Worker works them out for its document", () => {
  // Defaults, every filter each screen's URL holds, and parameters the schemas refuse or that say "all".
  const links = [
    "/",
    "/?startDate=2026-11-01&endDate=2026-11-20&tab=offer&sort=visits&dir=asc",
    "/?tab=lander&variable=placement&offerId=5&sparkId=none&mediaBuyer=anna&campaignId=7&includeBots=true&campaignName=Spring",
    "/?tab=weather&offerId=x&startDate=2026-02-31&includeBots=maybe",
    // A grouping the API has but the screen offers as no tab or variable.
    "/?tab=placement",
    "/?tab=offer&variable=country",
    "/clicks",
    "/clicks?startDate=2026-11-01&endDate=2026-11-10&campaignId=3&bot=bots&country=US&device=Mobile&os=iOS&browser=Safari&page=2",
    "/clicks?country=all&page=abc&campaignId=-1&bot=robots&utm=1",
    "/billing",
    "/billing?status=cleared&vcnLast4=123&minAmount=10&maxAmount=99.5&page=3",
    "/billing?status=all&vcnLast4=all&minAmount=ten&page=0",
  ];
  for (const link of links) {
    it(`are the calls the app makes for ${link}`, async () => {
      expect(await loaderCalls(link)).toEqual(workerCalls(link));
    });
  }

  it("read Stats' tabs and variables as the screen offers them", () => {
    expect(TABS.map((t) => t.value)).toEqual([...STATS_TABS]);
    expect(VARIABLES.map((v) => v.value)).toEqual([...STATS_VARIABLES]);
  });

  it("are none for the other screens", () => {
    for (const path of ["/offers", "/codes", "/clicks/archive", "/auth"])
      expect(screenCalls(new URL(path, "http://localhost"), "2026-11-27"), path).toEqual([]);
  });
});

describe("an answer that came in the document", () => {
  const fetch = vi.fn(async () => Response.json({ from: "network" }));

  it("answers the first request with exactly its path and query, once; any other goes out", async () => {
    vi.stubGlobal("fetch", fetch);
    primeAnswers([{ path: "/api/transactions", query: { page: "2", status: "CLEARED" }, answer: { from: "page" } }], Date.now());
    // Another query goes out, and leaves the answer in place.
    expect(await unwrap(api.transactions.$get({ query: { page: "3", status: "CLEARED" } }))).toEqual({ from: "network" });
    expect(fetch).toHaveBeenCalledTimes(1);
    // The same call with its query in another order is the same call.
    expect(await unwrap(api.transactions.$get({ query: { status: "CLEARED", page: "2" } }))).toEqual({ from: "page" });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(await unwrap(api.transactions.$get({ query: { page: "2", status: "CLEARED" } }))).toEqual({ from: "network" });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("is used only in the page's first ten seconds", async () => {
    vi.stubGlobal("fetch", fetch);
    fetch.mockClear();
    primeAnswers([{ path: "/api/user/preferences", query: {}, answer: { from: "page" } }], Date.now() - 11_000);
    expect(await unwrap(api.user.preferences.$get())).toEqual({ from: "network" });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("is dropped, unused, by any write (a sign-out, a save)", async () => {
    vi.stubGlobal("fetch", fetch);
    fetch.mockClear();
    primeAnswers([{ path: "/api/user/preferences", query: {}, answer: { from: "page" } }], Date.now());
    await unwrap(api.logout.$post());
    expect(await unwrap(api.user.preferences.$get())).toEqual({ from: "network" });
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
