/**
 * The API calls a screen makes first for the URL it is opened at, worked out by the Worker for
 * the screen's document (lib/boot-data.ts), so their answers can travel in the page instead of
 * being asked for once the screen's code has run:
 * docs/screens.md "First load: the screen's data in its document".
 *
 * Each is the call the web app's own code makes for that URL: the screen's route loader reads the
 * URL with the same schemas and defaults (schemas/clicks.ts, schemas/stats.ts; the loaders in
 * web/src/features/{stats,clicks,billing}/prefetch.ts). The app uses an answer only for a request it makes with exactly this path and
 * query (web/src/lib/api.ts), so a call worked out differently here costs only the saving, never
 * a wrong answer; web/src/lib/screen-calls.test.ts holds the two to the same calls.
 */
import { clickLogDefaults, clickLogQuery } from "../schemas/clicks";
import { statsScreenDefaults, statsScreenSearch } from "../schemas/stats";
import { transactionListQuerySchema } from "../schemas/transactions";
import { parseSearch } from "./search-params";

/** One GET of the API: its path and its query, as the app sends them. */
export interface ScreenCall {
  path: string;
  query: Record<string, string>;
}

/** A filter the URL may hold, sent only when it narrows ("all" and absent are no filter). */
const narrowing = (name: string, value: string | number | undefined) => (value === undefined || value === "all" ? {} : { [name]: String(value) });

/** The Click Log: its page of clicks (web/src/features/clicks/api.ts `clickLogOptions`). */
function clickLogCalls(params: URLSearchParams, today: string): ScreenCall[] {
  const s = parseSearch(clickLogQuery, params, clickLogDefaults(today));
  const query = {
    startDate: s.startDate!,
    endDate: s.endDate!,
    ...narrowing("campaignId", s.campaignId),
    ...narrowing("bot", s.bot),
    ...narrowing("country", s.country),
    ...narrowing("device", s.device),
    ...narrowing("os", s.os),
    ...narrowing("browser", s.browser),
    page: String(s.page),
  };
  return [{ path: "/api/clicks", query }];
}

/** Stats: the report (web/src/features/stats/api.ts `reportQuery`) and the user's columns. */
function statsCalls(params: URLSearchParams, today: string): ScreenCall[] {
  const s = parseSearch(statsScreenSearch, params, statsScreenDefaults(today));
  const query = {
    startDate: s.startDate,
    endDate: s.endDate,
    groupBy: s.variable === "none" ? s.tab : s.variable,
    ...(s.offerId != null && { offerId: String(s.offerId) }),
    ...(s.sparkId != null && { sparkId: s.sparkId }),
    ...(s.mediaBuyer != null && { mediaBuyer: s.mediaBuyer }),
    ...(s.campaignId != null && { campaignId: String(s.campaignId) }),
    ...(s.includeBots && { includeBots: "true" }),
  };
  return [
    { path: "/api/stats/report", query },
    { path: "/api/user/preferences", query: {} },
  ];
}

/** Transactions: the page of the list and the VCN summary (web/src/features/billing/api.ts). */
function transactionCalls(params: URLSearchParams): ScreenCall[] {
  const s = parseSearch(transactionListQuerySchema, params, {});
  const query = {
    ...narrowing("status", s.status),
    ...narrowing("vcnLast4", s.vcnLast4),
    ...narrowing("minAmount", s.minAmount),
    ...narrowing("maxAmount", s.maxAmount),
    page: String(s.page),
  };
  return [
    { path: "/api/transactions", query },
    { path: "/api/transactions/vcn-summary", query: {} },
  ];
}

/** The first calls of the screen at `url`, `today` being the report time zone's; none for other screens. */
export function screenCalls(url: URL, today: string): ScreenCall[] {
  switch (url.pathname) {
    case "/":
      return statsCalls(url.searchParams, today);
    case "/clicks":
      return clickLogCalls(url.searchParams, today);
    case "/billing":
      return transactionCalls(url.searchParams);
    default:
      return [];
  }
}
