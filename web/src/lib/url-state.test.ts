import { describe, expect, it } from "vitest";
import { clicksSearchDefaults, clicksSearchSchema, clicksStateOf } from "@/features/clicks/url-state";
import { statsSearchDefaults, statsSearchSchema } from "@/features/stats/url-state";
import { parseSearch, patchSearch } from "./url-state";

const stats = (query: string) => parseSearch(statsSearchSchema, new URLSearchParams(query), statsSearchDefaults("2026-11-23"));

describe("a screen's state in the URL", () => {
  it("reads every parameter the API's schema accepts", () => {
    expect(stats("startDate=2026-11-01&endDate=2026-11-07&tab=offer&offerId=4&mediaBuyer=ana&includeBots=true&sort=profit&dir=asc")).toMatchObject({
      startDate: "2026-11-01",
      endDate: "2026-11-07",
      tab: "offer",
      offerId: 4,
      mediaBuyer: "ana",
      includeBots: true,
      sort: "profit",
      dir: "asc",
    });
  });

  it("falls back to the default for each bad or stale parameter, keeping the good ones", () => {
    const s = stats("startDate=2026-13-40&tab=weather&offerId=-3&sort=colour&sparkId=sp1&endDate=2026-11-20");
    expect(s).toMatchObject({ startDate: "2026-11-23", tab: "campaign", sort: "revenue", sparkId: "sp1" });
    expect(s.offerId).toBeUndefined();
    // endDate alone was fine, but with the default start it would end before it starts: both go.
    expect(s.endDate).toBe("2026-11-23");
    // A range over a year is refused by the API: the screen shows today instead of an error.
    expect(stats("startDate=2020-01-01&endDate=2026-11-23")).toMatchObject({ startDate: "2026-11-23", endDate: "2026-11-23" });
  });

  it("reads the Click Log's filters and page, the last 7 days by default", () => {
    const defaults = clicksSearchDefaults("2026-11-23");
    expect(clicksStateOf(parseSearch(clicksSearchSchema, new URLSearchParams(""), defaults))).toEqual({
      range: { startDate: "2026-11-17", endDate: "2026-11-23" },
      campaignId: "all",
      visitors: { bot: "all", country: "all", device: "all", os: "all", browser: "all" },
      page: 1,
    });
    const s = clicksStateOf(parseSearch(clicksSearchSchema, new URLSearchParams("campaignId=7&bot=human&country=PH&page=3&device=x"), defaults));
    expect(s).toMatchObject({ campaignId: "7", page: 3, visitors: { bot: "human", country: "PH", device: "x" } });
    expect(clicksStateOf(parseSearch(clicksSearchSchema, new URLSearchParams("page=zero&bot=robots"), defaults))).toMatchObject({
      page: 1,
      visitors: { bot: "all" },
    });
  });

  it("writes only what differs from the defaults, in a stable order", () => {
    const defaults = statsSearchDefaults("2026-11-23");
    const next = patchSearch(new URLSearchParams("tab=offer&sort=roi"), { tab: "campaign", offerId: 3, sparkId: null, dir: "asc" }, defaults);
    expect(next.toString()).toBe("dir=asc&offerId=3&sort=roi");
  });
});
