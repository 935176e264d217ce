import { describe, expect, it } from "vitest";
import { cakeInstant, cakeDay, cakeWindows, createCakeClient, type CakeClient, type CakeConfig, type ReportPage } from "../src/integrations/cake";
import { dayIn, shiftDay, splitDays } from "../src/lib/calendar-days";
import { decimalToCents, parseCents } from "../src/lib/money";
import { createCakeFake, type FakeCakeConversion } from "./fakes/cake-fake";
import { externalFailure } from "./performance-helpers";

const config: CakeConfig = { baseUrl: "https://cake.test", apiKey: "cake-test-key", affiliateId: "4242", timeZone: "UTC" };
const noWait = { retryDelaysMs: [0, 0], sleep: async () => {} };

/** Every row of a report, page after page, as the sync reads them. */
async function allRows<T>(pages: AsyncIterable<ReportPage<T>>) {
  const out: T[] = [];
  for await (const { rows } of pages) out.push(...rows);
  return out;
}
const allClicks = (client: CakeClient, startDate: string, endDate: string) => allRows(client.clickPages(startDate, endDate));
const allConversions = (client: CakeClient, startDate: string, endDate: string) => allRows(client.conversionPages(startDate, endDate));

const conversion = (id: number, date: string, extra: Partial<FakeCakeConversion> = {}): FakeCakeConversion => ({
  conversion_id: id,
  conversion_date: `${date}T10:00:00`,
  offer_id: 11,
  offer_name: "Sweeps",
  subid_1: "mb1",
  subid_2: `click-${id}`,
  subid_3: "spark-a",
  price: "2.500000",
  disposition: "Approved",
  ...extra,
});

describe("decimalToCents", () => {
  it("parses money exactly, rounding below a cent half away from zero", () => {
    expect(decimalToCents("180.000000", "round")).toBe(18000);
    expect(decimalToCents("0.29", "round")).toBe(29);
    expect(decimalToCents("12.345", "round")).toBe(1235);
    expect(decimalToCents("12.344999", "round")).toBe(1234);
    expect(decimalToCents("-45.00", "round")).toBe(-4500);
    expect(decimalToCents("-0.005", "round")).toBe(-1);
    expect(decimalToCents(".5", "round")).toBe(50);
    expect(decimalToCents("7", "round")).toBe(700);
    expect(decimalToCents("$1,234.50", "round")).toBe(123450);
    expect(decimalToCents(19.99, "round")).toBe(1999);
  });

  it("one parser for exact amounts too: refuses digits past the cent, and formatting", () => {
    expect(parseCents("1234.5")).toBe(123450);
    expect(parseCents("28.270")).toBe(2827);
    expect(parseCents("+3")).toBe(300);
    for (const bad of ["1.005", ".5", "$1", "1,234.00", "12.345"]) expect(parseCents(bad), bad).toBeNull();
    expect(decimalToCents(12.5)).toBeNull();
  });

  it("refuses what is not an amount", () => {
    for (const bad of ["", "abc", "1.2.3", "1e5", "-", ".", "12,34", null, undefined, {}, Number.NaN]) {
      expect(decimalToCents(bad, "round"), String(bad)).toBeNull();
    }
  });
});

describe("cakeDay", () => {
  it("takes a written timestamp's own date, whatever the offset", () => {
    expect(cakeDay("2025-03-01T23:59:59", "UTC")).toBe("2025-03-01");
    expect(cakeDay("2025-03-01T23:59:59-05:00", "Asia/Tokyo")).toBe("2025-03-01");
    expect(cakeDay("2025-03-01 08:00:00", "UTC")).toBe("2025-03-01");
    expect(cakeDay("3/1/2025 11:10:00 PM", "UTC")).toBe("2025-03-01");
    expect(cakeDay("03/01/2025", "UTC")).toBe("2025-03-01");
  });

  it("reads an ASP.NET instant in the given time zone", () => {
    const ms = Date.UTC(2025, 2, 2, 3, 0, 0); // 03:00 UTC on 2 March = 22:00 on 1 March in New York
    expect(cakeDay(`/Date(${ms})/`, "UTC")).toBe("2025-03-02");
    expect(cakeDay(`/Date(${ms})/`, "America/New_York")).toBe("2025-03-01");
    expect(cakeDay(`/Date(${ms}-0500)/`, "America/New_York")).toBe("2025-03-01");
  });

  it("refuses impossible and unknown dates", () => {
    for (const bad of ["2025-02-30T00:00:00", "13/01/2025", "yesterday", "", 20250301]) expect(cakeDay(bad, "UTC")).toBeNull();
  });
});

describe("CAKE client", () => {
  it("splits long ranges into calls of at most 31 days with an exclusive end", () => {
    expect(cakeWindows("2025-01-01", "2025-01-31")).toEqual([{ start: "2025-01-01", endExclusive: "2025-02-01" }]);
    expect(cakeWindows("2025-01-01", "2025-03-05")).toEqual([
      { start: "2025-01-01", endExclusive: "2025-02-01" },
      { start: "2025-02-01", endExclusive: "2025-03-04" },
      { start: "2025-03-04", endExclusive: "2025-03-06" },
    ]);
  });

  it("reads every page of every window, sending every documented parameter", async () => {
    const fake = createCakeFake({
      conversions: [
        ...Array.from({ length: 7 }, (_, i) => conversion(100 + i, "2025-01-10")),
        conversion(200, "2025-02-20"),
        conversion(300, "2025-03-01"), // outside the range asked for
      ],
    });
    const client = createCakeClient(config, { fetch: fake.fetch, pageSize: 3 });
    const rows = await allConversions(client, "2025-01-05", "2025-02-28");

    expect(rows.map((r) => r.conversionId)).toEqual(["100", "101", "102", "103", "104", "105", "106", "200"]);
    const calls = fake.state.requests.map((r) => [r.body.start_date, r.body.end_date, r.body.start_at_row, r.body.row_limit]);
    expect(calls).toEqual([
      ["01/05/2025 00:00:00", "02/05/2025 00:00:00", 1, 3],
      ["01/05/2025 00:00:00", "02/05/2025 00:00:00", 4, 3],
      ["01/05/2025 00:00:00", "02/05/2025 00:00:00", 7, 3],
      ["02/05/2025 00:00:00", "03/01/2025 00:00:00", 1, 3],
    ]);
    expect(fake.state.requests[0]!.body).toMatchObject({ api_key: "cake-test-key", affiliate_id: "4242", offer_id: 0 });
  });

  it("maps a conversion to Trackyard's fields with money in exact cents", async () => {
    const fake = createCakeFake({
      conversions: [
        conversion(1, "2025-01-10", { price: "180.000000", subid_1: " mb9 ", subid_2: "abc", subid_3: "" }),
        conversion(2, "2025-01-10", { price: "0.29", disposition: "Rejected" }),
      ],
    });
    const [first, second] = await allConversions(createCakeClient(config, { fetch: fake.fetch }), "2025-01-10", "2025-01-10");
    expect(first).toEqual({
      conversionId: "1",
      date: "2025-01-10",
      offerId: 11,
      offerName: "Sweeps",
      subid1: "mb9",
      subid2: "abc",
      subid3: "",
      revenueCents: 18000,
      disposition: "Approved",
      convertedAt: Date.parse("2025-01-10T10:00:00Z"),
    });
    expect(second).toMatchObject({ revenueCents: 29, disposition: "Rejected" });
  });

  it("reads when a conversion happened: the network's wall clock in its time zone, an offset or instant as given, a bare day as unknown", () => {
    expect(cakeInstant("2025-03-01T23:10:00", "America/New_York")).toBe(Date.parse("2025-03-02T04:10:00Z"));
    expect(cakeInstant("07/04/2025 11:30:00 PM", "America/New_York")).toBe(Date.parse("2025-07-05T03:30:00Z"));
    expect(cakeInstant("03/01/2025 08:05:09", "UTC")).toBe(Date.parse("2025-03-01T08:05:09Z"));
    expect(cakeInstant("2025-03-01T23:10:00+02:00", "America/New_York")).toBe(Date.parse("2025-03-01T21:10:00Z"));
    expect(cakeInstant("/Date(1740870600000)/", "Asia/Tokyo")).toBe(1740870600000);
    expect(cakeInstant("2025-03-01", "UTC")).toBeNull();
    expect(cakeInstant("soon", "UTC")).toBeNull();
  });

  it("reads clicks with their sub ids, nested offers and the other sub id spelling", async () => {
    const fake = createCakeFake();
    fake.state.clicks.push(
      { click_id: 1, click_date: "2025-01-10T01:00:00", offer_id: 11, offer_name: "Sweeps", subid_1: "mb1", subid_2: "c1", subid_3: "" },
      // ⚠ shapes the client tolerates: the offer nested, sub ids spelled sub_id_N
      { click_id: 2, click_date: "01/10/2025 02:00:00", offer: { offer_id: "12", offer_name: "Loans" }, sub_id_1: "mb2", sub_id_2: "c2" } as never,
    );
    const clicks = await allClicks(createCakeClient(config, { fetch: fake.fetch }), "2025-01-10", "2025-01-10");
    expect(clicks).toEqual([
      { date: "2025-01-10", offerId: 11, offerName: "Sweeps", subid1: "mb1", subid2: "c1", subid3: "", clicks: 1 },
      { date: "2025-01-10", offerId: 12, offerName: "Loans", subid1: "mb2", subid2: "c2", subid3: "", clicks: 1 },
    ]);
    expect(fake.state.requests[0]).toMatchObject({ path: "/affiliates/api/4/reports.asmx/Clicks", body: { include_duplicates: false, campaign_id: 0 } });
  });

  it("says what CAKE refused, and hints at the credentials", async () => {
    const fake = createCakeFake();
    const wrongKey = createCakeClient({ ...config, apiKey: "nope" }, { fetch: fake.fetch });
    const err = await externalFailure(allConversions(wrongKey, "2025-01-10", "2025-01-10"));
    expect(err.message).toBe("CAKE refused the report: Invalid API Key (check CAKE_API_KEY and CAKE_AFFILIATE_ID)");
    expect(err.retryable).toBe(false);
  });

  it("turns ASP.NET exceptions, HTML pages and odd shapes into clear errors", async () => {
    const fake = createCakeFake();
    const client = createCakeClient(config, { fetch: fake.fetch, ...noWait, retryDelaysMs: [] });

    fake.failNext({ status: 500, json: { Message: "Invalid web service call, missing value for parameter: 'x'.", ExceptionType: "X" } });
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe(
      "CAKE answered HTTP 500: Invalid web service call, missing value for parameter: 'x'.",
    );

    fake.failNext({ status: 502, text: "<html><body>Bad gateway</body></html>" });
    const html = await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"));
    expect(html.message).toBe("CAKE answered HTTP 502 with something that is not JSON: <html><body>Bad gateway</body></html>");
    expect(html.retryable).toBe(true);

    fake.failNext({ status: 200, json: { d: { success: true, row_count: 1, conversions: "none" } } });
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe(
      "CAKE answered with an unexpected shape (conversions is not a list)",
    );

    fake.failNext({ status: 200, json: { d: { success: true, row_count: 1, conversions: [{ conversion_id: 5, conversion_date: "soon", price: "1" }] } } });
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe(
      'CAKE sent a conversion (5) whose conversion_date is not a date we can read: "soon"',
    );

    fake.failNext({
      status: 200,
      json: { d: { success: true, row_count: 1, conversions: [{ conversion_id: 5, conversion_date: "2025-01-10", price: "lots" }] } },
    });
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe(
      'CAKE sent conversion 5 with a price that is not an amount: "lots"',
    );

    fake.failNext({ status: 200, json: { d: { success: true, row_count: 1, conversions: [{ conversion_date: "2025-01-10", price: "1" }] } } });
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe("CAKE sent a conversion without a conversion_id");
  });

  it("notices a report that stops short of the row count it announced", async () => {
    const fake = createCakeFake({ conversions: [conversion(1, "2025-01-10"), conversion(2, "2025-01-10")] });
    const client = createCakeClient(config, { fetch: fake.fetch, pageSize: 1 });
    fake.failNext(
      { status: 200, json: { d: { success: true, row_count: 5, conversions: [conversion(1, "2025-01-10")] } } },
      { status: 200, json: { d: { success: true, row_count: 5, conversions: [] } } },
    );
    expect((await externalFailure(allConversions(client, "2025-01-10", "2025-01-10"))).message).toBe(
      "CAKE said conversions had 5 rows but stopped sending them after 1; try again later",
    );
  });

  it("retries a temporary failure and carries on", async () => {
    const fake = createCakeFake({ conversions: [conversion(1, "2025-01-10")] });
    fake.failNext({ status: 503, text: "Service Unavailable" });
    const waits: number[] = [];
    const client = createCakeClient(config, { fetch: fake.fetch, retryDelaysMs: [5, 10], sleep: async (ms) => void waits.push(ms) });
    expect(await allConversions(client, "2025-01-10", "2025-01-10")).toHaveLength(1);
    expect(waits).toEqual([5]);
  });

  it("reports a network that cannot be reached", async () => {
    const client = createCakeClient(config, {
      fetch: async () => {
        throw new TypeError("connection refused");
      },
      ...noWait,
    });
    const err = await externalFailure(allClicks(client, "2025-01-10", "2025-01-10"));
    expect(err.message).toBe("Could not reach CAKE at cake.test: connection refused");
  });
});

describe("calendar days", () => {
  it("reads an instant's day in a time zone, across daylight saving", () => {
    expect(dayIn(Date.parse("2025-03-09T04:59:59Z"), "America/New_York")).toBe("2025-03-08");
    expect(dayIn(Date.parse("2025-03-09T05:00:00Z"), "America/New_York")).toBe("2025-03-09");
    expect(dayIn(Date.parse("2025-03-09T23:30:00Z"), "Asia/Kolkata")).toBe("2025-03-10");
    expect(dayIn(Date.parse("2025-03-09T23:30:00Z"), "UTC")).toBe("2025-03-09");
  });

  it("moves across months, years and leap days, and cuts ranges into pieces", () => {
    expect(shiftDay("2024-02-28", 1)).toBe("2024-02-29");
    expect(shiftDay("2025-01-01", -1)).toBe("2024-12-31");
    expect(splitDays("2025-01-01", "2025-01-10", 4)).toEqual([
      { start: "2025-01-01", end: "2025-01-04" },
      { start: "2025-01-05", end: "2025-01-08" },
      { start: "2025-01-09", end: "2025-01-10" },
    ]);
    expect(splitDays("2025-01-02", "2025-01-01", 4)).toEqual([]);
  });
});
