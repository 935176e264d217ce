import { beforeEach, describe, expect, it } from "vitest";
import { transactions, userVcnAssignments } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, type TestUser } from "./helpers";

const HEADER = "Registered Card Last 4,Status,Reference Id,Authorization Billing Amount,VCN Nickname,VCN Last 4,Transaction Date,Type,Merchant Name";

/** Eight transactions over two cards and a physical card (no nickname). */
const SEED = [
  "*2375,CLEARED,A1,100.00,Ads 1,7781,1/5/25,DEBIT,FACEBOOK ADS",
  "*2375,PENDING,A2,50.25,Ads 1,7781,1/6/25,DEBIT,FACEBOOK ADS",
  "*2375,DECLINED,A3,300.00,Ads 1,7781,1/7/25,DEBIT,GOOGLE ADS",
  "*2375,CLEARED,A4,-45.00,Ads 1,7781,1/8/25,CREDIT,FACEBOOK ADS",
  "*2375,CLEARED,B1,20.00,Ads 2,*0042,1/10/25,DEBIT,TIKTOK ADS",
  "*2375,PENDING,B2,5.5,Ads 2,*0042,2/1/25,DEBIT,TIKTOK ADS",
  "*0042,CLEARED,U1,12.34,,,1/15/25,DEBIT,PIRATE SHIP",
  "*0042,DECLINED,U2,9.99,,,,DEBIT,PIRATE SHIP",
];

async function seed(admin: TestUser, rows = SEED) {
  const form = new FormData();
  form.append("file", new File([[HEADER, ...rows].join("\n")], "seed.csv"));
  const res = await call("/api/transactions/upload", { body: form, cookie: admin.cookie });
  expect(res.status).toBe(200);
}

const list = async (user: TestUser, query: Record<string, string> = {}) => bodyOf(await client(user).transactions.$get({ query }), 200);
const refs = (body: Awaited<ReturnType<typeof list>>) => body.transactions.map((t) => t.referenceId);

async function memberWith(...nicknames: string[]) {
  const member = await makeUser("user");
  if (nicknames.length)
    await db()
      .insert(userVcnAssignments)
      .values(nicknames.map((vcnNickname) => ({ userId: member.id, vcnNickname })));
  return member;
}

// Storage is shared by the tests of this file: each starts from an empty table.
beforeEach(async () => {
  await db().delete(transactions);
});

describe("listing transactions", () => {
  it("pages newest first and totals the cards in SQL: declined rows are counted apart, refunds lower spend", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const body = await list(admin);
    expect(refs(body)).toEqual(["B2", "U1", "B1", "A4", "A3", "A2", "A1", "U2"]);
    expect(body).toMatchObject({ page: 1, pageSize: 50, totalRows: 8, pageCount: 1 });
    expect(body.summary).toEqual({
      total: { count: 6, amount: "143.09" },
      pending: { count: 2, amount: "55.75" },
      cleared: { count: 4, amount: "87.34" },
      declined: { count: 2, amount: "309.99" },
    });
    const [newest] = body.transactions;
    expect(newest).toEqual({
      id: expect.any(Number),
      registeredCardLast4: "2375",
      fundingSource: null,
      typeOfAccount: null,
      transactionDate: "2025-02-01",
      clearDate: null,
      type: "DEBIT",
      status: "PENDING",
      nameOnCard: null,
      authBillingAmount: "5.50",
      merchantName: "TIKTOK ADS",
      merchantCity: null,
      merchantState: null,
      vcnNickname: "Ads 2",
      vcnLast4: "0042",
      referenceId: "B2",
      uploadedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
  });

  it("filters by status, VCN last 4 and an inclusive amount range, and the cards follow the filters", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    expect(refs(await list(admin, { status: "CLEARED" }))).toEqual(["U1", "B1", "A4", "A1"]);
    expect(refs(await list(admin, { status: "all", vcnLast4: "all" }))).toHaveLength(8);
    // The export's masked form and the stored form name the same card.
    expect(refs(await list(admin, { vcnLast4: "0042" }))).toEqual(["B2", "B1"]);
    expect(refs(await list(admin, { vcnLast4: "*0042" }))).toEqual(["B2", "B1"]);
    const ranged = await list(admin, { minAmount: "20", maxAmount: "100" });
    expect(refs(ranged)).toEqual(["B1", "A2", "A1"]);
    expect(ranged.summary).toEqual({
      total: { count: 3, amount: "170.25" },
      pending: { count: 1, amount: "50.25" },
      cleared: { count: 2, amount: "120.00" },
      declined: { count: 0, amount: "0.00" },
    });
    expect(refs(await list(admin, { minAmount: "-50", maxAmount: "0" }))).toEqual(["A4"]);
    expect(refs(await list(admin, { minAmount: "", maxAmount: "" }))).toHaveLength(8);
    const declined = await list(admin, { status: "DECLINED" });
    expect(declined.summary.total).toEqual({ count: 0, amount: "0.00" });
    expect(declined.summary.declined).toEqual({ count: 2, amount: "309.99" });
  });

  it("pages 50 at a time", async () => {
    const admin = await makeAdmin();
    await seed(
      admin,
      Array.from({ length: 120 }, (_, i) => `*5555,CLEARED,P${i},1.00,Ads 7,5555,1/${(i % 28) + 1}/25,DEBIT,M`),
    );
    const first = await list(admin);
    expect(first).toMatchObject({ page: 1, totalRows: 120, pageCount: 3 });
    expect(first.transactions).toHaveLength(50);
    const third = await list(admin, { page: "3" });
    expect(third.transactions).toHaveLength(20);
    expect(third.summary.total).toEqual({ count: 120, amount: "120.00" });
    const seen = new Set([...refs(first), ...refs(await list(admin, { page: "2" })), ...refs(third)]);
    expect(seen.size).toBe(120);
    const beyond = await list(admin, { page: "4" });
    expect(beyond).toMatchObject({ transactions: [], totalRows: 120, page: 4 });
  });

  it("refuses malformed filters with 400 and a message", async () => {
    const admin = await makeAdmin();
    const cases: [string, string][] = [
      ["?status=REFUNDED", "Status must be PENDING, CLEARED or DECLINED"],
      ["?minAmount=ten", "Min amount must be a number with at most 2 decimals"],
      ["?maxAmount=1.234", "Max amount must be a number with at most 2 decimals"],
      ["?page=0", "Page must be a whole number of 1 or more"],
    ];
    for (const [query, error] of cases) {
      const res = await call(`/api/transactions${query}`, { cookie: admin.cookie });
      expect(res.status, query).toBe(400);
      expect((await res.json<ApiErrorBody>()).error, query).toBe(error);
    }
  });
});

describe("the VCN spend summary", () => {
  it("sums PENDING and CLEARED per nickname, 'Unknown VCN' for none, largest first, with a total", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const res = await call("/api/transactions/vcn-summary", { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      rows: [
        { vcnNickname: "Ads 1", transactions: 3, totalSpend: "105.25" },
        { vcnNickname: "Ads 2", transactions: 2, totalSpend: "25.50" },
        { vcnNickname: "Unknown VCN", transactions: 1, totalSpend: "12.34" },
      ],
      total: { transactions: 6, totalSpend: "143.09" },
    });
  });

  it("limits to transaction dates, both ends included", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const res = await call("/api/transactions/vcn-summary?startDate=2025-01-06&endDate=2025-01-10", { cookie: admin.cookie });
    expect(await res.json()).toEqual({
      rows: [
        { vcnNickname: "Ads 2", transactions: 1, totalSpend: "20.00" },
        { vcnNickname: "Ads 1", transactions: 2, totalSpend: "5.25" },
      ],
      total: { transactions: 3, totalSpend: "25.25" },
    });
    const empty = await call("/api/transactions/vcn-summary?startDate=2030-01-01", { cookie: admin.cookie });
    expect(await empty.json()).toEqual({ rows: [], total: { transactions: 0, totalSpend: "0.00" } });
  });

  it("refuses a reversed or impossible date range", async () => {
    const admin = await makeAdmin();
    const reversed = await call("/api/transactions/vcn-summary?startDate=2025-02-01&endDate=2025-01-01", { cookie: admin.cookie });
    expect(reversed.status).toBe(400);
    expect((await reversed.json<ApiErrorBody>()).error).toBe("End date must be on or after the start date");
    const impossible = await call("/api/transactions/vcn-summary?startDate=2025-02-30", { cookie: admin.cookie });
    expect(impossible.status).toBe(400);
    expect((await impossible.json<ApiErrorBody>()).error).toBe("Start date must be a real date written YYYY-MM-DD");
  });
});

describe("what a member sees", () => {
  it("only the transactions of the nicknames assigned to them, in the list, the cards, the summary and the choices", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const member = await memberWith("Ads 2");

    const body = await list(member);
    expect(refs(body)).toEqual(["B2", "B1"]);
    expect(body.totalRows).toBe(2);
    expect(body.summary).toEqual({
      total: { count: 2, amount: "25.50" },
      pending: { count: 1, amount: "5.50" },
      cleared: { count: 1, amount: "20.00" },
      declined: { count: 0, amount: "0.00" },
    });
    // Filtering for another card's digits cannot reveal it.
    expect(refs(await list(member, { vcnLast4: "7781" }))).toEqual([]);

    const summary = await call("/api/transactions/vcn-summary", { cookie: member.cookie });
    expect(await summary.json()).toEqual({
      rows: [{ vcnNickname: "Ads 2", transactions: 2, totalSpend: "25.50" }],
      total: { transactions: 2, totalSpend: "25.50" },
    });
    const choices = await call("/api/transactions/vcn-last4", { cookie: member.cookie });
    expect(await choices.json()).toEqual({ values: ["0042"] });
  });

  it("nothing without assignments, and may not upload", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const member = await memberWith();
    const body = await list(member);
    expect(body).toMatchObject({ transactions: [], totalRows: 0, pageCount: 1 });
    expect(body.summary.total).toEqual({ count: 0, amount: "0.00" });
    expect(await (await call("/api/transactions/vcn-last4", { cookie: member.cookie })).json()).toEqual({ values: [] });

    const form = new FormData();
    form.append("file", new File([`${HEADER}\n${SEED[0]}`], "mine.csv"));
    const upload = await call("/api/transactions/upload", { body: form, cookie: member.cookie });
    expect(upload.status).toBe(403);
  });

  it("admins get every card's last 4 as filter choices", async () => {
    const admin = await makeAdmin();
    await seed(admin);
    const res = await call("/api/transactions/vcn-last4", { cookie: admin.cookie });
    expect(await res.json()).toEqual({ values: ["0042", "7781"] });
  });
});
