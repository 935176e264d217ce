/**
 * A local stand-in for TikTok's `report/integrated/get/`, answering with the documented shapes
 * (docs/integrations.md): HTTP 200 with `{code, message, request_id, data}`, the error codes in
 * `code`, metric values as strings (possibly "-"), at most 30 days per request with the
 * `stat_time_day` dimension, and `page` / `page_size` (max 1000) paging with `page_info`.
 *
 * A plain fetch handler (`handle(Request)`), usable by the worker tests and, served over HTTP
 * from Node, by the browser test. No Worker-only APIs.
 */

export interface FakeTikTokRow {
  advertiserId: string;
  campaignId: string;
  campaignName: string;
  /** YYYY-MM-DD, the advertiser's day. */
  date: string;
  spend: string;
  impressions: string;
  clicks: string;
  conversion: string;
}

export type FakeTikTokFailure = { code: number; message: string } | { status: number; text: string };

export interface TikTokFakeOptions {
  accessToken?: string;
  /** Advertisers the token may read; others answer 40001. */
  advertiserIds?: string[];
  rows?: FakeTikTokRow[];
}

export const TIKTOK_FAKE_PATH = "/open_api/v1.3/report/integrated/get/";

let requestCounter = 0;

export function createTikTokFake(options: TikTokFakeOptions = {}) {
  const state = {
    accessToken: options.accessToken ?? "tiktok-test-token",
    /** A token TikTok still recognises but no longer accepts. */
    expiredTokens: new Set<string>(),
    advertiserIds: new Set(options.advertiserIds ?? ["7000000000001"]),
    rows: [...(options.rows ?? [])],
    failures: [] as FakeTikTokFailure[],
    requests: [] as { params: Record<string, string>; token: string | null }[],
  };

  const answer = (code: number, message: string, data: unknown = {}) =>
    new Response(JSON.stringify({ code, message, request_id: `fake-${++requestCounter}`, data }), {
      status: 200,
      headers: { "content-type": "application/json" },
    });

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    // The trailing slash matters to TikTok's router.
    if (url.pathname !== TIKTOK_FAKE_PATH || request.method !== "GET") {
      return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
    }
    const params = Object.fromEntries(url.searchParams);
    const token = request.headers.get("Access-Token");
    state.requests.push({ params, token });

    const failure = state.failures.shift();
    if (failure) {
      return "code" in failure
        ? answer(failure.code, failure.message)
        : new Response(failure.text, { status: failure.status, headers: { "content-type": "text/html" } });
    }

    if (!token) return answer(40104, "Access token is null, please check your request.");
    if (state.expiredTokens.has(token)) return answer(40102, "Access token has expired, please refresh it.");
    if (token !== state.accessToken) return answer(40105, "Access token is incorrect or has been revoked.");
    const advertiserId = params.advertiser_id ?? "";
    if (!state.advertiserIds.has(advertiserId)) return answer(40001, `No permission to operate advertiser ${advertiserId}.`);

    const invalid = (what: string) => answer(40002, what);
    if (params.report_type !== "BASIC") return invalid("report_type: Invalid value.");
    if (params.data_level !== "AUCTION_CAMPAIGN") return invalid("data_level: Invalid value.");
    let dimensions: unknown;
    let metrics: unknown;
    try {
      dimensions = JSON.parse(params.dimensions ?? "");
      metrics = JSON.parse(params.metrics ?? "");
    } catch {
      return invalid("dimensions and metrics must be JSON lists.");
    }
    if (JSON.stringify(dimensions) !== JSON.stringify(["campaign_id", "stat_time_day"])) return invalid("dimensions: Invalid value.");
    if (!Array.isArray(metrics) || !metrics.length) return invalid("metrics: Invalid value.");
    const start = params.start_date ?? "";
    const end = params.end_date ?? "";
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || end < start) return invalid("start_date and end_date: Invalid value.");
    const span = (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000 + 1;
    if (span > 30) return invalid("The time span between start_date and end_date cannot exceed 30 days when stat_time_day is a dimension.");
    const page = Number(params.page ?? "1");
    const pageSize = Number(params.page_size ?? "10");
    if (!Number.isInteger(page) || page < 1) return invalid("page: Invalid value.");
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return invalid("page_size: Must be between 1 and 1000.");

    const matching = state.rows.filter((r) => r.advertiserId === advertiserId && r.date >= start && r.date <= end);
    const list = matching.slice((page - 1) * pageSize, page * pageSize).map((r) => ({
      dimensions: { campaign_id: r.campaignId, stat_time_day: `${r.date} 00:00:00` },
      metrics: { spend: r.spend, impressions: r.impressions, clicks: r.clicks, conversion: r.conversion, campaign_name: r.campaignName },
    }));
    return answer(0, "OK", {
      list,
      page_info: { page, page_size: pageSize, total_number: matching.length, total_page: Math.ceil(matching.length / pageSize) },
    });
  }

  return {
    state,
    handle,
    fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)),
    failNext(...failures: FakeTikTokFailure[]) {
      state.failures.push(...failures);
    },
  };
}

export type TikTokFake = ReturnType<typeof createTikTokFake>;
