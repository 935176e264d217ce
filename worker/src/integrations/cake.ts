/**
 * CAKE affiliate reports: conversions and clicks with their sub ids (docs/integrations.md).
 *
 * We speak the classic `reports.asmx` API with a JSON POST body, which answers JSON wrapped as
 * `{"d": {...}}` (the other documented format is XML; JSON needs no parser in a Worker).
 * Calls cover at most 31 days, the end date exclusive, and page with start_at_row (from 1) and
 * row_limit. Days are the network's own calendar days: CAKE reports in its account's time zone.
 *
 * ⚠ marks what docs/integrations.md could not confirm; those parts read the answer defensively.
 */
import { realDay } from "../schemas/calendar-date";
import { wallTimeToInstant } from "../lib/calendar-days";
import { dayIn, shiftDay, splitDays } from "../lib/calendar-days";
import { decimalToCents } from "../lib/money";
import { ExternalApiError, isRecord, readJson, send, withApiRetries, type HttpOptions } from "./http";

// ⚠ Method versions differ between networks (Conversions v5 and Clicks v4 are the documented ones).
export const CAKE_CONVERSIONS_PATH = "/affiliates/api/5/reports.asmx/Conversions";
export const CAKE_CLICKS_PATH = "/affiliates/api/4/reports.asmx/Clicks";
export const CAKE_MAX_DAYS_PER_CALL = 31;
export const CAKE_DEFAULT_PAGE_SIZE = 10_000;
/** A report this long is not a real answer but a loop that never ends (a network ignoring paging). */
const MAX_PAGES = 500;

export interface CakeConfig {
  /** The network's own domain, e.g. https://login.network.com. */
  baseUrl: string;
  apiKey: string;
  affiliateId: string;
  /** Where a date CAKE sends as an instant (`/Date(ms)/`) is read as a calendar day. */
  timeZone: string;
}

/** A page of a report: its rows, the report's length when CAKE says it (⚠ row_count), and the rows read so far in its call's days. */
export interface ReportPage<T> {
  rows: T[];
  rowCount: number | null;
  read: number;
}

export interface CakeClientOptions extends HttpOptions {
  pageSize?: number;
}

/** Where a CAKE row belongs, as Trackyard keeps it: sub1 = media buyer, sub2 = our clickId, sub3 = spark id. */
export interface CakeRowKey {
  /** The network's calendar day. */
  date: string;
  offerId: number;
  offerName: string;
  subid1: string;
  subid2: string;
  subid3: string;
}

export interface CakeConversion extends CakeRowKey {
  conversionId: string;
  revenueCents: number;
  disposition: string;
  /** When it happened (epoch ms), when CAKE sent a time and not only a day; null otherwise. */
  convertedAt: number | null;
}

export interface CakeClick extends CakeRowKey {
  clicks: number;
}

const fail = (message: string, retryable = false) => new ExternalApiError("CAKE", message, retryable);

/** CAKE's documented request format, `MM/DD/YYYY HH:MM:SS`, at the start of a day. */
export const cakeRequestDate = (date: string) => `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)} 00:00:00`;

/**
 * The calendar day of a CAKE date. A written timestamp ("2025-03-01T23:10:00", "03/01/2025
 * 23:10:00", with or without an offset) is the network's wall clock: its date part is the day.
 * ⚠ ASP.NET's JSON serialiser may send an instant instead (`/Date(1740870600000)/`); that one is
 * read in `timeZone`. Null when the value is none of these.
 */
export function cakeDay(value: unknown, timeZone: string): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  const instant = /^\/?Date\((-?\d+)(?:[+-]\d{4})?\)\/?$/.exec(text);
  if (instant) return dayIn(Number(instant[1]), timeZone);
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text);
  if (iso) return realDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:$|\s)/.exec(text);
  if (us) return realDay(Number(us[3]), Number(us[1]), Number(us[2]));
  return null;
}

/**
 * The instant of a CAKE timestamp: `/Date(ms)/` as is, a written date and time with an offset as
 * written, and one without (the network's wall clock) read in `timeZone`. Null for a bare day or
 * anything else: the caller then knows only the day.
 */
export function cakeInstant(value: unknown, timeZone: string): number | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  const instant = /^\/?Date\((-?\d+)(?:[+-]\d{4})?\)\/?$/.exec(text);
  if (instant) return Number(instant[1]);
  let wall: number | null = null;
  const iso = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text);
  if (iso) {
    if (iso[7]) {
      const ms = Date.parse(text.replace(" ", "T"));
      return Number.isFinite(ms) ? ms : null;
    }
    wall = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]), Number(iso[4]), Number(iso[5]), Number(iso[6] ?? 0));
  }
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)?$/i.exec(text);
  if (us) {
    let hour = Number(us[4]) % (us[7] ? 12 : 24);
    if (us[7]?.toUpperCase() === "PM") hour += 12;
    wall = Date.UTC(Number(us[3]), Number(us[1]) - 1, Number(us[2]), hour, Number(us[5]), Number(us[6] ?? 0));
  }
  return wall === null || !Number.isFinite(wall) ? null : wallTimeToInstant(wall, timeZone);
}

/** First present field among the names, also looking one level down (⚠ `offer: {offer_id}`). */
function pick(row: Record<string, unknown>, names: readonly string[], nested?: string): unknown {
  for (const name of names) {
    const v = row[name];
    if (v !== undefined && v !== null) return v;
  }
  const inner = nested ? row[nested] : undefined;
  return isRecord(inner) ? pick(inner, names) : undefined;
}

const text = (v: unknown) => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "");

/** ⚠ Sub ids are documented as `subid_1`..`subid_5`; some report versions spell them `sub_id_1`. */
const subids = (row: Record<string, unknown>) => ({
  subid1: text(pick(row, ["subid_1", "sub_id_1"])),
  subid2: text(pick(row, ["subid_2", "sub_id_2"])),
  subid3: text(pick(row, ["subid_3", "sub_id_3"])),
});

function offerOf(row: Record<string, unknown>, what: string) {
  const raw = pick(row, ["offer_id"], "offer");
  const offerId = raw === undefined || raw === "" ? 0 : Number(raw);
  if (!Number.isInteger(offerId) || offerId < 0) throw fail(`CAKE sent a ${what} with an offer id that is not a number: ${String(raw)}`);
  return { offerId, offerName: text(pick(row, ["offer_name"], "offer")) };
}

function dayOf(row: Record<string, unknown>, field: string, what: string, timeZone: string) {
  const raw = row[field];
  const day = cakeDay(raw, timeZone);
  if (!day) throw fail(`CAKE sent a ${what} whose ${field} is not a date we can read: ${JSON.stringify(raw) ?? "missing"}`);
  return day;
}

export function parseConversion(row: unknown, timeZone: string): CakeConversion {
  if (!isRecord(row)) throw fail("CAKE sent a conversion that is not an object");
  const id = text(pick(row, ["conversion_id"]));
  if (!id) throw fail("CAKE sent a conversion without a conversion_id");
  const price = pick(row, ["price"]);
  const revenueCents = price === undefined || price === "" ? 0 : decimalToCents(price, "round");
  if (revenueCents === null) throw fail(`CAKE sent conversion ${id} with a price that is not an amount: ${JSON.stringify(price)}`);
  // ⚠ The disposition is a name (Approved / Pending / Rejected); some versions nest it.
  const disposition = pick(row, ["disposition", "disposition_name"]);
  return {
    conversionId: id,
    date: dayOf(row, "conversion_date", `conversion (${id})`, timeZone),
    ...offerOf(row, `conversion (${id})`),
    ...subids(row),
    revenueCents,
    disposition: text(isRecord(disposition) ? pick(disposition, ["disposition_name", "name"]) : disposition),
    convertedAt: cakeInstant(row.conversion_date, timeZone),
  };
}

export function parseClick(row: unknown, timeZone: string): CakeClick {
  if (!isRecord(row)) throw fail("CAKE sent a click that is not an object");
  // ⚠ A click row stands for one click unless the report says how many it folds together.
  const total = pick(row, ["total_clicks"]);
  const clicks = total === undefined || total === "" ? 1 : Number(total);
  if (!Number.isInteger(clicks) || clicks < 0) throw fail(`CAKE sent a click with a click count that is not a number: ${String(total)}`);
  return { date: dayOf(row, "click_date", "click", timeZone), ...offerOf(row, "click"), ...subids(row), clicks };
}

/** A rejected conversion earns nothing: it is kept but not counted. */
export const isCountedDisposition = (disposition: string) => !/reject|revers|declin|invalid/i.test(disposition);

/** Read CAKE's answer: its error shapes become messages, its rows a list and a total. */
function readEnvelope(status: number, body: unknown, rowsKey: string): { rows: unknown[]; rowCount: number | null } {
  // JSON from reports.asmx comes wrapped in "d"; ⚠ path-style APIs answer {data, row_count} bare.
  const inner = isRecord(body) && "d" in body ? body.d : body;
  if (status < 200 || status >= 300) {
    // ASP.NET reports exceptions as {Message, ExceptionType}; the message is the useful part.
    const message = isRecord(inner) ? text(inner.Message ?? inner.message) : "";
    const retryable = status >= 500 || status === 429;
    throw fail(`CAKE answered HTTP ${status}${message ? `: ${message}` : ""}`, retryable);
  }
  if (!isRecord(inner)) throw fail("CAKE answered with an unexpected shape (no report object)");
  if (inner.success === false || inner.success === "false") {
    const message = text(inner.message) || "no reason given";
    const hint = /api.?key|affiliate|auth|login|credential/i.test(message) ? " (check CAKE_API_KEY and CAKE_AFFILIATE_ID)" : "";
    throw fail(`CAKE refused the report: ${message}${hint}`);
  }
  let rows = inner[rowsKey] ?? inner.data;
  // ⚠ An XML-shaped JSON nests the list one level down: {"conversions": {"conversion": [...]}}.
  if (isRecord(rows)) rows = Object.values(rows).find(Array.isArray) ?? rows;
  if (rows === undefined || rows === null) rows = [];
  if (!Array.isArray(rows)) throw fail(`CAKE answered with an unexpected shape (${rowsKey} is not a list)`);
  const count = Number(inner.row_count);
  return { rows, rowCount: inner.row_count === undefined || !Number.isFinite(count) ? null : count };
}

/** The inclusive day range in pieces CAKE accepts: at most 31 days each, the end exclusive. */
export const cakeWindows = (startDate: string, endDate: string) =>
  splitDays(startDate, endDate, CAKE_MAX_DAYS_PER_CALL).map((w) => ({ start: w.start, endExclusive: shiftDay(w.end, 1) }));

/** The click report's parameters beside the days and paging: every offer and campaign, no duplicate clicks. */
const CLICK_REPORT = { offer_id: 0, campaign_id: 0, include_duplicates: false };

export function createCakeClient(config: CakeConfig, options: CakeClientOptions = {}) {
  const pageSize = options.pageSize ?? CAKE_DEFAULT_PAGE_SIZE;
  const base = config.baseUrl.replace(/\/+$/, "");

  async function page(path: string, params: Record<string, unknown>, rowsKey: string) {
    const url = new URL(base + path);
    return withApiRetries(async () => {
      const res = await send(
        "CAKE",
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8", accept: "application/json" },
          body: JSON.stringify({ api_key: config.apiKey, affiliate_id: config.affiliateId, ...params }),
        },
        options,
      );
      return readEnvelope(res.status, await readJson("CAKE", res), rowsKey);
    }, options);
  }

  /**
   * One report over the days, a page at a time, following the pages to the end. From `fromRow`
   * (rows already read) when the days are one call's: a pull run in steps goes on where its last
   * step stopped.
   */
  async function* reportPages<T>(
    path: string,
    rowsKey: string,
    extra: Record<string, unknown>,
    startDate: string,
    endDate: string,
    parse: (row: unknown, timeZone: string) => T,
    fromRow = 0,
  ): AsyncGenerator<ReportPage<T>> {
    const windows = cakeWindows(startDate, endDate);
    if (fromRow > 0 && windows.length > 1) throw new Error(`a report read from row ${fromRow + 1} must cover at most ${CAKE_MAX_DAYS_PER_CALL} days`);
    for (const window of windows) {
      let fetched = fromRow;
      for (let n = 0; ; n++) {
        if (n >= MAX_PAGES) throw fail(`CAKE kept sending pages of ${rowsKey} past ${MAX_PAGES}; stopped`);
        // Every documented parameter is sent, even when it means "all" (ASMX refuses missing ones).
        const { rows, rowCount } = await page(
          path,
          {
            start_date: cakeRequestDate(window.start),
            end_date: cakeRequestDate(window.endExclusive),
            ...extra,
            start_at_row: fetched + 1,
            row_limit: pageSize,
          },
          rowsKey,
        );
        fetched += rows.length;
        yield { rows: rows.map((row) => parse(row, config.timeZone)), rowCount, read: fetched };
        const done = rowCount === null ? rows.length < pageSize : fetched >= rowCount;
        if (done) break;
        if (rows.length === 0) {
          throw fail(`CAKE said ${rowsKey} had ${rowCount} rows but stopped sending them after ${fetched}; try again later`, true);
        }
      }
    }
  }

  /**
   * Whether a report over the days (one call's worth of them, or any of its calls) has more than
   * `rows` rows, for a network that does not say (no `row_count`): the row after them is asked for,
   * alone.
   */
  async function longerThan(path: string, rowsKey: string, extra: Record<string, unknown>, startDate: string, endDate: string, rows: number) {
    for (const window of cakeWindows(startDate, endDate)) {
      const { rows: past } = await page(
        path,
        { start_date: cakeRequestDate(window.start), end_date: cakeRequestDate(window.endExclusive), ...extra, start_at_row: rows + 1, row_limit: 1 },
        rowsKey,
      );
      if (past.length) return true;
    }
    return false;
  }

  return {
    /**
     * Conversions of the days startDate..endDate (inclusive, the network's days) a page at a time,
     * so a day of hundreds of thousands need not be held at once; from `fromRow` (see reportPages).
     */
    conversionPages: (startDate: string, endDate: string, fromRow = 0) =>
      reportPages(CAKE_CONVERSIONS_PATH, "conversions", { offer_id: 0 }, startDate, endDate, parseConversion, fromRow),
    /**
     * Clicks of the days startDate..endDate (inclusive, the network's days) a page at a time, so a
     * report of millions of rows need not be held at once; from `fromRow` (see reportPages).
     */
    clickPages: (startDate: string, endDate: string, fromRow = 0) =>
      reportPages(CAKE_CLICKS_PATH, "clicks", CLICK_REPORT, startDate, endDate, parseClick, fromRow),
    /** Whether the click report of the days has more than `rows` rows (one row asked for; see longerThan). */
    clicksLongerThan: (startDate: string, endDate: string, rows: number) => longerThan(CAKE_CLICKS_PATH, "clicks", CLICK_REPORT, startDate, endDate, rows),
  };
}

export type CakeClient = ReturnType<typeof createCakeClient>;
