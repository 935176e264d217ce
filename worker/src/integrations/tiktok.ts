/**
 * TikTok Business API: spend, impressions, clicks and conversions per campaign per day
 * (docs/integrations.md). `report/integrated/get/` answers HTTP 200 almost always, with a
 * `code` that says what went wrong; metric values are strings and may be "-". A request with
 * the `stat_time_day` dimension covers at most 30 days; days are the advertiser's own.
 */
import { splitDays } from "../lib/calendar-days";
import { decimalToCents } from "../lib/money";
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
