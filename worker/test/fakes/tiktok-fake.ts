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

/** An answer to give instead of the real one; with `path`, only to the next request to that path. */
export type FakeTikTokFailure = ({ code: number; message: string } | { status: number; text: string }) & { path?: string };

export interface TikTokFakeOptions {
  accessToken?: string;
  /** Advertisers the token may read; others answer 40001. */
  advertiserIds?: string[];
  rows?: FakeTikTokRow[];
  /** Ad groups for adgroup/get and adgroup/status/update/ (docs/rules.md): id → advertiser and status. */
  adGroups?: Record<string, { advertiserId: string; status: "ENABLE" | "DISABLE" }>;
}

export const TIKTOK_FAKE_PATH = "/open_api/v1.3/report/integrated/get/";
export const TIKTOK_FAKE_ADGROUP_GET_PATH = "/open_api/v1.3/adgroup/get/";
export const TIKTOK_FAKE_ADGROUP_STATUS_PATH = "/open_api/v1.3/adgroup/status/update/";

let requestCounter = 0;

export function createTikTokFake(options: TikTokFakeOptions = {}) {
  const state = {
    accessToken: options.accessToken ?? "tiktok-test-token",
    /** A token TikTok still recognises but no longer accepts. */
    expiredTokens: new Set<string>(),
    advertiserIds: new Set(options.advertiserIds ?? ["7000000000001"]),
    rows: [...(options.rows ?? [])],
    adGroups: new Map(Object.entries(options.adGroups ?? {})),
    failures: [] as FakeTikTokFailure[],
    requests: [] as { path: string; params: Record<string, string>; token: string | null }[],
  };

  const answer = (code: number, message: string, data: unknown = {}) =>
    new Response(JSON.stringify({ code, message, request_id: `fake-${++requestCounter}`, data }), {
      status: 200,
      headers: { "content-type": "application/json" },
    });

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    // The trailing slash matters to TikTok's router.
    const known =
      (url.pathname === TIKTOK_FAKE_PATH && request.method === "GET") ||
      (url.pathname === TIKTOK_FAKE_ADGROUP_GET_PATH && request.method === "GET") ||
      (url.pathname === TIKTOK_FAKE_ADGROUP_STATUS_PATH && request.method === "POST");
    if (!known) return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
    let params: Record<string, string> = Object.fromEntries(url.searchParams);
    if (request.method === "POST") {
      try {
        const body = (await request.json()) as Record<string, unknown>;
        params = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
      } catch {
        return answer(40002, "The request body is not JSON.");
      }
    }
    const token = request.headers.get("Access-Token");
    state.requests.push({ path: url.pathname, params, token });

    const failureAt = state.failures.findIndex((f) => f.path === undefined || f.path === url.pathname);
    const failure = failureAt < 0 ? undefined : state.failures.splice(failureAt, 1)[0];
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
    if (url.pathname === TIKTOK_FAKE_ADGROUP_GET_PATH) return adGroupGet(advertiserId, params, invalid);
    if (url.pathname === TIKTOK_FAKE_ADGROUP_STATUS_PATH) return adGroupStatus(advertiserId, params, invalid);
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

  /** adgroup/get: the advertiser's ad groups among filtering.adgroup_ids, with operation_status. */
  function adGroupGet(advertiserId: string, params: Record<string, string>, invalid: (what: string) => Response) {
    let ids: unknown;
    try {
      ids = (JSON.parse(params.filtering ?? "{}") as { adgroup_ids?: unknown }).adgroup_ids;
    } catch {
      return invalid("filtering: Invalid JSON.");
    }
    const wanted = Array.isArray(ids) ? ids.map(String) : null;
    const list = [...state.adGroups]
      .filter(([id, g]) => g.advertiserId === advertiserId && (!wanted || wanted.includes(id)))
      .map(([id, g]) => ({ adgroup_id: id, operation_status: g.status }));
    return answer(0, "OK", { list, page_info: { page: 1, page_size: list.length, total_number: list.length, total_page: 1 } });
  }

  /** adgroup/status/update/: 1-20 of the advertiser's ad groups to DISABLE or ENABLE. */
  function adGroupStatus(advertiserId: string, params: Record<string, string>, invalid: (what: string) => Response) {
    const ids = JSON.parse(params.adgroup_ids ?? "null") as unknown;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 20) return invalid("adgroup_ids: Length must be between 1 and 20.");
    const status = params.operation_status;
    if (status !== "ENABLE" && status !== "DISABLE") return invalid("operation_status: Invalid value.");
    for (const id of ids.map(String)) {
      const g = state.adGroups.get(id);
      if (!g || g.advertiserId !== advertiserId) return invalid(`adgroup_ids: Ad group ${id} does not exist.`);
    }
    for (const id of ids.map(String)) state.adGroups.set(id, { advertiserId, status });
    return answer(0, "OK", { adgroup_ids: ids.map(String), status });
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
