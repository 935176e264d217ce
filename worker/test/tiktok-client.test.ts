import { describe, expect, it } from "vitest";
import { createTikTokClient, tiktokWindows } from "../src/integrations/tiktok";
import { createTikTokFake, type FakeTikTokRow } from "./fakes/tiktok-fake";
import { externalFailure } from "./performance-helpers";

const ADVERTISER = "7000000000001";
const config = { baseUrl: "https://tiktok.test", accessToken: "tiktok-test-token" };
const noRetry = { retryDelaysMs: [] };

const row = (campaignId: string, date: string, extra: Partial<FakeTikTokRow> = {}): FakeTikTokRow => ({
  advertiserId: ADVERTISER,
  campaignId,
  campaignName: `Campaign ${campaignId}`,
  date,
  spend: "12.34",
  impressions: "1000",
  clicks: "40",
  conversion: "3",
  ...extra,
});

describe("TikTok client", () => {
  it("splits long ranges into requests of at most 30 days", () => {
    expect(tiktokWindows("2025-01-01", "2025-01-30")).toEqual([{ start: "2025-01-01", end: "2025-01-30" }]);
    expect(tiktokWindows("2025-01-01", "2025-03-01")).toEqual([
      { start: "2025-01-01", end: "2025-01-30" },
      { start: "2025-01-31", end: "2025-03-01" },
    ]);
  });

  it("follows every page of every window with the documented query", async () => {
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => row(`17000${i}`, "2025-01-05")),
      row("1800", "2025-02-10"),
      row("1900", "2025-03-10"), // outside the range asked for
    ];
    const fake = createTikTokFake({ rows });
    const days = await createTikTokClient(config, { fetch: fake.fetch, pageSize: 2 }).campaignDays(ADVERTISER, "2025-01-01", "2025-02-28");

    expect(days.map((d) => d.campaignId)).toEqual(["170000", "170001", "170002", "170003", "170004", "1800"]);
    expect(fake.state.requests.map((r) => [r.params.start_date, r.params.end_date, r.params.page, r.params.page_size])).toEqual([
      ["2025-01-01", "2025-01-30", "1", "2"],
      ["2025-01-01", "2025-01-30", "2", "2"],
      ["2025-01-01", "2025-01-30", "3", "2"],
      ["2025-01-31", "2025-02-28", "1", "2"],
    ]);
    expect(fake.state.requests[0]).toMatchObject({
      token: "tiktok-test-token",
      params: {
        advertiser_id: ADVERTISER,
        report_type: "BASIC",
        data_level: "AUCTION_CAMPAIGN",
        dimensions: '["campaign_id","stat_time_day"]',
        metrics: '["spend","impressions","clicks","conversion","campaign_name"]',
      },
    });
  });

  it("reads metric strings exactly and '-' as nothing", async () => {
    const fake = createTikTokFake({
      rows: [
        row("1", "2025-01-05", { spend: "1234.56", impressions: "98765", clicks: "321", conversion: "7" }),
        row("2", "2025-01-05", { spend: "-", impressions: "-", clicks: "-", conversion: "-", campaignName: "-" }),
        row("3", "2025-01-05", { spend: "0.29", conversion: "2.6" }),
      ],
    });
    const days = await createTikTokClient(config, { fetch: fake.fetch }).campaignDays(ADVERTISER, "2025-01-05", "2025-01-05");
    expect(days).toEqual([
      { date: "2025-01-05", campaignId: "1", campaignName: "Campaign 1", spendCents: 123456, impressions: 98765, clicks: 321, conversions: 7 },
      { date: "2025-01-05", campaignId: "2", campaignName: "", spendCents: 0, impressions: 0, clicks: 0, conversions: 0 },
      { date: "2025-01-05", campaignId: "3", campaignName: "Campaign 3", spendCents: 29, impressions: 1000, clicks: 40, conversions: 3 },
    ]);
  });

  it("maps each documented error code to a message an admin can act on", async () => {
    const cases: [number, string, boolean][] = [
      [40100, "TikTok's rate limit was reached; the sync will try again later", true],
      [40016, "TikTok's rate limit was reached; the sync will try again later", true],
      [40133, "TikTok's rate limit was reached; the sync will try again later", true],
      [40102, "The TikTok access token has expired: create a new one and update TIKTOK_ACCESS_TOKEN", false],
      [40104, "TikTok received no access token: set TIKTOK_ACCESS_TOKEN", false],
      [40105, "The TikTok access token is not valid: check TIKTOK_ACCESS_TOKEN", false],
      [40001, `The TikTok access token has no permission to read the reports of advertiser ${ADVERTISER}`, false],
      [50002, "TikTok had a temporary problem (code 50002); retry later", true],
      [40002, `TikTok refused the report for advertiser ${ADVERTISER} (code 40002)`, false],
    ];
    for (const [code, message, retryable] of cases) {
      const fake = createTikTokFake();
      fake.failNext({ code, message: "their words" });
      const err = await externalFailure(createTikTokClient(config, { fetch: fake.fetch, ...noRetry }).campaignDays(ADVERTISER, "2025-01-05", "2025-01-05"));
      expect(err.message, String(code)).toBe(`${message} (TikTok: their words)`);
      expect(err.retryable, String(code)).toBe(retryable);
      expect(err.code).toBe(String(code));
    }
  });

  it("gets the codes from the fake's own checks: wrong, expired and missing tokens, foreign advertisers", async () => {
    const fake = createTikTokFake();
    fake.state.expiredTokens.add("old-token");
    const read = (accessToken: string, advertiser = ADVERTISER) =>
      externalFailure(createTikTokClient({ ...config, accessToken }, { fetch: fake.fetch, ...noRetry }).campaignDays(advertiser, "2025-01-05", "2025-01-05"));
    expect((await read("old-token")).code).toBe("40102");
    expect((await read("forged")).code).toBe("40105");
    expect((await read("")).code).toBe("40104");
    expect((await read("tiktok-test-token", "123")).code).toBe("40001");
  });

  it("retries rate limits and temporary errors, then succeeds", async () => {
    const fake = createTikTokFake({ rows: [row("1", "2025-01-05")] });
    fake.failNext({ code: 40100, message: "Too many requests" }, { code: 51000, message: "busy" });
    const waits: number[] = [];
    const client = createTikTokClient(config, { fetch: fake.fetch, retryDelaysMs: [1, 2, 3], sleep: async (ms) => void waits.push(ms) });
    expect(await client.campaignDays(ADVERTISER, "2025-01-05", "2025-01-05")).toHaveLength(1);
    expect(waits).toEqual([1, 2]);
  });

  it("gives up on a rate limit after its retries", async () => {
    const fake = createTikTokFake({ rows: [row("1", "2025-01-05")] });
    fake.failNext(...Array.from({ length: 3 }, () => ({ code: 40100, message: "Too many requests" })));
    const client = createTikTokClient(config, { fetch: fake.fetch, retryDelaysMs: [0, 0], sleep: async () => {} });
    const err = await externalFailure(client.campaignDays(ADVERTISER, "2025-01-05", "2025-01-05"));
    expect(err.message).toBe("TikTok's rate limit was reached; the sync will try again later (TikTok: Too many requests)");
    expect(fake.state.requests).toHaveLength(3);
  });

  it("refuses malformed answers with clear messages", async () => {
    const client = (body: string, status = 200) =>
      createTikTokClient(config, { fetch: async () => new Response(body, { status }), ...noRetry }).campaignDays(ADVERTISER, "2025-01-05", "2025-01-05");
    expect((await externalFailure(client("<html>oops</html>", 500))).message).toBe(
      "TikTok answered HTTP 500 with something that is not JSON: <html>oops</html>",
    );
    expect((await externalFailure(client(""))).message).toBe("TikTok answered HTTP 200 with something that is not JSON (empty body)");
    expect((await externalFailure(client('{"code":0,"message":"OK"}'))).message).toBe("TikTok answered with an unexpected shape (no code 0 and data)");
    expect((await externalFailure(client('{"code":0,"data":{"list":{}}}'))).message).toBe("TikTok answered with an unexpected shape (data.list is not a list)");
    expect((await externalFailure(client('{"code":0,"data":{"list":[{"metrics":{}}]}}'))).message).toBe("TikTok sent a report row without dimensions");
    expect(
      (await externalFailure(client('{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"1","stat_time_day":"Jan 5"},"metrics":{}}]}}'))).message,
    ).toBe('TikTok sent a report row whose stat_time_day is not a day: "Jan 5"');
    expect(
      (
        await externalFailure(
          client('{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"1","stat_time_day":"2025-01-05 00:00:00"},"metrics":{"spend":"a lot"}}]}}'),
        )
      ).message,
    ).toBe('TikTok sent a spend that is not an amount: "a lot"');
  });

  it("stops at the last page when page_info is missing", async () => {
    let calls = 0;
    const list = [{ dimensions: { campaign_id: "9", stat_time_day: "2025-01-05 00:00:00" }, metrics: { spend: "1.00" } }];
    const client = createTikTokClient(config, {
      fetch: async () => {
        calls++;
        return Response.json({ code: 0, message: "OK", data: { list } });
      },
      pageSize: 5,
    });
    expect(await client.campaignDays(ADVERTISER, "2025-01-05", "2025-01-05")).toHaveLength(1);
    expect(calls).toBe(1);
  });
});
