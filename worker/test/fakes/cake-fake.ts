/**
 * A local stand-in for a CAKE network's affiliate reports API, answering with the documented
 * shapes (docs/integrations.md): JSON POST to `reports.asmx/<Method>` wrapped as `{"d": ...}`,
 * `success: false` with a message for refused calls, ASP.NET's `{Message, ExceptionType}` with
 * HTTP 500 for malformed ones, MM/DD/YYYY dates with an exclusive end, at most 31 days per call,
 * and paging with start_at_row (from 1) and row_limit (0 = all).
 *
 * It is a plain fetch handler (`handle(Request)`), so the worker tests inject it as `fetch` and a
 * Node script can serve it over HTTP for the browser test. No Worker-only APIs.
 */

/** A conversion as CAKE sends it (field names as documented; values as strings like the API). */
export interface FakeCakeConversion {
  conversion_id: string | number;
  /** "2025-03-01T13:45:00" (the network's wall clock), "03/01/2025 13:45:00", or "/Date(ms)/". */
  conversion_date: string;
  offer_id: number;
  offer_name: string;
  subid_1?: string;
  subid_2?: string;
  subid_3?: string;
  subid_4?: string;
  subid_5?: string;
  price: string;
  disposition?: string;
}

export interface FakeCakeClick {
  click_id: string | number;
  click_date: string;
  offer_id: number;
  offer_name: string;
  subid_1?: string;
  subid_2?: string;
  subid_3?: string;
}

/** An answer to give instead of the real one, once. */
export type FakeFailure = { status: number; json?: unknown; text?: string };

export interface CakeFakeOptions {
  apiKey?: string;
  affiliateId?: string;
  conversions?: FakeCakeConversion[];
  clicks?: FakeCakeClick[];
}

export const CAKE_FAKE_PATHS = {
  conversions: "/affiliates/api/5/reports.asmx/Conversions",
  clicks: "/affiliates/api/4/reports.asmx/Clicks",
} as const;

const REQUIRED = {
  conversions: ["api_key", "affiliate_id", "start_date", "end_date", "offer_id", "start_at_row", "row_limit"],
  clicks: ["api_key", "affiliate_id", "start_date", "end_date", "offer_id", "campaign_id", "include_duplicates", "start_at_row", "row_limit"],
} as const;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });

/** ASP.NET's answer to a call it cannot bind. */
const aspNetError = (message: string) => json({ Message: message, StackTrace: "", ExceptionType: "System.InvalidOperationException" }, 500);

/** The day of a row's date as the fake network reads it (its own wall clock; instants in UTC). */
export function fakeRowDay(value: string): string | null {
  const instant = /^\/Date\((-?\d+)/.exec(value);
  if (instant) return new Date(Number(instant[1])).toISOString().slice(0, 10);
  const iso = /^(\d{4}-\d{2}-\d{2})/.exec(value);
  if (iso) return iso[1]!;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(value);
  return us ? `${us[3]}-${us[1]!.padStart(2, "0")}-${us[2]!.padStart(2, "0")}` : null;
}

/** CAKE's request date `MM/DD/YYYY HH:MM:SS` (or `YYYY-MM-DD`) to a day, or null. */
function requestDay(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const us = /^(\d{2})\/(\d{2})\/(\d{4})(?: \d{2}:\d{2}:\d{2})?$/.exec(value);
  if (us) return `${us[3]}-${us[1]}-${us[2]}`;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

const daysBetween = (a: string, b: string) => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000;

export function createCakeFake(options: CakeFakeOptions = {}) {
  const state = {
    apiKey: options.apiKey ?? "cake-test-key",
    affiliateId: options.affiliateId ?? "4242",
    conversions: [...(options.conversions ?? [])],
    clicks: [...(options.clicks ?? [])],
    /** Answers given instead of the real ones, first in first out. */
    failures: [] as FakeFailure[],
    /** At most this many rows a page, whatever row_limit asks (a network that caps its pages). */
    maxPageRows: undefined as number | undefined,
    /** Whether an answer says its report's length (`row_count`): some networks' do not. */
    rowCount: true,
    /** Every request body received, for assertions on paging and windows. */
    requests: [] as { path: string; body: Record<string, unknown> }[],
  };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const report = url.pathname === CAKE_FAKE_PATHS.conversions ? "conversions" : url.pathname === CAKE_FAKE_PATHS.clicks ? "clicks" : null;
    if (!report) return new Response("<html><body>The resource cannot be found.</body></html>", { status: 404, headers: { "content-type": "text/html" } });
    if (request.method !== "POST") return aspNetError(`Request format is invalid: ${request.method} is not allowed for this JSON call.`);

    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await request.text());
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return aspNetError("Invalid JSON primitive.");
      body = parsed as Record<string, unknown>;
    } catch {
      return aspNetError("Invalid JSON primitive.");
    }
    state.requests.push({ path: url.pathname, body });

    const failure = state.failures.shift();
    if (failure) {
      return failure.text !== undefined
        ? new Response(failure.text, { status: failure.status, headers: { "content-type": "text/html" } })
        : json(failure.json ?? {}, failure.status);
    }

    const missing = REQUIRED[report].find((name) => !(name in body));
    if (missing) return aspNetError(`Invalid web service call, missing value for parameter: '${missing}'.`);

    const envelope = (fields: Record<string, unknown>) => json({ d: { __type: `Cake.Affiliates.Api.${report}_report_response`, ...fields } });
    const refuse = (message: string) => envelope({ success: false, message, row_count: 0, [report]: [] });

    if (String(body.api_key) !== state.apiKey) return refuse("Invalid API Key");
    if (String(body.affiliate_id) !== state.affiliateId) return refuse("Invalid Affiliate ID");
    const start = requestDay(body.start_date);
    const end = requestDay(body.end_date);
    if (!start || !end) return refuse("Invalid Date Format");
    if (end <= start) return refuse("End Date must be after Start Date");
    if (daysBetween(start, end) > 31) return refuse("Date range cannot exceed 31 days");
    const startAt = Number(body.start_at_row);
    const limit = Number(body.row_limit);
    if (!Number.isInteger(startAt) || startAt < 1 || !Number.isInteger(limit) || limit < 0 || limit > 100_000) {
      return refuse("Invalid paging: start_at_row starts at 1 and row_limit is 0 to 100000");
    }

    const source: (FakeCakeConversion | FakeCakeClick)[] = report === "conversions" ? state.conversions : state.clicks;
    const matching = source.filter((row) => {
      const day = fakeRowDay("conversion_date" in row ? row.conversion_date : row.click_date);
      return day !== null && day >= start && day < end;
    });
    const take = Math.min(limit === 0 ? Infinity : limit, state.maxPageRows ?? Infinity);
    const page = matching.slice(startAt - 1, take === Infinity ? undefined : startAt - 1 + take);
    return envelope({ success: true, message: "", ...(state.rowCount ? { row_count: matching.length } : {}), [report]: page });
  }

  return {
    state,
    handle,
    /** `handle` in fetch's own signature, for injecting where a fetch is expected. */
    fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)),
    failNext(...failures: FakeFailure[]) {
      state.failures.push(...failures);
    },
  };
}

export type CakeFake = ReturnType<typeof createCakeFake>;
