/**
 * TikTok Business API: spend, impressions, clicks and conversions per campaign per day
 * (docs/integrations.md). `report/integrated/get/` answers HTTP 200 almost always, with a
 * `code` that says what went wrong; metric values are strings and may be "-". A request with
 * the `stat_time_day` dimension covers at most 30 days; days are the advertiser's own.
 */
import { splitDays } from "../lib/calendar-days";
import { decimalToCents } from "../lib/money";
import type { AdGroupOutcome } from "../schemas/rules";
import { ExternalApiError, isRecord, readJson, send, withApiRetries, type HttpOptions } from "./http";

export const TIKTOK_REPORT_PATH = "/open_api/v1.3/report/integrated/get/";
export const TIKTOK_MAX_DAYS_PER_CALL = 30;
export const TIKTOK_MAX_PAGE_SIZE = 1000;
const MAX_PAGES = 500;

export interface TikTokConfig {
  /** https://business-api.tiktok.com, or a local fake. */
  baseUrl: string;
  accessToken: string;
}

export interface TikTokClientOptions extends HttpOptions {
  pageSize?: number;
}

export interface TikTokCampaignDay {
  date: string;
  campaignId: string;
  campaignName: string;
  spendCents: number;
  impressions: number;
  clicks: number;
  conversions: number;
}

/**
 * TikTok's error codes as messages an admin can act on. Rate limits and server-side trouble are
 * worth retrying; token and permission problems are not.
 */
export function tiktokError(code: number, message: string, advertiserId: string): ExternalApiError {
  const theirs = message ? ` (TikTok: ${message})` : "";
  const make = (text: string, retryable = false) => new ExternalApiError("TikTok", `${text}${theirs}`, retryable, String(code));
  switch (code) {
    case 40100:
    case 40016:
    case 40133:
      return make("TikTok's rate limit was reached; the sync will try again later", true);
    case 40102:
      return make("The TikTok access token has expired: create a new one and update TIKTOK_ACCESS_TOKEN");
    case 40104:
      return make("TikTok received no access token: set TIKTOK_ACCESS_TOKEN");
    case 40105:
      return make("The TikTok access token is not valid: check TIKTOK_ACCESS_TOKEN");
    case 40001:
      return make(`The TikTok access token has no permission to read the reports of advertiser ${advertiserId}`);
  }
  if (code >= 50000 && code < 60000) return make(`TikTok had a temporary problem (code ${code}); retry later`, true);
  return make(`TikTok refused the report for advertiser ${advertiserId} (code ${code})`);
}

/** A metric as TikTok sends it: a decimal string, "-" when there is nothing (read as 0). */
function count(value: unknown, name: string): number {
  if (value === undefined || value === null || value === "-" || value === "") return 0;
  const n = typeof value === "number" ? value : Number(String(value).replace(/,/g, ""));
  if (!Number.isFinite(n) || n < 0) throw new ExternalApiError("TikTok", `TikTok sent a ${name} that is not a number: ${JSON.stringify(value)}`);
  // Conversions can be fractional with some attribution settings; the table counts whole ones.
  return Math.round(n);
}

function spendCents(value: unknown): number {
  if (value === undefined || value === null || value === "-" || value === "") return 0;
  const cents = decimalToCents(value, "round");
  if (cents === null) throw new ExternalApiError("TikTok", `TikTok sent a spend that is not an amount: ${JSON.stringify(value)}`);
  return cents;
}

export function parseReportRow(row: unknown): TikTokCampaignDay {
  const bad = (what: string) => new ExternalApiError("TikTok", `TikTok sent a report row ${what}`);
  if (!isRecord(row) || !isRecord(row.dimensions)) throw bad("without dimensions");
  const metrics = isRecord(row.metrics) ? row.metrics : {};
  const campaignId = row.dimensions.campaign_id;
  if ((typeof campaignId !== "string" && typeof campaignId !== "number") || String(campaignId) === "") throw bad("without a campaign_id");
  const day = String(row.dimensions.stat_time_day ?? "");
  if (!/^\d{4}-\d{2}-\d{2}( 00:00:00)?$/.test(day)) throw bad(`whose stat_time_day is not a day: ${JSON.stringify(row.dimensions.stat_time_day)}`);
  const name = metrics.campaign_name;
  return {
    date: day.slice(0, 10),
    campaignId: String(campaignId),
    campaignName: typeof name === "string" && name !== "-" ? name : "",
    spendCents: spendCents(metrics.spend),
    impressions: count(metrics.impressions, "impressions count"),
    clicks: count(metrics.clicks, "clicks count"),
    conversions: count(metrics.conversion, "conversion count"),
  };
}

/** The inclusive day range in pieces of at most 30 days. */
export const tiktokWindows = (startDate: string, endDate: string) => splitDays(startDate, endDate, TIKTOK_MAX_DAYS_PER_CALL);

export function createTikTokClient(config: TikTokConfig, options: TikTokClientOptions = {}) {
  const pageSize = Math.min(options.pageSize ?? TIKTOK_MAX_PAGE_SIZE, TIKTOK_MAX_PAGE_SIZE);
  const base = config.baseUrl.replace(/\/+$/, "");

  async function page(advertiserId: string, start: string, end: string, pageNo: number) {
    const url = new URL(base + TIKTOK_REPORT_PATH);
    const q = url.searchParams;
    q.set("advertiser_id", advertiserId);
    q.set("report_type", "BASIC");
    q.set("data_level", "AUCTION_CAMPAIGN");
    q.set("dimensions", JSON.stringify(["campaign_id", "stat_time_day"]));
    q.set("metrics", JSON.stringify(["spend", "impressions", "clicks", "conversion", "campaign_name"]));
    q.set("start_date", start);
    q.set("end_date", end);
    q.set("page", String(pageNo));
    q.set("page_size", String(pageSize));
    return withApiRetries(async () => {
      const res = await send("TikTok", url, { headers: { "Access-Token": config.accessToken, accept: "application/json" } }, options);
      const body = await readJson("TikTok", res);
      const code = isRecord(body) && body.code !== null && body.code !== "" ? Number(body.code) : Number.NaN;
      if (Number.isInteger(code) && code !== 0) {
        throw tiktokError(code, isRecord(body) && typeof body.message === "string" ? body.message : "", advertiserId);
      }
      if (!res.ok) {
        throw new ExternalApiError("TikTok", `TikTok answered HTTP ${res.status}`, res.status >= 500 || res.status === 429);
      }
      if (!isRecord(body) || code !== 0 || !isRecord(body.data)) {
        throw new ExternalApiError("TikTok", "TikTok answered with an unexpected shape (no code 0 and data)");
      }
      const list = body.data.list ?? [];
      if (!Array.isArray(list)) throw new ExternalApiError("TikTok", "TikTok answered with an unexpected shape (data.list is not a list)");
      const info = isRecord(body.data.page_info) ? body.data.page_info : {};
      const totalPage = Number(info.total_page);
      return { rows: list.map(parseReportRow), totalPage: Number.isInteger(totalPage) && totalPage >= 0 ? totalPage : null };
    }, options);
  }

  return {
    /** Each campaign's metrics per day of startDate..endDate (inclusive, the advertiser's days). */
    async campaignDays(advertiserId: string, startDate: string, endDate: string): Promise<TikTokCampaignDay[]> {
      const out: TikTokCampaignDay[] = [];
      for (const window of tiktokWindows(startDate, endDate)) {
        for (let pageNo = 1; ; pageNo++) {
          if (pageNo > MAX_PAGES) throw new ExternalApiError("TikTok", `TikTok kept sending report pages past ${MAX_PAGES}; stopped`);
          const { rows, totalPage } = await page(advertiserId, window.start, window.end, pageNo);
          out.push(...rows);
          // Without page_info, a short page is the last one.
          const last = totalPage === null ? rows.length < pageSize : pageNo >= totalPage;
          if (last || rows.length === 0) break;
        }
      }
      return out;
    },
  };
}

export type TikTokClient = ReturnType<typeof createTikTokClient>;

// ---- ad group status (docs/rules.md "Pausing and resuming TikTok ad groups") --------------------

export const TIKTOK_ADGROUP_GET_PATH = "/open_api/v1.3/adgroup/get/";
export const TIKTOK_ADGROUP_STATUS_PATH = "/open_api/v1.3/adgroup/status/update/";
/** TikTok takes 1 to 20 ad groups per status call. */
export const TIKTOK_MAX_ADGROUPS_PER_STATUS_CALL = 20;
/** adgroup/get filters on at most 100 ids per page. */
const TIKTOK_MAX_ADGROUPS_PER_GET = 100;
/** A 5xx is tried once more; a rate limit or a token problem is not (the firing reports it). */
const STATUS_RETRY_DELAY_MS = 2_000;

export type AdGroupOperation = "DISABLE" | "ENABLE";

/** What a refused status call means for the admin reading the firing. */
export function statusCallError(code: number, message: string): ExternalApiError {
  const theirs = message ? ` (TikTok: ${message})` : "";
  const make = (text: string, retryable = false) => new ExternalApiError("TikTok", `${text}${theirs}`, retryable, String(code));
  if (code === 40100) return make("TikTok's rate limit was reached: not changed; the rule acts again when it next fires");
  if (code === 40001) return make("The TikTok access token has no permission on this advertiser's ad groups: not changed");
  if (code === 40105) return make("The TikTok access token is not valid: not changed; check TIKTOK_ACCESS_TOKEN");
  if (code === 40102) return make("The TikTok access token has expired: not changed");
  if (code >= 50000 && code < 60000) return make(`TikTok had a temporary problem (code ${code}): not changed`, true);
  return make(`TikTok refused the change (code ${code})`);
}

const codeOf = (err: unknown) => (err instanceof ExternalApiError && err.code !== undefined && /^\d+$/.test(err.code) ? Number(err.code) : null);

/**
 * Pauses (DISABLE) or resumes (ENABLE) ad groups. Which advertiser holds an ad group, and its
 * status now, come from adgroup/get first: our clicks know the ad group id but not its
 * advertiser, and an ad group already paused by hand is then reported as such instead of being
 * sent again. The status call takes 1-20 ad groups, so the ids go in chunks.
 */
export function createAdGroupStatusClient(config: TikTokConfig, advertiserIds: string[], options: HttpOptions = {}) {
  const base = config.baseUrl.replace(/\/+$/, "");
  // Exactly one retry, whatever the caller's retry list: only its first delay is taken.
  const retries: HttpOptions = { ...options, retryDelaysMs: [options.retryDelaysMs?.[0] ?? STATUS_RETRY_DELAY_MS] };

  async function exchange(url: URL, init: RequestInit): Promise<Record<string, unknown>> {
    return withApiRetries(async () => {
      const headers = { "Access-Token": config.accessToken, accept: "application/json", ...(init.body ? { "content-type": "application/json" } : {}) };
      const res = await send("TikTok", url, { ...init, headers }, options);
      if (res.status >= 500) throw new ExternalApiError("TikTok", `TikTok answered HTTP ${res.status}: not changed`, true, String(res.status));
      const body = await readJson("TikTok", res);
      const code = isRecord(body) ? Number(body.code) : Number.NaN;
      if (!isRecord(body) || !Number.isInteger(code)) throw new ExternalApiError("TikTok", `TikTok answered HTTP ${res.status} without a code`);
      if (code !== 0) throw statusCallError(code, typeof body.message === "string" ? body.message : "");
      return isRecord(body.data) ? body.data : {};
    }, retries);
  }

  /** The ad groups of `ids` this advertiser holds, with their operation_status. */
  async function lookUp(advertiserId: string, ids: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < ids.length; i += TIKTOK_MAX_ADGROUPS_PER_GET) {
      const url = new URL(base + TIKTOK_ADGROUP_GET_PATH);
      url.searchParams.set("advertiser_id", advertiserId);
      url.searchParams.set("filtering", JSON.stringify({ adgroup_ids: ids.slice(i, i + TIKTOK_MAX_ADGROUPS_PER_GET) }));
      url.searchParams.set("fields", JSON.stringify(["adgroup_id", "operation_status"]));
      url.searchParams.set("page_size", String(TIKTOK_MAX_ADGROUPS_PER_GET));
      const data = await exchange(url, { method: "GET" });
      for (const item of Array.isArray(data.list) ? data.list : []) {
        if (isRecord(item) && item.adgroup_id !== undefined) found.set(String(item.adgroup_id), String(item.operation_status ?? ""));
      }
    }
    return found;
  }

  return {
    async setStatus(adGroupIds: string[], operation: AdGroupOperation): Promise<AdGroupOutcome[]> {
      const answers = new Map<string, AdGroupOutcome>();
      let remaining = [...new Set(adGroupIds)];
      let lookUpError: { code: number | null; message: string } | null = null;
      const toChange = new Map<string, string[]>();
      for (const advertiserId of advertiserIds) {
        if (!remaining.length) break;
        try {
          const found = await lookUp(advertiserId, remaining);
          for (const [id, status] of found) {
            if (status === operation) {
              const state = operation === "DISABLE" ? "paused" : "running";
              answers.set(id, {
                adGroupId: id,
                advertiserId,
                outcome: "already",
                code: 0,
                message: `Already ${state} (changed by hand or by an earlier firing)`,
              });
            } else {
              toChange.set(advertiserId, [...(toChange.get(advertiserId) ?? []), id]);
            }
          }
          remaining = remaining.filter((id) => !found.has(id));
        } catch (err) {
          lookUpError = { code: codeOf(err), message: err instanceof Error ? err.message : String(err) };
        }
      }
      for (const id of remaining) {
        answers.set(
          id,
          lookUpError
            ? { adGroupId: id, advertiserId: null, outcome: "failed", code: lookUpError.code, message: lookUpError.message }
            : { adGroupId: id, advertiserId: null, outcome: "not_found", code: null, message: "No configured advertiser has this ad group" },
        );
      }
      for (const [advertiserId, ids] of toChange) {
        for (let i = 0; i < ids.length; i += TIKTOK_MAX_ADGROUPS_PER_STATUS_CALL) {
          const chunk = ids.slice(i, i + TIKTOK_MAX_ADGROUPS_PER_STATUS_CALL);
          try {
            const body = JSON.stringify({ advertiser_id: advertiserId, adgroup_ids: chunk, operation_status: operation });
            await exchange(new URL(base + TIKTOK_ADGROUP_STATUS_PATH), { method: "POST", body });
            const done = operation === "DISABLE" ? "Paused" : "Resumed";
            for (const id of chunk) answers.set(id, { adGroupId: id, advertiserId, outcome: "done", code: 0, message: done });
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            for (const id of chunk) answers.set(id, { adGroupId: id, advertiserId, outcome: "failed", code: codeOf(err), message });
          }
        }
      }
      return adGroupIds.filter((id, i) => adGroupIds.indexOf(id) === i).map((id) => answers.get(id)!);
    },
  };
}

export type AdGroupStatusClient = ReturnType<typeof createAdGroupStatusClient>;
